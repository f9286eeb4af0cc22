"""Sentences of the pages about what ran, each checked against the output, record or code that makes it true."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from recorder.project import manifest
from recorder.project.config import Part, Project
from recorder.project.manifest import Origin
from recorder.project.snippets import discover
from support import ROOT

PROJECT = Project.load(ROOT)
MANIFEST = manifest.read(ROOT)
SNIPPETS = discover(ROOT)
DOCS = ROOT / "docs"
PROVENANCE = (DOCS / "provenance.md").read_text(encoding="utf-8")
PARTS = PROJECT.parts()
# A model class imported from Transformers, as the record step reads one (a model built from a configuration loads
# nothing: only `from_pretrained` on such a class does).
MODEL_CLASS = re.compile(r"^from transformers import .*(Model|For[A-Z])", re.M)


def source(name: str) -> str:
    return (ROOT / "snippets" / f"{name}.py").read_text(encoding="utf-8")


def test_a_model_built_from_a_configuration_is_executed_here_and_loads_no_weights() -> None:
    """A snippet that builds a model from GPT-2's configuration downloads nothing, so the build runs it: an executed
    output, never a published one."""
    configured = [
        name for name in SNIPPETS if MODEL_CLASS.search(source(name)) and "from_pretrained" not in source(name)
    ]
    assert configured, "no snippet builds a model from a configuration: this checks nothing"
    for name in configured:
        assert SNIPPETS[name].runs_on is not Origin.WEIGHTS, name
    for name, snippet in SNIPPETS.items():
        if snippet.runs_on is not Origin.WEIGHTS:
            assert MANIFEST[name].origin.executed, name
            assert not (ROOT / "published" / f"{name}.txt").exists(), name


def inline_code(markdown: str) -> list[str]:
    """The inline code spans of a page, outside its directives."""
    return re.findall(r"(?<!`)`([^`\n]+)`(?!`)", re.sub(r"\{\{.*?\}\}", "", markdown))


def bound_names(part: Part) -> set[str]:
    """The names the part's snippets bind at their top level (`model`, `tokenizer`, ...), imports included."""
    names = set()
    for path in (ROOT / "snippets" / part.name).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def quoted_code(part: Part) -> list[str]:
    """What the part's page quotes inline as an expression on a name its snippets bind, such as
    `model.transformer.wte`: code the reader takes for the examples' own."""
    bound, found = bound_names(part), []
    for span in inline_code((DOCS / part.page).read_text(encoding="utf-8")):
        if re.fullmatch(r"[-\w]+\.(json|txt|py|md|yml|ipynb|safetensors)", span):
            continue  # a file's name, not code
        try:
            tree = ast.parse(span, mode="eval")
        except SyntaxError:
            continue
        roots = {
            node.value.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        }
        if roots & bound:
            found.append(span)
    return found


def test_some_page_quotes_code_of_its_snippets_inline() -> None:
    assert any(quoted_code(part) for part in PARTS), "no page quotes its snippets' code inline: this checks nothing"


@pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)
def test_code_a_page_quotes_inline_is_code_its_snippets_run(part: Part) -> None:
    """An expression the prose quotes (`model.lm_head.weight is model.transformer.wte.weight`, the check behind a
    label an output prints) is written, as quoted, in one of its part's snippets."""
    sources = [path.read_text(encoding="utf-8") for path in (ROOT / "snippets" / part.name).glob("*.py")]
    missing = [span for span in quoted_code(part) if not any(span in text for text in sources)]
    assert not missing, f"docs/{part.page} quotes code that no snippet of snippets/{part.name}/ runs: {missing}"


PAGES = sorted([*DOCS.glob("*.md"), ROOT / "README.md"])


@pytest.mark.parametrize("path", PAGES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_a_page_that_reads_a_gradient_claims_no_more_than_the_checks_show(path: Path) -> None:
    """A parameter that receives a gradient: necessary for training, not proof of how its values were made; and a
    gradient's shape is the parameter's, whichever rows the loss reached."""
    text = re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))
    assert "cannot be a fixed dictionary" not in text and "learns its values" not in text
    if "`.grad`" in text:
        assert "a table computed elsewhere and then loaded into an `nn.Parameter` would pass both checks" in text
        assert "`.grad` always has the shape of the parameter it belongs to" in text


def test_the_provenance_page_states_the_publishing_rule_the_code_applies() -> None:
    """Published: exactly the snippets that load GPT-2's weights, which the code reads as `from_pretrained` called
    on a model class; the page says that, and no longer that every output is recorded from running its file."""
    published = {name for name, record in MANIFEST.items() if not record.origin.executed}
    assert published == {name for name, snippet in SNIPPETS.items() if snippet.runs_on is Origin.WEIGHTS}
    assert "snippet that loads GPT-2's weights (one that calls `from_pretrained` on a model class)" in PROVENANCE
    assert "never typed by hand" not in PROVENANCE and "that depend on GPT-2's real weights" not in PROVENANCE
    assert f"the article *{PROJECT.options.published_article}*" in PROVENANCE
    stated = PROJECT.options.published_with
    assert len(stated) == 1, "the page says the article states a revision and a release for one output only"
    assert "for one of these outputs only" in PROVENANCE


STAND_IN_PAGES = sorted(
    [*DOCS.glob("*.md"), ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "published" / "README.md"]
)


@pytest.mark.parametrize("path", STAND_IN_PAGES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_page_that_mentions_the_stand_in_says_what_it_is(path: Path) -> None:
    """GPT-2's configuration with one layer (`create_stand_ins`), its real tokenizer, random weights: never
    "GPT-2's architecture" or "shape", which would be twelve layers."""
    text = re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))
    assert "GPT-2's architecture" not in text and "GPT-2's shape" not in text and "its architecture" not in text
    if "stand-in" in text:
        assert (
            re.search(r"GPT-2's configuration (with|cut to) one layer", text) or "configuration with one layer" in text
        )
        assert "random weights" in text

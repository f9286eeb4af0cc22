"""Each part's companion notebook: its page's snippet sections and recorded outputs, runnable, never stale."""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from functools import cache
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from mkdocs.utils.meta import get_data
from nbclient import NotebookClient
from packaging.utils import canonicalize_name

from recorder.project import manifest
from recorder.project.config import Part, Project
from recorder.project.directives import Code, parse
from recorder.project.errors import PageError
from recorder.project.manifest import Origin
from recorder.record.article import check
from recorder.record.runner import QUIET_LIBRARIES
from recorder.render.notebook_page import with_copy_scripts_last, without_remote_loaders
from support import ROOT, build, offline_env

PROJECT = Project.load(ROOT)
PARTS = PROJECT.parts()
MANIFEST = manifest.read(ROOT)
# Read independently of the recorder: each block directive of a page, in page order.
BLOCK = re.compile(
    r"^[ \t]*\{\{ (?P<kind>code|example) [-\w]+/(?P<file>\w+)\.py(?::(?P<section>[-\w]+))?\b[^}]*\}\}[ \t]*$", re.M
)

by_part = pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)


def section(part: Part, file: str, name: str | None) -> str:
    """The lines between a section's markers (or the whole file's), minus nested markers, dedented."""
    lines = (ROOT / "snippets" / part.name / f"{file}.py").read_text(encoding="utf-8").splitlines()
    stripped = [line.strip() for line in lines]
    start, end = (
        (stripped.index(f"# --8<-- [start:{name}]"), stripped.index(f"# --8<-- [end:{name}]"))
        if name
        else (-1, len(lines))
    )
    shown = [line for line in lines[start + 1 : end] if "--8<--" not in line]
    return textwrap.dedent("\n".join(shown)).strip("\n")


def stdout(cell: nbformat.NotebookNode) -> str:
    return "".join(output.text for output in cell.outputs if output.output_type == "stream" and output.name == "stdout")


@cache
def notebook(part: Part) -> nbformat.NotebookNode:
    document = nbformat.read(ROOT / "docs" / part.notebook, as_version=4)
    nbformat.validate(document)
    return document


@cache
def blocks(part: Part) -> tuple[re.Match[str], ...]:
    found = tuple(BLOCK.finditer(get_data((ROOT / "docs" / part.page).read_text(encoding="utf-8"))[0]))
    assert found, f"no code or example directive found in docs/{part.page}"
    return found


def test_every_part_has_its_notebook_and_no_other_is_there() -> None:
    assert PARTS
    assert sorted((ROOT / "docs" / "notebooks").glob("*.ipynb")) == sorted(
        ROOT / "docs" / part.notebook for part in PARTS
    )


@by_part
def test_cells_are_the_page_blocks_in_page_order(part: Part) -> None:
    intro, install, imports, *examples = notebook(part).cells
    assert intro.cell_type == "markdown"
    assert [cell.cell_type for cell in (install, imports, *examples)] == ["code"] * (2 + len(blocks(part)))
    for cell, block in zip(examples, blocks(part), strict=True):
        assert cell.source == section(part, block["file"], block["section"]), block.group(0)


@by_part
def test_outputs_are_the_recorded_outputs(part: Part) -> None:
    examples = notebook(part).cells[3:]
    for cell, block in zip(examples, blocks(part), strict=True):
        if block["kind"] == "code":
            assert cell.outputs == [], block.group(0)
        else:
            recorded = (ROOT / "outputs" / part.name / f"{block['file']}.txt").read_text(encoding="utf-8")
            assert [output.output_type for output in cell.outputs] == ["stream"]
            assert stdout(cell) == recorded, block.group(0)


@by_part
def test_first_cell_installs_the_pinned_packages_the_imports_need(part: Part) -> None:
    requirements = {
        canonicalize_name(line.split("==")[0]): line.split("#")[0].strip()
        for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if "==" in line and not line.lstrip().startswith("#")
    }
    install = notebook(part).cells[1].source
    assert install.startswith("%pip install ")
    installed = install.removeprefix("%pip install ").split()
    assert installed and all(pin in requirements.values() for pin in installed), f"{installed}: not pinned as is"
    modules = {
        node.module.split(".")[0] if isinstance(node, ast.ImportFrom) else alias.name.split(".")[0]
        for node in ast.parse(notebook(part).cells[2].source).body
        for alias in (node.names if isinstance(node, ast.Import) else [None])
    }
    distributions = metadata.packages_distributions()
    needed = {
        canonicalize_name(name)
        for module in modules - set(sys.stdlib_module_names)
        for name in distributions.get(module, [module])
        if canonicalize_name(name) in requirements
    }
    assert sorted(installed, key=str.lower) == sorted((requirements[name] for name in needed), key=str.lower)
    # PyTorch's CPU index is suggested where the cell installs PyTorch, and only there.
    installs_torch = any(pin.startswith("torch==") for pin in installed)
    assert ("download.pytorch.org/whl/cpu" in notebook(part).cells[0].source) == installs_torch


def test_some_notebook_installs_pytorch_and_some_does_not() -> None:
    """Both sides of the CPU index's suggestion are checked on a real notebook."""
    installs = {part.name: "torch==" in notebook(part).cells[1].source for part in PARTS}
    assert set(installs.values()) == {True, False}, installs


def imported_names(source: str) -> list[tuple[str, str]]:
    """(module, name as written) for each name a module's top-level imports bring in."""
    return [
        (alias.name if isinstance(node, ast.Import) else str(node.module), ast.unparse(alias))
        for node in ast.parse(source).body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]


@by_part
def test_imports_cell_gathers_imports_the_snippets_make_each_name_once(part: Part) -> None:
    source = notebook(part).cells[2].source
    assert source and all(isinstance(node, ast.Import | ast.ImportFrom) for node in ast.parse(source).body)
    cell = imported_names(source)
    shown = {
        found
        for file in {block["file"] for block in blocks(part)}
        for found in imported_names((ROOT / "snippets" / part.name / f"{file}.py").read_text(encoding="utf-8"))
    }
    assert len(cell) == len(set(cell)), "a name imported twice"
    assert set(cell) <= shown, "only what the snippets the page shows import"
    modules = [node.module for node in ast.parse(source).body if isinstance(node, ast.ImportFrom)]
    assert len(modules) == len(set(modules)), "one `from ... import` per module"


@by_part
def test_introduction_names_where_each_output_comes_from(part: Part) -> None:
    intro = notebook(part).cells[0].source
    loaded = set()
    for block in blocks(part):
        if block["kind"] == "example":
            name = f"{part.name}/{block['file']}"
            assert f"`snippets/{name}.py`" in intro
            origin = MANIFEST[name].origin
            loaded.add(origin if origin.executed else "published")
    phrases = {
        "published": f"the article *{PROJECT.options.published_article}*",  # printed there, or stated in its prose
        Origin.WEIGHTS: "weights sha256",
        Origin.TOKENIZER: "GPT-2's tokenizer",
        Origin.NO_MODEL: "no model",
    }
    for kind, phrase in phrases.items():
        assert (phrase in intro) == (kind in loaded), (
            f"{part.notebook}: {phrase!r} {'missing' if kind in loaded else 'claimed'}"
        )


@by_part
def test_introduction_titles_the_notebook_as_the_part_and_only_the_published_run_an_article(part: Part) -> None:
    intro = notebook(part).cells[0].source
    assert intro.startswith(f"# {part.title}\n\nThe companion notebook of this site's page *{part.title}*: ")
    named = [
        f"{who} the article *{PROJECT.options.published_article}*" for who in ("Published in", "Stated in the prose of")
    ]
    rest = intro.replace(named[0], "").replace(named[1], "").replace(", as the article states", "")
    assert "article" not in rest, "the only article is the published one, named on the line that credits it"
    assert "recorded run" not in intro


@pytest.mark.slow
@by_part
def test_notebook_runs_top_to_bottom_against_the_stand_in(
    part: Part,
    stand_in_cache: Path,
    stand_in_outputs: list[dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Without its %pip cell, the notebook runs in a fresh kernel and prints what the snippets print."""
    for name, value in offline_env(stand_in_cache, **QUIET_LIBRARIES).items():
        monkeypatch.setenv(name, value)
    document = nbformat.from_dict(notebook(part))
    install = document.cells.pop(1)
    assert install.source.startswith("%pip install ")
    NotebookClient(
        document, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    first, second = stand_in_outputs
    for cell, block in zip(document.cells[2:], blocks(part), strict=True):
        name = f"{part.name}/{block['file']}"
        if block["kind"] == "code":
            assert stdout(cell) == "", block.group(0)
            continue
        # The same checkpoint as the snippet's own run: every line equal.
        assert stdout(cell) == first[name], block.group(0)
        # Lines that do not depend on weight values equal the recorded output.
        recorded = (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8")
        check(name, recorded, [stdout(cell), *([second[name]] if name in second else [])], label=f"outputs/{name}.txt")


@pytest.mark.slow
def test_a_hand_edited_stale_or_orphan_notebook_fails_the_build_until_recorded(
    built_site: Path,
    run,
    project: Path,
) -> None:
    # `built_site` is the unmodified project, built: the copy builds before its notebooks are touched.
    copies = {part: project / "docs" / part.notebook for part in PARTS}
    for copy in copies.values():
        document = nbformat.read(copy, as_version=4)
        document.cells[-1].source += "\nprint('edited')"
        nbformat.write(document, copy)
    orphan = project / "docs" / "notebooks" / "a-part-no-more.ipynb"
    orphan.write_bytes(copies[PARTS[0]].read_bytes())
    result = build(project)
    assert result.returncode != 0
    for part in PARTS:
        assert f"docs/{part.notebook} differs from what `make record` generates from docs/{part.page}" in result.stderr
    assert "docs/notebooks/a-part-no-more.ipynb belongs to no part (no snippets/a-part-no-more/)" in result.stderr
    assert "run `make record`" in result.stderr
    for copy in copies.values():
        copy.unlink()
    result = build(project)
    assert result.returncode != 0
    for part in PARTS:
        assert f"docs/{part.notebook} is missing. Run `make record`" in result.stderr
    recorded = run("python", "-m", "recorder", "record", cwd=project)
    assert recorded.returncode == 0, recorded.stderr
    for part, copy in copies.items():
        assert f"wrote docs/{part.notebook}" in recorded.stdout
        assert copy.read_bytes() == (ROOT / "docs" / part.notebook).read_bytes()
    assert "removed docs/notebooks/a-part-no-more.ipynb, whose part is gone" in recorded.stdout
    assert not orphan.exists()
    assert build(project).returncode == 0


def test_the_remote_loaders_are_cut_out_and_every_other_byte_is_kept() -> None:
    page = (
        '<p title="a &amp; b">x &lt; y</p>\n<!-- Load mathjax -->\n'
        '<script src="https://cdn.test/mathjax.js"> </script>\n'
        '<!-- MathJax configuration -->\n<script type="text/x-mathjax-config">init()</script>\n'
        '<!-- End of mathjax configuration -->\n<script type="module">\n'
        '  if ("</p>") document.querySelectorAll(".jp-Mermaid > pre");\n</script>\n<style>.jp-Mermaid {}</style>\n'
    )
    assert without_remote_loaders(page) == '<p title="a &amp; b">x &lt; y</p>\n\n\n<style>.jp-Mermaid {}</style>\n'
    with pytest.raises(PageError, match="found 1 of the 2 script loaders"):
        without_remote_loaders(page.replace(".jp-Mermaid >", "pre"))


def test_the_copy_button_scripts_move_to_the_end_of_the_body_and_every_other_byte_is_kept() -> None:
    copy = "<script>\ncustomElements.define('clipboard-copy', C)</script>"
    notice = "<script>on('clipboard-copy', show)</script>"
    page = (
        f'<body><article><a href="x.ipynb">download</a>\n{copy}\n{notice}\n<div class="jp-Cell">'
        f'<clipboard-copy for="cell-1"></clipboard-copy></div></article>\n'
        '<script src="bundle.js"></script>\n</body>\n</html>\n'
    )
    assert with_copy_scripts_last(page) == (
        '<body><article><a href="x.ipynb">download</a>\n\n\n<div class="jp-Cell">'
        '<clipboard-copy for="cell-1"></clipboard-copy></div></article>\n'
        f'<script src="bundle.js"></script>\n{copy}{notice}</body>\n</html>\n'
    )
    with pytest.raises(PageError, match="found 1 of the 2 inline scripts of the copy buttons"):
        with_copy_scripts_last(page.replace(notice, ""))


def test_a_page_whose_code_would_not_run_as_its_notebook_is_refused_by_check_record_and_build(
    run,
    project: Path,
) -> None:
    """Without the block that defines a name (the tokenizer, say), a later block's cell would stop there: each
    snippet runs on its own, but a reader's notebook runs the blocks the page shows, in its order."""
    for part in PARTS:
        page = project / "docs" / part.page
        original = page.read_text(encoding="utf-8")
        first = next(directive for directive in parse(get_data(original)[0]) if isinstance(directive, Code))
        page.write_text(original.replace(f"{first.text}\n", "", 1), encoding="utf-8")
        checked = run("python", "-m", "recorder", "check", cwd=project)
        if checked.returncode == 0:
            page.write_text(original, encoding="utf-8")
            continue
        refusal = f"docs/{part.page}: its notebook would stop at `snippets/"
        assert refusal in checked.stderr and "name `" in checked.stderr, checked.stderr
        recorded = run("python", "-m", "recorder", "record", cwd=project)
        assert recorded.returncode != 0 and refusal in recorded.stderr, recorded.stderr
        built = build(project)
        assert built.returncode != 0 and refusal in built.stderr, built.stderr
        return
    pytest.fail("no part's first code block is needed by a later one: nothing was refused")

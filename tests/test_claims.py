"""Sentences of the pages about what ran, each checked against the output, record or code that makes it true."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from transformers import GPT2Config, GPT2Tokenizer
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

from recorder.record import store
from recorder.record.hub import packaged_tokenizer_files
from recorder.record.project import Project
from recorder.record.snippets import discover
from recorder.render.pages import recorded
from support import ROOT, with_values

PROJECT = Project.load(ROOT)
PART = next(part for part in PROJECT.parts() if part.name == "token-embeddings")
MANIFEST = store.read_manifest(ROOT)
SNIPPETS = discover(ROOT)
DOCS = ROOT / "docs"
PART_2 = (DOCS / PART.page).read_text(encoding="utf-8")
SERIES = (DOCS / "index.md").read_text(encoding="utf-8")
GRADIENT_ROWS = re.compile(r"^seed (\d+), (tied|untied): ([\d,]+) of ([\d,]+) rows(?:: (\[[\d, ]+\]))?$")


def value(name: str) -> str:
    return recorded(PROJECT).value(f"{PART.name}/{name}")


def ids(text: str) -> list[int]:
    return [int(number) for number in re.findall(r"\d+", text)]


def tokenizer() -> GPT2Tokenizer:
    files = packaged_tokenizer_files()
    return GPT2Tokenizer(vocab=str(files["vocab.json"]), merges=str(files["merges.txt"]))


def test_the_same_row_sentence_quotes_the_id_of_is_with_its_space() -> None:
    """Token id 318 is " is" with its leading space; "is" at the start of a text is another token."""
    quoted = int(value("is_token_id"))
    assert tokenizer().decode([quoted]) == " is"
    assert tokenizer()("is")["input_ids"] != [quoted], "the page says the spaceless word is another token"
    assert ('Token id {{ value token-embeddings/is_token_id }}, " is" with its leading space, selects the same row whether it comes '
            "first in a prompt or last.") in PART_2


def gradient_rows() -> dict[tuple[str, str], tuple[int, int, list[int] | None]]:
    """(seed, tied or untied) -> rows with a non-zero gradient, rows in all, and which, as recorded."""
    text = (ROOT / "outputs" / "token-embeddings" / "gradient_rows.txt").read_text(encoding="utf-8")
    found = {}
    for line in text.splitlines():
        match = GRADIENT_ROWS.match(line)
        assert match, f"gradient_rows.txt: {line!r} is not a line the page's values can read"
        seed, wiring, count, total, rows = match.groups()
        found[seed, wiring] = (int(count.replace(",", "")), int(total.replace(",", "")), rows and ids(rows))
    return found


def test_which_rows_get_a_gradient_is_the_same_for_both_seeds() -> None:
    """"Both seeds give the same rows": the output shows it, so the rows do not depend on weight values."""
    found = gradient_rows()
    seeds = sorted({seed for seed, _ in found})
    assert len(seeds) == 2 and {wiring for _, wiring in found} == {"tied", "untied"}
    for wiring in ("tied", "untied"):
        assert found[seeds[0], wiring] == found[seeds[1], wiring], wiring
    assert "Both seeds give the same rows" in PART_2


def test_tied_every_row_untied_the_prompt_s_rows_but_the_last_token_s() -> None:
    found = gradient_rows()
    prompt = ids(value("prompt_token_ids"))
    vocabulary = int(value("vocab_size").replace(",", ""))
    tied, total, _ = found["1", "tied"]
    assert tied == total == vocabulary, "tied, every row of the table"
    untied, total, rows = found["1", "untied"]
    assert total == vocabulary and rows is not None and untied == len(rows)
    assert rows == sorted(set(prompt[:-1])), "the rows of the tokens that have a next token to predict"
    assert int(value("we_token_id")) == prompt[-1] not in rows
    stated = with_values("Tied, all {{ value token-embeddings/tied_rows }} rows do")
    assert stated in with_values(PART_2) and "{{ value token-embeddings/we_token_id }}, is not among them" in PART_2


def test_the_tying_box_names_the_code_the_gradient_came_from() -> None:
    """Transformers' GPT2LMHeadModel, which AutoModelForCausalLM loads for GPT-2, shares wte with lm_head."""
    assert MODEL_FOR_CAUSAL_LM_MAPPING_NAMES["gpt2"] == "GPT2LMHeadModel"
    assert GPT2Config().tie_word_embeddings
    source = (ROOT / "snippets" / "token-embeddings" / "gradient_rows.py").read_text(encoding="utf-8")
    assert "tied = model.lm_head.weight is model.transformer.wte.weight" in source, "the label is checked, not set"
    assert {"GPT2LMHeadModel", "GPT2Config"} <= {alias.name for node in ast.walk(ast.parse(source))
                                                 if isinstance(node, ast.ImportFrom) for alias in node.names}
    box = PART_2[PART_2.index('??? info "Weight tying'):PART_2.index("## What this part showed")]
    assert "Transformers' `GPT2LMHeadModel`" in box and "`AutoModelForCausalLM` loads for GPT-2" in box
    assert "`model.lm_head.weight is model.transformer.wte.weight`" in box


def test_the_training_conclusion_claims_no_more_than_the_two_checks() -> None:
    """A parameter that receives a gradient: necessary for training, not proof of how its values were made."""
    section = PART_2[PART_2.index("## Learned with the model"):PART_2.index("### Which rows receive a gradient")]
    assert "cannot be a fixed dictionary" not in section and "learns its values" not in section
    assert "a table computed elsewhere and then loaded into an `nn.Parameter` would pass both checks" in section
    assert "`.grad` always has the shape of the parameter it belongs to" in section


def test_the_gradient_rows_example_is_executed_here_and_loads_no_weights() -> None:
    """A model built from GPT-2's configuration downloads nothing, so the build runs it: an executed output."""
    assert SNIPPETS["token-embeddings/gradient_rows"].loads == "tokenizer"
    assert MANIFEST["token-embeddings/gradient_rows"]["origin"] == "executed"
    assert not (ROOT / "published" / "token-embeddings" / "gradient_rows.txt").exists()


def test_the_series_page_states_the_publishing_rule_the_code_applies() -> None:
    """Published: exactly the snippets that load GPT-2's weights, which the code reads as `from_pretrained` called
    on a model class; the page says that, and no longer that every output is recorded from running its file."""
    published = {name for name, entry in MANIFEST.items() if entry["origin"] == "published"}
    assert published == {name for name, snippet in SNIPPETS.items() if snippet.loads == "weights"}
    assert "a snippet that loads them (one that calls `from_pretrained` on a model class)" in SERIES
    assert "never typed by hand" not in SERIES and "that depend on GPT-2's real weights" not in SERIES
    assert f"the article *{PROJECT.options.published_article}*" in SERIES
    stated = PROJECT.options.published_with
    assert len(stated) == 1, "the Series page says the article states a revision and a release for one output only"
    assert "behind one of these outputs only" in SERIES


STAND_IN_PAGES = sorted([*DOCS.glob("*.md"), ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "published" / "README.md"])


@pytest.mark.parametrize("path", STAND_IN_PAGES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_page_that_mentions_the_stand_in_says_what_it_is(path: Path) -> None:
    """GPT-2's configuration with one layer (`create_stand_ins`), its real tokenizer, random weights: never
    "GPT-2's architecture" or "shape", which would be twelve layers."""
    text = re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))
    assert "GPT-2's architecture" not in text and "GPT-2's shape" not in text and "its architecture" not in text
    if "stand-in" in text:
        assert re.search(r"GPT-2's configuration (with|cut to) one layer", text) or "configuration with one layer" in text
        assert "random weights" in text

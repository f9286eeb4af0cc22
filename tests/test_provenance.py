"""The whole record behind each output: under its provenance line, on the Provenance page (grouped by
part), and as the published manifest."""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from recorder.project import manifest
from recorder.project.config import Project
from recorder.project.gpt2 import MODEL_ID, REVISION, WEIGHTS_SHA256
from recorder.project.manifest import Model, Origin, Record
from recorder.project.outputs import Outputs, read_outputs
from recorder.project.provenance import (
    LABELS,
    NOT_RERUN,
    SHORT_HASH,
    STAND_INS,
    caption,
    counted,
    line,
    origins,
    source_link,
    stand_ins_showed,
)
from recorder.project.repository import Repository
from recorder.record.article import SEEDS, create_stand_ins
from recorder.render.html import render_output
from support import ROOT, converted

MANIFEST = manifest.read(ROOT)
PROJECT = Project.load(ROOT)
PARTS = PROJECT.parts()
# An output the build executed on GPT-2, as `make record` writes it where the model loads.
EXECUTED_ON_GPT2 = Record(
    source="snippets/part-a/example.py",
    output="outputs/part-a/example.txt",
    output_sha256="c" * 64,
    sources={"snippets/part-a/example.py": "a" * 64, "snippets/part-a/pinned_model.py": "b" * 64},
    origin=Origin.WEIGHTS,
    model=Model(MODEL_ID, REVISION, {"model.safetensors": WEIGHTS_SHA256, "tokenizer.json": "d" * 64}),
    versions={"python": "3.11.7", "torch": "2.13.0+cpu", "transformers": "5.17.0"},
    recorded_at="2027-01-02T03:04:05+00:00",
    seconds=4.726,
)
# An output that needed only GPT-2's tokenizer files.
EXECUTED_ON_THE_TOKENIZER = replace(
    EXECUTED_ON_GPT2,
    origin=Origin.TOKENIZER,
    model=Model(MODEL_ID, REVISION, {"vocab.json": "e" * 64, "merges.txt": "f" * 64}),
)
LONG_HASH = re.compile(r"[0-9a-f]{40,}")


def record(entry: Record) -> BeautifulSoup:
    return BeautifulSoup(caption(entry, "part/snippet", None), "html.parser").details


def fields(details: BeautifulSoup | Tag) -> dict[str, str]:
    """The record's fields as a reader sees them: label -> text."""
    return {term.get_text(): term.find_next_sibling("dd").get_text(" ", strip=True) for term in details.select("dl dt")}


def every_value(entry: Record) -> list[str | None]:
    """Each value of a manifest record that its record must show, nested ones included."""
    shown = [
        *entry.sources,
        *entry.sources.values(),
        entry.output,
        entry.output_sha256,
        *entry.versions.values(),
        entry.recorded_at,
    ]
    if entry.model is not None:
        shown += [entry.model.id, entry.model.revision, *entry.model.files.values()]
    if (article := entry.article) is not None:
        shown += [
            *article.stated.values(),
            article.title,
            str(article.exact_lines),
            str(article.weight_dependent_lines),
        ]
    if entry.origin.executed:
        shown.append(str(entry.seconds))
    return [value for value in shown if value]


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_the_provenance_line_opens_onto_every_value_of_its_record(name: str) -> None:
    entry = MANIFEST[name]
    block = BeautifulSoup(render_output(read_outputs(PROJECT), name), "html.parser")
    shown = block.select_one(".provenance")
    assert shown is not None
    summary = shown.select_one("details.provenance-record > summary")
    assert summary is not None and summary.decode_contents() == line(entry)
    assert summary.find(["a", "button", "input"]) is None, "no control inside the control that opens the record"
    text = shown.select_one("details > dl").extract().get_text(" ")
    closed = BeautifulSoup(line(entry), "html.parser").get_text() + f" · Source: snippets/{name}.py"
    assert shown.get_text() == closed, "closed, it reads as the one-line summary"
    missing = [value for value in every_value(entry) if value not in text]
    assert not missing, f"{name}: the record does not show {missing}"


PUBLISHED = sorted(name for name, entry in MANIFEST.items() if not entry.origin.executed)


@pytest.mark.parametrize("name", PUBLISHED)
def test_a_published_output_names_the_article_and_only_what_it_states_for_that_output(name: str) -> None:
    entry = MANIFEST[name]
    details = record(entry)
    shown, line = fields(details), details.summary.get_text()
    article = PROJECT.options.published_article
    stated = PROJECT.options.published_with.get(name, {})
    assert entry.article is not None and entry.article.title == article and entry.article.stated == stated
    assert set(shown) == set(LABELS)
    who = "Stated in the prose of the article" if entry.article.prose else "Published in the article"
    assert shown["Origin"] == f"{who} {article} , {NOT_RERUN}"
    assert line.startswith(f"{who} {article} · ")
    assert (", as the article states" in line) == bool(stated)
    if "revision" in stated:
        assert f"GPT-2 {MODEL_ID}@{stated['revision'][:7]}" in line
        assert f"the article states revision {stated['revision']}" in shown["Model"]
    else:
        assert f"GPT-2 {MODEL_ID} ·" in line and "@" not in line, "no revision the article does not state"
        assert "the article states no revision for this output" in shown["Model"]
    for package, version in stated.items():
        if package != "revision":
            assert f"{package} {version}" in line
    if not stated:
        assert "transformers" not in line and "no revision or version" in shown["Published run"]
    assert "not loaded by the record step" in shown["Model"]
    assert shown["Library versions"].startswith("Of the check against stand-ins:")


@pytest.mark.parametrize("name", PUBLISHED)
def test_a_published_output_gives_the_day_it_was_checked_here_never_a_recorded_one(name: str) -> None:
    entry = MANIFEST[name]
    details = record(entry)
    shown, line = fields(details), details.summary.get_text()
    assert shown["When"] == f"Checked here on {entry.recorded_at}"
    assert f"checked here on {entry.recorded_at[:10]}:" in line
    text = details.get_text(" ")
    assert not re.search(r"[Rr]ecorded (on )?[\d<]", text) and "recorded run" not in text
    assert "the code that ran" not in text


@pytest.mark.parametrize("name", PUBLISHED)
def test_a_published_output_says_what_the_stand_ins_showed_as_its_counts_do(name: str) -> None:
    """Every line reproduced, or form only: from the counts of the check, never typed per output."""
    published = MANIFEST[name].article
    assert published is not None
    details = record(MANIFEST[name])
    line, run = details.summary.get_text(), fields(details)["Published run"]
    exact, by_form = published.exact_lines, published.weight_dependent_lines
    assert ("every line reproduced by the stand-ins" in line) == (by_form == 0)
    assert ("form only" in line) == (by_form > 0)
    assert f"({counted(exact, 'line')} equal, {counted(by_form, 'line')} compared by form)" in run
    assert "(s)" not in line + run
    assert "two stand-in models (GPT-2's configuration with one layer, its real tokenizer, random weights)" in run


@pytest.mark.parametrize(
    ("exact", "by_form", "said"),
    [
        (2, 0, "every line reproduced by the stand-ins"),
        (0, 2, "form only: every line depends on weight values, so the stand-ins reproduced none of them"),
        (3, 1, "3 lines reproduced by the stand-ins, and the form only of 1 weight-dependent line"),
        (1, 2, "1 line reproduced by the stand-ins, and the form only of 2 weight-dependent lines"),
    ],
)
def test_what_the_stand_ins_showed_follows_the_counts(exact: int, by_form: int, said: str) -> None:
    entry = MANIFEST[PUBLISHED[0]]
    assert entry.article is not None
    article = replace(entry.article, exact_lines=exact, weight_dependent_lines=by_form)
    assert stand_ins_showed(article) == said
    assert line(replace(entry, article=article)).endswith(said)


def test_a_published_output_s_record_says_whether_the_article_printed_it_or_stated_it_in_a_sentence() -> None:
    for name in PUBLISHED:
        published = MANIFEST[name].article
        assert published is not None
        run = fields(record(MANIFEST[name]))["Published run"]
        if published.prose:
            assert run.startswith(f"Stated in the prose of the article {published.title} (“{published.prose}”)")
            assert "written out as the snippet prints it in" in run
        else:
            assert run.startswith(f"Printed in the article {published.title} ,"), run
    assert any(MANIFEST[name].article.prose for name in PUBLISHED), "no output stated in prose to check"


def _published(prose: str | None) -> Record:
    entry = MANIFEST[PUBLISHED[0]]
    assert entry.article is not None
    origin = Origin.ARTICLE_PROSE if prose else Origin.ARTICLE_PRINTED
    return replace(entry, origin=origin, article=replace(entry.article, prose=prose))


@pytest.mark.parametrize(
    ("prose", "said"),
    [
        ([None, None], "2 were published in the article Understanding GPT-2 Token Embeddings: the record step"),
        (
            [None, "True."],
            "(1 of them stated in the article's prose rather than printed, and written out as its snippet prints it)",
        ),
        (
            ["A.", "B."],
            "(2 of them stated in the article's prose rather than printed, and written out as their snippets print",
        ),
        (
            ["A."],
            "1 was published in the article Understanding GPT-2 Token Embeddings (stated in the article's prose rather",
        ),
    ],
)
def test_the_origins_paragraph_counts_the_outputs_the_article_states_in_prose(
    prose: list[str | None], said: str
) -> None:
    records = {f"part-a/example_{number}": _published(text) for number, text in enumerate(prose)}
    paragraph = BeautifulSoup(origins(records, {"part-a": "Part A"}, "part-a"), "html.parser").get_text()
    assert said in paragraph, paragraph
    assert paragraph.startswith(f"Of the {len(prose)} output{'s' if len(prose) > 1 else ''} recorded for Part A, ")


@pytest.mark.parametrize(("number", "said"), [(0, "0 lines"), (1, "1 line"), (2, "2 lines")])
def test_a_count_names_its_noun_in_the_plural_unless_it_is_one(number: int, said: str) -> None:
    assert counted(number, "line") == said


def test_the_stand_ins_described_have_the_one_layer_the_record_step_gives_them() -> None:
    assert inspect.signature(create_stand_ins).parameters["n_layer"].default == 1
    assert len(SEEDS) == 2 and STAND_INS.startswith("two stand-in models (GPT-2's configuration with one layer,")


def test_an_output_executed_on_gpt2_names_each_file_it_was_loaded_from() -> None:
    shown = fields(record(EXECUTED_ON_GPT2))
    assert "Published run" not in shown, "a field that does not apply is left out"
    assert f"{MODEL_ID} at revision {REVISION}" in shown["Model"]
    for file, digest in EXECUTED_ON_GPT2.model.files.items():
        assert f"{file} sha256 {digest}" in shown["Model"]
    assert "tokenizer only" not in shown["Model"]
    assert shown["When"] == "Recorded on 2027-01-02T03:04:05+00:00 , in 4.726 s"


def test_a_tokenizer_only_output_says_it_loaded_the_tokenizer_files_and_no_weights() -> None:
    shown = fields(record(EXECUTED_ON_THE_TOKENIZER))
    assert "its tokenizer only (no weights)" in shown["Model"]
    for file, digest in EXECUTED_ON_THE_TOKENIZER.model.files.items():
        assert f"{file} sha256 {digest}" in shown["Model"]
    summary = record(EXECUTED_ON_THE_TOKENIZER).summary.get_text()
    assert "vocab.json and merges.txt sha256 verified" in summary and "weights" not in summary


def test_every_value_of_the_record_is_escaped() -> None:
    script = "<script>alert(1)</script>"
    hostile = replace(
        EXECUTED_ON_GPT2,
        sources={f"snippets/{script}.py": script},
        versions={script: script},
        model=replace(EXECUTED_ON_GPT2.model, files={**EXECUTED_ON_GPT2.model.files, script: script}),
        recorded_at=f'"><img src=x onerror=alert(1)>{script}',
    )
    details = record(hostile)
    assert details.find_all(["script", "img"]) == []
    assert details.get_text().count(script) >= 5
    scoped = Outputs(ROOT, {f"{script}/{script}": hostile}, parts={script: script})
    table = BeautifulSoup(converted("{{ provenance }}\n", scoped), "html.parser")
    assert table.find_all(["script", "img"]) == [] and table.get_text().count(script) >= 6


def test_a_source_link_goes_to_the_site_s_copy_or_the_built_commit_under_any_label() -> None:
    """The one link to a snippet's source, which every table and line uses."""
    assert source_link("a-part/<b>", None) == (
        '<a href="generated/snippets/a-part/&lt;b&gt;.py">snippets/a-part/&lt;b&gt;.py</a>'
    )
    repository = Repository("https://github.com", "example/gpt2-explained", "ab" * 20)
    assert source_link("a-part/step", repository, label="a-part/step.py") == (
        f'<a href="https://github.com/example/gpt2-explained/blob/{"ab" * 20}/snippets/a-part/step.py">'
        "a-part/step.py</a>"
    )


def provenance_table(titles: dict[str, str]) -> Tag:
    page = converted("Text.\n\n{{ provenance }}\n", replace(read_outputs(PROJECT), parts=titles))
    tables = BeautifulSoup(page, "html.parser").select("table")
    assert "{{" not in page and len(tables) == 1
    return tables[0]


def test_the_provenance_directive_lists_every_output_in_one_table_grouped_by_part() -> None:
    # Titled and ordered as the mapping says (the navigation's order in a build), not alphabetically.
    titles = {part.name: f"Part «{part.name}» <i>" for part in reversed(PARTS)}
    table = provenance_table(titles)
    assert table.get("class"), "Material's script moves a table without a class"
    assert [table.parent["class"], table.parent.parent["class"]] == [["md-typeset__table"], ["md-typeset__scrollwrap"]]
    assert [cell.get_text() for cell in table.select("thead th")] == ["Snippet", *LABELS]
    groups = table.find_all("tbody", recursive=False)
    with_outputs = [part for part in titles if any(name.startswith(f"{part}/") for name in MANIFEST)]
    assert len(groups) == len(with_outputs) >= 1
    for group, part in zip(groups, with_outputs, strict=True):
        header, *rows = group.find_all("tr", recursive=False)
        heading = header.find_all(["th", "td"])
        assert len(heading) == 1 and heading[0].name == "th" and heading[0]["scope"] == "rowgroup"
        assert heading[0].get_text() == titles[part] and heading[0]["colspan"] == str(1 + len(LABELS))
        names = sorted(name for name in MANIFEST if name.startswith(f"{part}/"))
        assert [row.th.get_text() for row in rows] == [f"snippets/{name}.py" for name in names]
        for row, name in zip(rows, names, strict=True):
            assert row.th["scope"] == "row"
            # From the top of docs/, where every page is: the engine makes it relative to the page.
            assert row.th.a["href"] == f"generated/snippets/{name}.py" and row.th.a.find("code") is None, (
                "plain link text"
            )
            assert len(row.select(":scope > td")) == len(LABELS)
            missing = [value for value in every_value(MANIFEST[name]) if value not in row.get_text(" ")]
            assert not missing, f"{name}: the row does not show {missing}"


def test_the_provenance_table_shows_each_long_hash_short_with_the_whole_in_reach() -> None:
    """Each long hash is one focusable element holding the whole hash, in its text and its tooltip: the stylesheet
    shows its first SHORT_HASH characters until a reader focuses it (tests/test_browser.py sees it in Chromium)."""
    table = provenance_table({part.name: part.name for part in PARTS})
    shortened = table.select("code.provenance-hash--short")
    assert shortened, "no hash was shortened"
    for code in shortened:
        whole = code.get_text()
        assert len(whole) > SHORT_HASH and code["title"] == whole and code["tabindex"] == "0"
    assert not table.select("details"), "a hash is one element, with no disclosure of its own"
    every_hash = {
        digest
        for entry in MANIFEST.values()
        for digest in [
            *entry.sources.values(),
            entry.output_sha256,
            *(entry.model.files.values() if entry.model else []),
        ]
    }
    assert {code.get_text() for code in shortened} >= every_hash


@pytest.mark.slow
def test_the_built_site_publishes_the_manifest_and_the_provenance_page_groups_it_by_part(built_site: Path) -> None:
    published = built_site / "generated" / "outputs" / "manifest.json"
    assert published.read_bytes() == (ROOT / "outputs" / "manifest.json").read_bytes()
    assert set(json.loads(published.read_text(encoding="utf-8"))["snippets"]) == set(MANIFEST)
    page = BeautifulSoup((built_site / "provenance" / "index.html").read_text(encoding="utf-8"), "html.parser")
    links = [link["href"] for link in page.select("article a[href$='manifest.json']")]
    assert links and all((built_site / "provenance" / href).resolve() == published for href in links)
    # Each part under its title in the navigation, in the navigation's order.
    navigation = [
        (title, page_file)
        for entry in PROJECT.nav
        if isinstance(entry, dict)
        for title, page_file in entry.items()
        if isinstance(page_file, str)
    ]
    parts = {part.page: part.name for part in PARTS}
    expected = [(title, parts[page_file]) for title, page_file in navigation if page_file in parts]
    expected = [(title, part) for title, part in expected if any(name.startswith(f"{part}/") for name in MANIFEST)]
    groups = page.select("article table tbody")
    assert [group.select_one("th[scope=rowgroup]").get_text() for group in groups] == [title for title, _ in expected]
    rows = [row.get_text() for group in groups for row in group.select("th[scope=row]")]
    assert rows == [
        f"snippets/{name}.py"
        for _, part in expected
        for name in sorted(name for name in MANIFEST if name.startswith(f"{part}/"))
    ]
    assert len(rows) == len(MANIFEST), "every output has a row, in a part the navigation names"


@pytest.mark.slow
def test_each_built_output_and_figure_opens_onto_its_record(built_site: Path) -> None:
    kinds = set()
    for part in PARTS:
        page = BeautifulSoup((built_site / part.name / "index.html").read_text(encoding="utf-8"), "html.parser")
        blocks = page.select("[data-snippet]")
        kinds |= {block.name for block in blocks}
        for block in blocks:
            details = block.select("details.provenance-record")
            assert len(details) == 1 and details[0].find_parent(attrs={"data-snippet": True}) is block
            assert details[0].get("open") is None, "closed until a reader opens it"
            assert fields(details[0])["Recorded output"].endswith(MANIFEST[block["data-snippet"]].output_sha256)
    assert kinds == {"div", "figure"}, "outputs and figures both checked"

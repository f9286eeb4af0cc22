"""The figures of every part: drawn from the examples' own data, and inlined only as plain, labelled SVG."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from mkdocs.utils.meta import get_data

from recorder.project.config import Part, Project
from recorder.project.errors import PageError
from recorder.project.manifest import Origin
from recorder.project.snippets import discover
from recorder.render.html import SVG_NAMESPACE, accessible_svg, checked_svg
from support import ROOT, build, edit, snapshot, with_values

PARTS = Project.load(ROOT).parts()
SNIPPETS = discover(ROOT)
# Every figure directive of every part's page: (its part, the snippet's name, the page's ALT).
FIGURES = [
    (part, f"{part.name}/{stem}", alt)
    for part in PARTS
    for stem, alt in re.findall(
        r'^[ \t]*\{\{ figure [-\w]+/(\w+)\.py "([^"]+)" \}\}$',
        get_data((ROOT / "docs" / part.page).read_text(encoding="utf-8"))[0],
        re.M,
    )
]
SVG = {"svg": SVG_NAMESPACE}


def recorded(name: str) -> str:
    return (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8")


def figure(name: str) -> ElementTree.Element:
    return checked_svg(recorded(name), output=f"outputs/{name}.txt", source=f"snippets/{name}.py")


def groups(root: ElementTree.Element, css_class: str) -> list[ElementTree.Element]:
    return [group for group in root.iterfind(".//svg:g", SVG) if css_class in group.get("class", "").split()]


def texts_of(root: ElementTree.Element) -> list[str]:
    """Every text the figure shows, its title first."""
    return [
        element.text or ""
        for element in root.iter()
        if element.tag in (f"{{{SVG_NAMESPACE}}}title", f"{{{SVG_NAMESPACE}}}text")
    ]


def texts(element: ElementTree.Element, css_class: str | None = None) -> list[str]:
    return [
        text.text or ""
        for text in element.iterfind(".//svg:text", SVG)
        if css_class is None or text.get("class") == css_class
    ]


def test_every_part_s_figures_are_found() -> None:
    assert FIGURES, "no figure directive on any part's page: the checks below check nothing"
    assert all(name in SNIPPETS for _, name, _ in FIGURES)


def as_numbers(text: str) -> str:
    """`text` with whole numbers written without thousands separators, as a figure draws them (50,257 as 50257)."""
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)


def numbers(text: str) -> list[str]:
    return re.findall(r"-?\d+(?:\.\d+)?", as_numbers(text))


def unique(items: list[str]) -> list[str]:
    """Each item once, where it first appears."""
    return list(dict.fromkeys(items))


def quoted(alt: str) -> list[str]:
    """What each `{{ value }}` of a figure's ALT reads, in the ALT's order."""
    return [with_values(match) for match in re.findall(r"\{\{ value [-\w/]+ \}\}", alt)]


def drawn(text: str, texts: list[str]) -> bool:
    """Whether a figure whose texts are `texts` draws `text`: as one of them, or as a word or number within one."""
    text = as_numbers(text)
    return any(text == shown or re.search(rf"(?<![\w.]){re.escape(text)}(?![\w.])", shown) for shown in texts)


# The figures whose ALT quotes values read from the part's outputs: the numbers they draw are recorded ones.
QUOTING = [found for found in FIGURES if quoted(found[2])]


@pytest.mark.parametrize(("part", "name", "alt"), FIGURES, ids=[name for _, name, _ in FIGURES])
def test_every_arrow_of_a_figure_ends_in_its_own_arrowhead(part: Part, name: str, alt: str) -> None:
    root = figure(name)
    marker_ids = {marker.get("id") for marker in root.iterfind(".//svg:marker", SVG)}
    arrows = root.findall(".//svg:line", SVG)
    assert arrows and all(arrow.get("marker-end") in {f"url(#{id_})" for id_ in marker_ids} for arrow in arrows)


def test_some_figure_draws_values_its_caption_quotes() -> None:
    assert QUOTING, "no figure's ALT quotes a value: the checks below check nothing"


@pytest.mark.parametrize(("part", "name", "alt"), QUOTING, ids=[name for _, name, _ in QUOTING])
def test_a_figure_draws_every_value_its_caption_quotes(part: Part, name: str, alt: str) -> None:
    """A value the ALT reads from an output (a token id, a size, a shape, a merge) is drawn by the figure: a list of
    ids or pieces item by item, in its order. The figure types or computes what it draws; this binds it to what
    the snippets printed, as the part's values.yml reads it."""
    texts = [as_numbers(text) for text in texts_of(figure(name))]
    for value in quoted(alt):
        if drawn(value, texts):
            continue
        items = [as_numbers(str(item)) for item in ast.literal_eval(value)] if value.startswith("[") else None
        assert items, f"{name} does not draw {value!r}, which its ALT quotes"
        position = 0
        for item in items:
            found = next((index for index in range(position, len(texts)) if texts[index] == item), None)
            assert found is not None, f"{name} does not draw {item!r} of {value!r}, in that order: {texts}"
            position = found + 1


@pytest.mark.parametrize(("part", "name", "alt"), QUOTING, ids=[name for _, name, _ in QUOTING])
def test_a_caption_that_quotes_values_types_no_number_and_states_every_number_the_figure_labels(
    part: Part, name: str, alt: str
) -> None:
    """Its numbers all come from outputs; the figure's shapes and ids, which a reader who cannot see it needs, are
    all in its text alternative."""
    assert not re.search(r"\d", re.sub(r"\{\{ value [-\w/]+ \}\}", "", alt)), f"a number typed into {name}'s ALT"
    stated = set(numbers(with_values(alt)))
    labels = [text for css_class in ("figure-shape", "figure-id") for text in texts(figure(name), css_class)]
    missing = [number for label in labels for number in numbers(label) if number not in stated]
    assert not missing, f"the ALT of {name} does not state {missing}: {with_values(alt)}"


@pytest.mark.parametrize(("part", "name", "alt"), FIGURES, ids=[name for _, name, _ in FIGURES])
def test_the_ids_a_figure_picks_are_those_its_caption_states_in_its_order(part: Part, name: str, alt: str) -> None:
    """Each pick (an id leading to what it selects) is an id the ALT states, in the ALT's order."""
    picked = unique(
        [
            number
            for pick in groups(figure(name), "figure-pick")
            for text in texts(pick, "figure-id")
            for number in numbers(text)
        ]
    )
    stated = [number for number in unique(numbers(with_values(alt))) if number in picked]
    assert picked == stated, f"{name} picks {picked}; its ALT states {stated}"


@pytest.mark.parametrize(("part", "name", "alt"), FIGURES, ids=[name for _, name, _ in FIGURES])
def test_a_pick_draws_the_values_and_word_of_the_table_row_its_id_selects(part: Part, name: str, alt: str) -> None:
    """Where a figure draws a table (a row per id) and picks from it, each pick shows its row's values and word."""
    root = figure(name)
    rows = {
        texts(row, "figure-id")[0]: row
        for row in groups(root, "figure-row")
        if "figure-pick" not in row.get("class", "").split() and texts(row, "figure-id")
    }
    for pick in groups(root, "figure-pick"):
        ids = texts(pick, "figure-id")
        if ids and ids[0] in rows:
            row = rows[ids[0]]
            assert texts(pick, "figure-value") == texts(row, "figure-value"), f"{name}: pick {ids[0]}"
            assert texts(pick, "figure-word") == texts(row, "figure-word"), f"{name}: pick {ids[0]}"
            assert "figure-picked" in row.get("class", "").split(), f"{name}: row {ids[0]} is not marked as picked"


@pytest.mark.parametrize(("part", "name", "alt"), FIGURES, ids=[name for _, name, _ in FIGURES])
def test_the_values_a_figure_s_picks_draw_are_those_an_output_of_its_part_prints(
    part: Part, name: str, alt: str
) -> None:
    """The decimals a pick draws (a selected row's values, say) are, in order, the decimals another snippet of its
    part printed: the figure draws the example's result, not numbers of its own."""
    drawn_values = [
        float(number)
        for pick in groups(figure(name), "figure-pick")
        for text in texts(pick, "figure-value")
        for number in numbers(text)
        if "." in number
    ]
    if not drawn_values:
        return
    printed = {
        other: [float(number) for number in numbers(recorded(other)) if "." in number]
        for other, snippet in SNIPPETS.items()
        if snippet.part == part.name and other != name and (ROOT / "outputs" / f"{other}.txt").exists()
    }
    assert [other for other, values in printed.items() if values == drawn_values], (
        f"no output of {part.name} prints the values {name}'s picks draw, {drawn_values}"
    )


@pytest.mark.parametrize(("part", "name", "alt"), FIGURES, ids=[name for _, name, _ in FIGURES])
def test_a_caption_quotes_only_values_its_page_reads(part: Part, name: str, alt: str) -> None:
    caption = with_values(alt)  # raises on a value its page does not declare
    assert "{{" not in caption and caption.strip()


@pytest.mark.parametrize(("part", "name", "alt"), FIGURES, ids=[name for _, name, _ in FIGURES])
def test_an_inlined_figure_is_one_image_named_by_its_title_and_alt_text(part: Part, name: str, alt: str) -> None:
    figure_id = f"figure-{name.replace('/', '-')}"
    markup = accessible_svg(
        recorded(name),
        "What the figure shows, in words.",
        figure_id=figure_id,
        output=f"outputs/{name}.txt",
        source=f"snippets/{name}.py",
    )
    assert markup.startswith("<svg "), "HTML recognises inline SVG by its unprefixed tag"
    root = ElementTree.fromstring(markup)
    assert root.get("role") == "img"
    by_id = {element.get("id"): element for element in root.iter()}
    title_id, alt_id = root.get("aria-labelledby").split()
    assert by_id[title_id].tag == f"{{{SVG_NAMESPACE}}}title" and by_id[title_id].text.strip()
    assert by_id[alt_id].tag == f"{{{SVG_NAMESPACE}}}desc"
    assert by_id[alt_id].text == "What the figure shows, in words."


def document(body: str, root_attributes: str = "") -> str:
    return f'<svg xmlns="{SVG_NAMESPACE}"{root_attributes}><title>t</title>{body}</svg>'


HOSTILE = {
    "a script": (document("<script>alert(1)</script>"), "script>"),
    "an event handler": (document("", ' onload="alert(1)"'), "`onload`"),
    "a handler on a shape": (document('<rect onclick="alert(1)" width="1" height="1"/>'), "`onclick`"),
    "foreign HTML": (
        document('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'),
        "foreignObject>",
    ),
    "an external xlink:href": (
        document('<path xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="https://example.com/x" d="M0 0"/>'),
        "xlink}href",
    ),
    "a link": (document('<a href="https://example.com"><text>x</text></a>'), "a>"),
    "an image": (document('<image href="https://example.com/x.png"/>'), "image>"),
    "a style element": (document("<style>rect { fill: url(https://example.com/x) }</style>"), "style>"),
    "a style attribute": (document('<rect style="fill: url(https://example.com/x)"/>'), "`style`"),
    "an external url() paint": (document('<rect fill="url(https://example.com/p.svg#p)"/>'), "url() may only be"),
    "an entity declaration": ('<!DOCTYPE svg [<!ENTITY x "y">]>' + document("<text>&x;</text>"), "DOCTYPE"),
    "not SVG at all": ("<html><body>x</body></html>", "must be one <svg"),
    "broken markup": (document("<text>x</txt>"), "not well-formed"),
    "no title": (f'<svg xmlns="{SVG_NAMESPACE}"><rect/></svg>', "no <title>"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_anything_but_plain_drawing_is_refused_naming_the_file_and_the_fix(case: str) -> None:
    text, reason = HOSTILE[case]
    with pytest.raises(PageError) as refused:
        checked_svg(text, output="outputs/evil.txt", source="snippets/evil.py")
    message = str(refused.value)
    for part in (reason, "outputs/evil.txt", "snippets/evil.py", "make record"):
        assert part in message, f"{case}: {part!r} not in {message!r}"


def test_a_local_marker_reference_is_allowed() -> None:
    markup = document('<defs><marker id="m"><path d="M0 0"/></marker></defs><line marker-end="url(#m)"/>')
    assert checked_svg(markup, output="outputs/ok.txt", source="snippets/ok.py").find("svg:defs", SVG) is not None


@pytest.mark.slow
def test_a_recorded_figure_with_an_event_handler_stops_the_build(run, project: Path) -> None:
    # A figure that records without GPT-2's files, where there is one, and without torch where one does: importing
    # torch would take most of the record run's 3 s.
    part, name, _ = min(
        FIGURES,
        key=lambda found: (SNIPPETS[found[1]].runs_on is not Origin.NO_MODEL, "torch" in SNIPPETS[found[1]].imports),
    )
    edit(project / "snippets" / f"{name}.py", "figure.print()", 'figure.svg.set("onload", "alert(1)")\nfigure.print()')
    run("python", "-m", "recorder", "record", cwd=project)
    assert 'onload="alert(1)"' in (project / "outputs" / f"{name}.txt").read_text(encoding="utf-8")
    outputs = snapshot(project / "outputs")
    result = build(project)
    assert result.returncode != 0
    for text in (f"docs/{part.page}", f"outputs/{name}.txt", "`onload`", f"snippets/{name}.py", "make record"):
        assert text in result.stderr, f"{text!r} not in:\n{result.stderr}"
    assert snapshot(project / "outputs") == outputs
    assert not (project / "site" / part.name / "index.html").exists()

"""The figures of every part: drawn from the examples' own data, and inlined only as plain, labelled SVG."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from mkdocs.utils.meta import get_data

from recorder.record.project import Part, Project
from recorder.record.runner import part_imports
from recorder.record.snippets import discover
from recorder.render.pages import SVG_NAMESPACE, UnsafeFigure, accessible_svg, checked_svg, in_prose_style
from support import ROOT, build, edit, snapshot, with_values

PARTS = Project.load(ROOT).parts()
SNIPPETS = discover(ROOT)
# Every figure directive of every part's page: (its part, the snippet's name, the page's ALT).
FIGURES = [(part, f"{part.name}/{stem}", alt) for part in PARTS
           for stem, alt in re.findall(r'^[ \t]*\{\{ figure [-\w]+/(\w+)\.py "([^"]+)" \}\}$',
                                       get_data((ROOT / "docs" / part.page).read_text(encoding="utf-8"))[0], re.M)]
SVG = {"svg": SVG_NAMESPACE}


def named(stem: str) -> str:
    """The one snippet of any part with this file name, e.g. "lookup_figure"."""
    found = [name for name in SNIPPETS if name.endswith(f"/{stem}")]
    assert len(found) == 1, f"{stem}: {found}"
    return found[0]


def beside(name: str, stem: str) -> str:
    """The snippet `stem` of the part of snippet `name`."""
    return f"{SNIPPETS[name].part}/{stem}"


def recorded(name: str) -> str:
    return (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8")


def figure(name: str) -> ElementTree.Element:
    return checked_svg(recorded(name), output=f"outputs/{name}.txt", source=f"snippets/{name}.py")


def groups(root: ElementTree.Element, css_class: str) -> list[ElementTree.Element]:
    return [group for group in root.iterfind(".//svg:g", SVG) if css_class in group.get("class", "").split()]


def texts(element: ElementTree.Element, css_class: str | None = None) -> list[str]:
    return [text.text or "" for text in element.iterfind(".//svg:text", SVG)
            if css_class is None or text.get("class") == css_class]


def recorded_shape(name: str) -> str:
    """The `torch.Size([...])` line a model snippet printed, as `[...]`."""
    line = next(line for line in recorded(name).splitlines() if line.startswith("torch.Size("))
    return line.removeprefix("torch.Size(").removesuffix(")")


def test_every_part_s_figures_are_found() -> None:
    assert FIGURES, "no figure directive on any part's page: the checks below check nothing"
    assert all(name in SNIPPETS for _, name, _ in FIGURES)


def test_lookup_figure_draws_the_toy_table_and_the_rows_row_lookup_printed() -> None:
    lookup = named("lookup_figure")
    with part_imports(ROOT / "snippets" / SNIPPETS[lookup].part):
        table = importlib.import_module("toy_table")
    root = figure(lookup)

    rows = groups(root, "figure-row")
    assert [texts(row) for row in rows] == [
        [str(token_id), word, *(f"{value:.1f}" for value in values)]
        for token_id, (word, values) in enumerate(zip(table.words, table.embedding_matrix.tolist()))
    ]
    picked = [texts(row)[0] for row in rows if "figure-picked" in row.get("class", "").split()]

    printed = [[float(number) for number in re.findall(r"-?\d+\.\d+", line)]
               for line in recorded(beside(lookup, "row_lookup")).splitlines()]
    picks = [texts(pick) for pick in groups(root, "figure-pick")]
    assert [pick[0] for pick in picks] == picked
    assert [[float(value) for value in pick[1:-1]] for pick in picks] == printed
    assert [pick[-1] for pick in picks] == [table.words[int(token_id)] for token_id in picked]
    assert picked == ["0", "1", "3"], "the figure shows the ids the page's prose talks about"


def test_lookup_figure_arrows_lead_from_each_id_to_its_row_and_on() -> None:
    root = figure(named("lookup_figure"))
    marker_ids = {marker.get("id") for marker in root.iterfind(".//svg:marker", SVG)}
    for pick in groups(root, "figure-pick"):
        arrows = pick.findall("svg:line", SVG)
        assert len(arrows) == 2
        assert all(arrow.get("marker-end") in {f"url(#{id_})" for id_ in marker_ids} for arrow in arrows)
        into_table, out_of_table = arrows
        assert into_table.get("y2") == out_of_table.get("y1"), "both arrows meet at the same row"


def test_shape_flow_figure_shows_the_shapes_and_ids_the_model_snippets_printed() -> None:
    shape_flow = named("shape_flow_figure")
    root = figure(shape_flow)
    assert texts(root, "figure-shape") == [
        recorded_shape(beside(shape_flow, stem)) for stem in ("prompt_token_ids", "embedding_table", "lookup_equals_layer")
    ]
    prompt_ids = json.loads(recorded(beside(shape_flow, "prompt_token_ids")).splitlines()[0])
    assert [texts(pick)[0] for pick in groups(root, "figure-pick")] == [str(token_id) for token_id in prompt_ids]


def test_shape_flow_caption_quotes_the_ids_and_shapes_the_model_snippets_printed() -> None:
    shape_flow = named("shape_flow_figure")
    part, _, alt = next(found for found in FIGURES if found[1] == shape_flow)
    assert not re.search(r"\d", re.sub(r"\{\{ value \w+ \}\}", "", alt)), "a number typed into the caption"
    caption = with_values(alt)
    rows, width = re.match(r"([\d,]+) × (\d+) =", recorded(beside(shape_flow, "parameter_count"))).groups()
    quoted = [*json.loads(recorded(beside(shape_flow, "prompt_token_ids")).splitlines()[0]), rows, width,
              recorded_shape(beside(shape_flow, "lookup_equals_layer"))]
    missing = [value for value in (in_prose_style(str(quoted_value)) for quoted_value in quoted) if value not in caption]
    assert not missing, f"the caption does not quote {missing}: {caption}"


@pytest.mark.parametrize(("part", "name", "alt"), FIGURES, ids=[name for _, name, _ in FIGURES])
def test_a_caption_quotes_only_values_its_page_reads(part: Part, name: str, alt: str) -> None:
    caption = with_values(alt)  # raises on a value its page does not declare
    assert "{{" not in caption and caption.strip()


@pytest.mark.parametrize(("part", "name", "alt"), FIGURES, ids=[name for _, name, _ in FIGURES])
def test_an_inlined_figure_is_one_image_named_by_its_title_and_alt_text(part: Part, name: str, alt: str) -> None:
    figure_id = f"figure-{name.replace('/', '-')}"
    markup = accessible_svg(recorded(name), "What the figure shows, in words.", figure_id=figure_id,
                            output=f"outputs/{name}.txt", source=f"snippets/{name}.py")
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
    "foreign HTML": (document('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'),
                     "foreignObject>"),
    "an external xlink:href": (
        document('<path xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="https://example.com/x" d="M0 0"/>'),
        "xlink}href"),
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
    with pytest.raises(UnsafeFigure) as refused:
        checked_svg(text, output="outputs/evil.txt", source="snippets/evil.py")
    message = str(refused.value)
    for part in (reason, "outputs/evil.txt", "snippets/evil.py", "make record"):
        assert part in message, f"{case}: {part!r} not in {message!r}"


def test_a_local_marker_reference_is_allowed() -> None:
    markup = document('<defs><marker id="m"><path d="M0 0"/></marker></defs><line marker-end="url(#m)"/>')
    assert checked_svg(markup, output="outputs/ok.txt", source="snippets/ok.py").find("svg:defs", SVG) is not None


@pytest.mark.slow
def test_a_recorded_figure_with_an_event_handler_stops_the_build(run, project: Path) -> None:
    # A figure that records without GPT-2's files, where there is one.
    part, name, _ = min(FIGURES, key=lambda found: SNIPPETS[found[1]].loads is not None)
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

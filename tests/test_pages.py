"""Page directives: highlighted lines by section marker, figures, values scoped to their page, and the
provenance line; on every part's page."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup
from markdown import Markdown
from mkdocs.utils.meta import get_data

from recorder.project import manifest, provenance
from recorder.project.config import Part, Project
from recorder.project.directives import Example, Figure, Listing, parse
from recorder.project.errors import PageError
from recorder.project.gpt2 import MODEL_ID, REVISION, WEIGHTS_SHA256, short
from recorder.project.manifest import Model, Origin, Record
from recorder.project.outputs import highlighted_lines, in_prose_style, read_outputs
from recorder.project.repository import Repository
from recorder.project.snippets import pins
from recorder.project.values import templates
from recorder.render.conversion import convert
from recorder.render.html import SVG_NAMESPACE, render_output
from recorder.render.page import prepare
from support import ROOT, converted, with_values

DEMO = """\
import os
# --8<-- [start:shown]
first = 1
# --8<-- [start:other]
second = 2
# --8<-- [end:other]
# --8<-- [start:picked]
third = 3
fourth = 4
# --8<-- [end:picked]
fifth = 5
# --8<-- [end:shown]
sixth = 6
"""
PROJECT = Project.load(ROOT)
PARTS = PROJECT.parts()
MANIFEST = manifest.read(ROOT)
SHOWN = read_outputs(PROJECT)
BUILT_IN = {
    "pinned_model": MODEL_ID,
    "pinned_revision": REVISION,
    "pinned_transformers": pins(ROOT)["transformers"].partition("==")[2],
}

by_part = pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)


def page(part: Part) -> tuple[str, dict]:
    """A part's page: its Markdown without the front matter, and the front matter."""
    return get_data((ROOT / "docs" / part.page).read_text(encoding="utf-8"))


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "demo.py").write_text(DEMO, encoding="utf-8")
    return tmp_path


def included(root: Path, target: str) -> list[str]:
    """What pymdownx.snippets, configured as in mkdocs.yml, puts in a code block for `target`."""
    markdown = Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={
            "pymdownx.snippets": {
                "base_path": [str(root / "snippets")],
                "check_paths": True,
                "dedent_subsections": True,
            }
        },
    )
    return markdown.preprocessors["snippet"].run([f'--8<-- "{target}"'])


@pytest.mark.parametrize(("section", "expected"), [("shown", [3, 4]), (None, [4, 5])])
def test_highlighted_lines_are_where_pymdownx_puts_the_subsection(
    demo_root: Path, section: str | None, expected: list[int]
) -> None:
    numbers = highlighted_lines(demo_root, "demo.py", section, "picked")
    assert numbers == expected
    shown = included(demo_root, f"demo.py:{section}" if section else "demo.py")
    assert [shown[number - 1] for number in numbers] == ["third = 3", "fourth = 4"]


def test_a_subsection_outside_the_section_is_an_error_naming_the_fix(demo_root: Path) -> None:
    with pytest.raises(PageError) as error:
        highlighted_lines(demo_root, "demo.py", "other", "picked")
    assert "snippets/demo.py: section `picked` holds no line of section `other`" in str(error.value)
    assert "between [start:other] and [end:other]" in str(error.value)


def test_a_missing_subsection_is_an_error_naming_the_marker(demo_root: Path) -> None:
    with pytest.raises(PageError, match=r"snippets/demo\.py has no `# --8<-- \[start:nowhere\]` marker"):
        highlighted_lines(demo_root, "demo.py", "shown", "nowhere")


# Each with FILE, a snippet of a part, PART/NAME.py, and PART, that part ({part} in the message).
MALFORMED = [
    ("{{ figure FILE }}", 'needs PART/FILE.py "alt text"'),
    ('{{ figure PART/missing_figure.py "A figure." }}', "snippets/{part}/missing_figure.py does not exist"),
    ("{{ example FILE:lookup highlight=Select }}", "optionally followed by highlight=SUBSECTION"),
    ("{{ example example.py }}", "needs PART/FILE.py or PART/FILE.py:SECTION"),
    ("{{ chart lookup.svg }}", "Use code, example, figure, provenance, compatibility, parts, origins or value"),
    ("{{ provenance FILE }}", "takes nothing: write `{{ provenance }}`"),
    ('{{ figure FILE "Rows {{ value PART/nowhere }}." }}', "unknown value `{part}/nowhere`"),
    ('{{ figure FILE "Rows {{ value Rows }}." }}', "`{{ value Rows }}` needs PART/NAME"),
    ('{{ figure FILE "Rows {{ code FILE }}." }}', "`{{ code ... }}` must stand alone"),
]


@by_part
@pytest.mark.parametrize(("directive", "message"), MALFORMED)
def test_a_malformed_directive_names_the_fix(part: Part, directive: str, message: str) -> None:
    file = sorted((ROOT / "snippets" / part.name).glob("*.py"))[0].relative_to(ROOT / "snippets").as_posix()
    written = directive.replace("FILE", file).replace("PART", part.name)
    try:  # a directive that cannot be read stops the page; one that reads nothing is the page's error
        errors = [str(error) for _, error in prepare(parse(f"Text.\n\n{written}\n"), SHOWN).errors]
    except PageError as error:
        errors = [str(error)]
    assert len(errors) == 1 and message.replace("{part}", part.name) in errors[0], errors


def test_code_shows_directives_as_written() -> None:
    shown = ["{{ example part-a/example.py:lookup }}", "{{ chart lookup.svg }}", "{{ value nowhere }}"]
    markdown = (
        f"```markdown\n{shown[0]}\n```\n\n!!! note\n    ~~~\n    {shown[1]}\n    ~~~\n\n"
        f"Write `{shown[2]}` or ``{shown[1]}``.\n"
    )
    assert parse(markdown) == []
    converted_page = converted(markdown, SHOWN, "admonition", "pymdownx.superfences")
    codes = [code.get_text() for code in BeautifulSoup(converted_page, "html.parser").find_all("code")]
    assert codes == [f"{shown[0]}\n", f"{shown[1]}\n", shown[2], shown[1]]


@pytest.mark.parametrize(
    ("markdown", "message"),
    [
        ("<div>\n{{ provenance }}\n</div>\n", "the output of `{{ provenance }}` was lost while rendering Markdown"),
        ("Text.\n{{ provenance }}\n", "keep block directives outside of HTML blocks and alone in their paragraph"),
        (
            "<div>\n{{ value pinned_model }}\n</div>\n",
            "`{{ value pinned_model }}` stands 1 time outside code, but rendering Markdown replaced it 0 times.",
        ),
        (
            "[Rows](https://example.com/{{ value pinned_model }})\n",
            "Keep values out of HTML blocks, HTML tags and link",
        ),
    ],
)
def test_a_directive_markdown_cannot_render_is_an_error(markdown: str, message: str) -> None:
    with pytest.raises(PageError) as error:
        converted(markdown, SHOWN)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("quoted", "placed"),
    [
        ("{value} rows, {unknown} columns", "{figure}"),
        ("`{value}` rows, {unknown} columns", "{figure}"),  # a value in code, which the conversion leaves as written
        ("{value} rows, {unknown} columns", "<div>\n{figure}\n</div>"),  # and where no value is replaced
    ],
)
def test_a_figure_that_cannot_render_is_named_not_the_values_its_text_quotes(quoted: str, placed: str) -> None:
    """A figure whose text quotes an unknown value is named once, as the figure's problem: not as a value the prose
    quotes too, which its text holds, however much of that text the conversion would read, nor as an output lost."""
    figure = next(
        directive
        for part in PARTS
        for directive in parse(PROJECT.page(part.page)[0])
        if isinstance(directive, Figure)
        and any(name.startswith(f"{directive.file.partition('/')[0]}/") for name in SHOWN.values)
    )
    part = figure.file.partition("/")[0]
    value = f"{{{{ value {next(name for name in SHOWN.values if name.startswith(f'{part}/'))} }}}}"
    text = quoted.format(value=value, unknown=f"{{{{ value {part}/nowhere }}}}")
    directive = f'{{{{ figure {figure.file} "{text}" }}}}'
    errors = convert(SHOWN, f"Of {value}.\n\n{placed.format(figure=directive)}\n\nAfter.\n").errors
    assert len(errors) == 1 and f"`{part}/nowhere`" in errors[0], errors


def test_an_unknown_value_lists_its_part_s_values_and_the_file_that_declares_them() -> None:
    part = next(part for part in PARTS if any(name.startswith(f"{part.name}/") for name in SHOWN.values))
    with pytest.raises(PageError) as error:
        SHOWN.value(f"{part.name}/nowhere")
    declared = [name for name in SHOWN.values if name.startswith(f"{part.name}/")]
    for name in [*declared, *BUILT_IN]:
        assert name in str(error.value), f"the error does not list `{name}`, which a page may quote"
    assert f"Declare it in snippets/{part.name}/values.yml" in str(error.value)


@pytest.mark.parametrize(
    ("printed", "shown"),
    [
        ("50256", "50,256"),
        ("1000", "1,000"),
        ("999", "999"),
        ("50,257", "50,257"),
        ("[25423, 318]", "[25423, 318]"),
        ("²³", "²³"),
        ("3.14159", "3.14159"),
    ],
)
def test_a_whole_number_value_reads_with_thousands_separators_and_any_other_as_printed(
    printed: str, shown: str
) -> None:
    """One style for the numbers of the prose, whatever the snippet printed."""
    assert in_prose_style(printed) == shown


def test_a_value_a_snippet_printed_as_a_whole_number_reads_in_the_prose_style() -> None:
    printed = {
        f"{part.name}/{name}": value
        for part in PARTS
        for template in templates(ROOT, part.name)
        for name, value in template.read(SHOWN.output(f"{part.name}/{template.output}")).items()
    }
    whole = {name: value for name, value in printed.items() if value.isdigit() and int(value) >= 1000}
    assert whole, "no value was printed as a bare whole number of four digits or more: this checks nothing"
    for name, value in whole.items():
        assert converted(f"It is {{{{ value {name} }}}}.\n", SHOWN) == f"<p>It is {int(value):,}.</p>"


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_built_in_value_reads_the_pins(name: str) -> None:
    assert converted(f"It is {{{{ value {name} }}}}.\n", SHOWN) == f"<p>It is {html.escape(BUILT_IN[name])}.</p>"


def test_a_value_shows_control_characters_as_escapes_and_cannot_name_stashed_html() -> None:
    """Values and outputs share one escape: Markdown's placeholders are STX and ETX, so a value that
    kept them could stand for the HTML stashed under another placeholder."""
    scoped = replace(SHOWN, builtins={"odd": "\x02wzxhzdk:0\x03 <b>\x1b"})
    page = converted("{{ provenance }}\n\nIt is {{ value odd }}.\n", scoped)
    assert page.count("<table") == 1 and page.endswith("<p>It is \\x02wzxhzdk:0\\x03 &lt;b&gt;\\x1b.</p>")


def series_page() -> str:
    """The page the navigation calls Series, as mkdocs.yml names it."""
    return next(entry["Series"] for entry in PROJECT.nav if isinstance(entry, dict) and "Series" in entry)


@pytest.mark.slow
def test_the_series_page_shows_the_pinned_revision_and_transformers(built_site: Path) -> None:
    source = (ROOT / "docs" / series_page()).read_text(encoding="utf-8")
    built = built_site / series_page().removesuffix(".md").removesuffix("index") / "index.html"
    text = BeautifulSoup(built.read_text(encoding="utf-8"), "html.parser").article.get_text(" ")
    for name in ("pinned_revision", "pinned_transformers"):
        assert f"{{{{ value {name} }}}}" in source, f"the Series page no longer quotes `{name}`"
        assert BUILT_IN[name] in text, f"{name}: {BUILT_IN[name]} is not on the built Series page"
    assert "{{" not in text


def provenance_line(name: str, repository: Repository | None = None) -> BeautifulSoup:
    """The line under an output, as the page of its part shows it."""
    line = BeautifulSoup(render_output(replace(SHOWN, repository=repository), name), "html.parser").select_one(
        ".provenance"
    )
    assert line is not None
    return line


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_provenance_says_who_ran_what_with_which_versions_when_and_from_where(name: str) -> None:
    record = MANIFEST[name]
    line = provenance_line(name)
    summary = line.select_one("details > summary").decode_contents()
    day = record.recorded_at[:10]
    assert f'<time datetime="{day}">{day}</time>' in summary
    links = line.find_all("a")
    assert [(link["href"], link.get_text()) for link in links] == [
        (f"generated/snippets/{name}.py", f"snippets/{name}.py")
    ]
    model = record.model
    if record.article is not None:
        article = PROJECT.options.published_article
        shown = "Stated in the prose of the article" if record.article.prose else "Published in the article"
        assert summary.startswith(f"<strong>{shown} <cite>{article}</cite></strong>")
        stated = PROJECT.options.published_with.get(name, {})
        assert (f"GPT-2 <code>{MODEL_ID}@{short()}</code>" in summary) == ("revision" in stated)
        for package, version in stated.items():
            if package != "revision":
                assert f"{package} {version}" in summary
        assert "torch" not in summary, "the article does not report a torch version"
        return
    assert summary.startswith("<strong>Executed by the record step</strong>")
    if model is None:
        assert " · no model · " in summary
    elif record.origin is Origin.TOKENIZER:
        assert f"GPT-2's tokenizer <code>{MODEL_ID}@{short()}</code>" in summary
        assert all(f"<code>{file}</code>" in summary for file in model.files) and "sha256 verified" in summary
        assert "weights" not in summary, "a tokenizer-only output never claims verified weights"
    for package in ("torch", "python"):
        if package in record.versions:
            assert record.versions[package] in summary


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_provenance_links_the_source_in_the_repository_at_the_built_commit(name: str) -> None:
    repository = Repository("https://github.com", "example/gpt2-explained", "ab" * 20)
    line, in_site = str(provenance_line(name, repository)), str(provenance_line(name))
    blob = f"https://github.com/example/gpt2-explained/blob/{'ab' * 20}/snippets/{name}.py"
    assert line.endswith(f'Source: <a href="{blob}">snippets/{name}.py</a></div>')
    assert line == in_site.replace(f'href="generated/snippets/{name}.py"', f'href="{blob}"'), "only the link differs"


EXECUTED = Record(
    source="snippets/part-a/example.py",
    output="outputs/part-a/example.txt",
    output_sha256="0" * 64,
    sources={"snippets/part-a/example.py": "1" * 64},
    origin=Origin.NO_MODEL,
    model=None,
    versions={"python": "3.11.7", "torch": "2.13.0+cpu", "transformers": "5.17.0", "tokenizers": "0.23.3"},
    recorded_at="2027-01-02T03:04:05+00:00",
    seconds=1.0,
)


def test_provenance_of_an_output_executed_on_gpt2_names_the_verified_weights() -> None:
    record = replace(
        EXECUTED, origin=Origin.WEIGHTS, model=Model(MODEL_ID, REVISION, {"model.safetensors": WEIGHTS_SHA256})
    )
    line = provenance.line(record)
    assert line.startswith('<strong>Executed by the record step</strong> on <time datetime="2027-01-02">')
    assert (
        f"GPT-2 <code>{MODEL_ID}@{short()}</code>, weights sha256 <code>{WEIGHTS_SHA256[:12]}…</code> verified" in line
    )
    assert "transformers 5.17.0 · torch 2.13.0+cpu · Python 3.11.7" in line
    assert "tokenizers" not in line


def test_provenance_of_a_tokenizer_only_output_says_its_files_were_verified_not_weights() -> None:
    files = {"vocab.json": "1" * 64, "merges.txt": "2" * 64}
    record = replace(EXECUTED, origin=Origin.TOKENIZER, model=Model(MODEL_ID, REVISION, files))
    line = provenance.line(record)
    assert (
        f"GPT-2's tokenizer <code>{MODEL_ID}@{short()}</code>, <code>vocab.json</code> and "
        "<code>merges.txt</code> sha256 verified"
    ) in line
    assert "weights" not in line


def marked_lines(file: str, section: str) -> list[str]:
    """The source lines between a section's markers, read straight from the snippet."""
    text = (ROOT / "snippets" / file).read_text(encoding="utf-8")
    body = re.search(rf"\[start:{section}\]\n(.*?)\n[^\n]*\[end:{section}\]", text, re.S)
    assert body is not None
    return body.group(1).splitlines()


def code_block_html(built: str, file: str) -> str:
    start = built.index(f'<span class="filename">snippets/{file}</span>')
    return built[start : built.index("</code></pre>", start)]


def check_figures(part: Part, built: str, site: Path) -> int:
    """Each figure directive became one inline SVG image, named by its title and the page's alt text."""
    directives = [directive for directive in parse(page(part)[0]) if isinstance(directive, Figure)]
    for directive in directives:
        name, alt = directive.name, directive.text.split('"')[1]
        figures = re.findall(rf'<figure class="recorded-figure" data-snippet="{name}">.*?</figure>', built, re.S)
        assert len(figures) == 1, name
        element = ElementTree.fromstring(figures[0])
        svg = element.find(f"{{{SVG_NAMESPACE}}}svg")
        assert svg is not None and svg.get("role") == "img"
        by_id = {child.get("id"): child for child in svg.iter()}
        title_id, alt_id = svg.get("aria-labelledby").split()
        assert by_id[title_id].tag == f"{{{SVG_NAMESPACE}}}title" and by_id[title_id].text
        assert by_id[alt_id].text == with_values(alt)
        caption = element.find("figcaption")
        assert caption is not None and caption.get("class") == "provenance"
        link = caption.find("a")
        assert link is not None and link.text == f"snippets/{name}.py"
        assert (site / part.name / link.get("href")).resolve() == (
            site / "generated" / "snippets" / f"{name}.py"
        ).resolve()
        assert (site / "generated" / "snippets" / f"{name}.py").is_file()
    return len(directives)


def check_highlights(part: Part, built: str) -> int:
    """Each `highlight=` directive highlights exactly the lines between that subsection's markers."""
    directives = [
        directive for directive in parse(page(part)[0]) if isinstance(directive, Listing) and directive.highlight
    ]
    for directive in directives:
        lit = re.findall(r'<span class="hll">(.*?)\n</span>', code_block_html(built, directive.file), re.S)
        assert [html.unescape(re.sub(r"<[^>]+>", "", line)) for line in lit] == marked_lines(
            directive.file, str(directive.highlight)
        )
    return len(directives)


def check_outputs(part: Part, built: str) -> int:
    """Every output sits under its code with the "Output" label and a provenance line."""
    outputs = re.findall(r'<div class="recorded-output" data-snippet="([-\w/]+)">(.*?)</a></div></div>', built, re.S)
    examples = [directive.name for directive in parse(page(part)[0]) if isinstance(directive, Example)]
    assert [name for name, _ in outputs] == examples
    for name, block in outputs:
        assert '<span class="filename">Output</span>' in block
        assert f'Source: <a href="../generated/snippets/{name}.py">snippets/{name}.py' in block
    return len(outputs)


@pytest.mark.slow
def test_every_part_s_built_page_shows_figures_highlights_and_provenance(built_site: Path) -> None:
    shown = {"figures": 0, "highlights": 0, "outputs": 0}
    for part in PARTS:
        built = (built_site / part.name / "index.html").read_text(encoding="utf-8")
        counts = {
            "figures": check_figures(part, built, built_site),
            "highlights": check_highlights(part, built),
            "outputs": check_outputs(part, built),
        }
        # As many on the built page as the page has directives of each kind, no more and no fewer.
        assert built.count('<figure class="recorded-figure"') == counts["figures"], part.page
        assert built.count('<div class="recorded-output"') == counts["outputs"], part.page
        blocks = re.findall(r"<pre.*?</pre>", built, re.S)
        assert sum('<span class="hll">' in block for block in blocks) == counts["highlights"], part.page
        assert counts["outputs"] > 0, f"{part.page} shows no output: its checks checked nothing"
        shown = {kind: shown[kind] + count for kind, count in counts.items()}
    assert all(shown.values()), f"the parts' pages show none of some kind, so it went unchecked: {shown}"


def test_a_value_two_parts_both_quote_reads_the_same_in_each() -> None:
    """A value that parts hand on to each other (the prompt's ids that one part ends with and the next starts from)
    has one name in each, read from each part's own outputs: it must read the same."""
    declaring: dict[str, list[str]] = {}
    for qualified in SHOWN.values:
        part, _, name = qualified.partition("/")
        declaring.setdefault(name, []).append(part)
    shared = {name: parts for name, parts in declaring.items() if len(parts) > 1}
    assert shared, "no value is declared by two parts: the check below checks nothing"
    for name, parts in sorted(shared.items()):
        texts = {part: SHOWN.value(f"{part}/{name}") for part in parts}
        assert len(set(texts.values())) == 1, f"`{name}` differs between parts: {texts}"

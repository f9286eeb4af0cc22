"""Page directives: highlighted lines by section marker, figures, and the provenance line."""

from __future__ import annotations

import html
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup
from markdown import Markdown

from recorder import store
from recorder.directives import parse
from recorder.inline_svg import SVG_NAMESPACE
from recorder.page_markdown import prepare
from recorder.pages import PageError, Recorded, highlighted_lines, provenance
from recorder.pinned import MODEL_ID, WEIGHTS_SHA256, short
from recorder.repository import Repository
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
PAGE = (ROOT / "docs" / "token-embeddings.md").read_text(encoding="utf-8")


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "demo.py").write_text(DEMO, encoding="utf-8")
    return tmp_path


def included(root: Path, target: str) -> list[str]:
    """What pymdownx.snippets, configured as in mkdocs.yml, puts in a code block for `target`."""
    markdown = Markdown(extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": {
        "base_path": [str(root / "snippets")], "check_paths": True, "dedent_subsections": True,
    }})
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


@pytest.fixture(scope="module")
def recorded() -> Recorded:
    return Recorded(ROOT, store.read_manifest(ROOT), {}, {})


@pytest.mark.parametrize(("directive", "message"), [
    ("{{ figure lookup_figure.py }}", 'needs FILE.py "alt text"'),
    ("{{ figure missing_figure.py \"A figure.\" }}", "snippets/missing_figure.py does not exist"),
    ("{{ example row_lookup.py:lookup highlight=Select }}", "optionally followed by highlight=SUBSECTION"),
    ("{{ chart lookup.svg }}", "Use code, example, figure, provenance, compatibility or value"),
    ("{{ provenance row_lookup.py }}", "takes nothing: write `{{ provenance }}`"),
    ('{{ figure lookup_figure.py "Rows {{ value nowhere }}." }}', "unknown value `nowhere`"),
    ('{{ figure lookup_figure.py "Rows {{ value Rows }}." }}', "`{{ value Rows }}` needs a value name"),
    ('{{ figure lookup_figure.py "Rows {{ code toy_table.py }}." }}', "`{{ code ... }}` must stand alone"),
])
def test_a_malformed_directive_names_the_page_and_the_fix(recorded: Recorded, directive: str, message: str) -> None:
    with pytest.raises(PageError) as error:
        prepare(parse(f"Text.\n\n{directive}\n", "page.md"), recorded, page_url="page/")
    assert message in str(error.value)


def test_code_shows_directives_as_written(recorded: Recorded) -> None:
    shown = ["{{ example row_lookup.py:lookup }}", "{{ chart lookup.svg }}", "{{ value nowhere }}"]
    page = (f"```markdown\n{shown[0]}\n```\n\n!!! note\n    ~~~\n    {shown[1]}\n    ~~~\n\n"
            f"Write `{shown[2]}` or ``{shown[1]}``.\n")
    assert parse(page, "page.md") == []
    codes = [code.get_text() for code in BeautifulSoup(converted(page, recorded, "admonition", "pymdownx.superfences"),
                                                        "html.parser").find_all("code")]
    assert codes == [f"{shown[0]}\n", f"{shown[1]}\n", shown[2], shown[1]]


@pytest.mark.parametrize(("markdown", "message"), [
    ("<div>\n{{ provenance }}\n</div>\n", "the output of `{{ provenance }}` was lost while rendering Markdown"),
    ("Text.\n{{ provenance }}\n", "keep example directives outside of HTML blocks"),
    ("<div>\n{{ value vocab_size }}\n</div>\n", "`{{ value vocab_size }}` stands 1 time(s) outside code, but"),
    ("[Rows](https://example.com/{{ value vocab_size }})\n", "Keep values out of HTML blocks, HTML tags and link"),
])
def test_a_directive_markdown_cannot_render_is_an_error(markdown: str, message: str) -> None:
    recorded = Recorded(ROOT, store.read_manifest(ROOT),
                        {"vocab_size": {"output": "parameter_count", "pattern": "^([\\d,]+) ×"}}, {})
    with pytest.raises(PageError) as error:
        converted(markdown, recorded)
    assert message in str(error.value)


@pytest.mark.parametrize("name", sorted(store.read_manifest(ROOT)))
def test_provenance_says_who_ran_what_with_which_versions_when_and_from_where(name: str) -> None:
    entry = store.read_manifest(ROOT)[name]
    line = provenance(entry, name, "token-embeddings/")
    day = entry["recorded_at"][:10]
    assert f'<time datetime="{day}">{day}</time>' in line
    assert line.endswith(f'Source: <a href="../snippets/{name}.py">snippets/{name}.py</a>')
    if entry["origin"] == "published":
        assert line.startswith("<strong>Article author's recorded run</strong>")
        assert f"GPT-2 <code>{MODEL_ID}@{short()}</code>" in line
        assert "transformers 5.17.0" in line
        assert "torch" not in line, "the article does not report a torch version"
    else:
        assert line.startswith("<strong>Executed by the build step</strong>")
        if entry["model"] is None:
            assert " · no model · " in line
        for package in ("torch", "python"):
            if package in entry["versions"]:
                assert entry["versions"][package] in line


@pytest.mark.parametrize("name", sorted(store.read_manifest(ROOT)))
def test_provenance_links_the_source_in_the_repository_at_the_built_commit(name: str) -> None:
    entry = store.read_manifest(ROOT)[name]
    repository = Repository("https://github.com", "example/gpt2-explained", "ab" * 20)
    line = provenance(entry, name, "token-embeddings/", repository)
    in_site = provenance(entry, name, "token-embeddings/")
    blob = f"https://github.com/example/gpt2-explained/blob/{'ab' * 20}/snippets/{name}.py"
    assert line.endswith(f'Source: <a href="{blob}">snippets/{name}.py</a>')
    assert line == in_site.replace(f'href="../snippets/{name}.py"', f'href="{blob}"'), "only the link differs"


def test_provenance_of_an_output_executed_on_gpt2_names_the_verified_weights() -> None:
    entry = {
        "origin": "executed", "recorded_at": "2027-01-02T03:04:05+00:00",
        "model": {"id": MODEL_ID, "revision": "607a30d783dfa663caf39e06633721c8d4cfcd7e",
                  "files": {"model.safetensors": WEIGHTS_SHA256}},
        "versions": {"python": "3.11.7", "torch": "2.13.0+cpu", "transformers": "5.17.0", "tokenizers": "0.23.3"},
    }
    line = provenance(entry, "software_row", "token-embeddings/")
    assert line.startswith("<strong>Executed by the build step</strong> on <time datetime=\"2027-01-02\">")
    assert f"GPT-2 <code>{MODEL_ID}@{short()}</code>, weights sha256 <code>{WEIGHTS_SHA256[:12]}…</code> verified" in line
    assert "transformers 5.17.0 · torch 2.13.0+cpu · Python 3.11.7" in line
    assert "tokenizers" not in line


def marked_lines(file: str, section: str) -> list[str]:
    """The source lines between a section's markers, read straight from the snippet."""
    text = (ROOT / "snippets" / file).read_text(encoding="utf-8")
    body = re.search(rf"\[start:{section}\]\n(.*?)\n[^\n]*\[end:{section}\]", text, re.S)
    assert body is not None
    return body.group(1).splitlines()


def code_block_html(page: str, file: str) -> str:
    start = page.index(f'<span class="filename">snippets/{file}</span>')
    return page[start:page.index("</code></pre>", start)]


def check_figures(page: str, site: Path) -> None:
    """Each figure directive became one inline SVG image, named by its title and the page's alt text."""
    directives = re.findall(r'^\{\{ figure (\w+)\.py "([^"]+)" \}\}$', PAGE, re.M)
    assert len(directives) == 2
    for name, alt in directives:
        figures = re.findall(rf'<figure class="recorded-figure" data-snippet="{name}">.*?</figure>', page, re.S)
        assert len(figures) == 1, name
        element = ElementTree.fromstring(figures[0])
        svg = element.find(f"{{{SVG_NAMESPACE}}}svg")
        assert svg is not None and svg.get("role") == "img"
        by_id = {child.get("id"): child for child in svg.iter()}
        title_id, alt_id = svg.get("aria-labelledby").split()
        assert by_id[title_id].tag == f"{{{SVG_NAMESPACE}}}title" and by_id[title_id].text
        assert by_id[alt_id].text == with_values(html.unescape(alt))
        caption = element.find("figcaption")
        assert caption is not None and caption.get("class") == "provenance"
        link = caption.find("a")
        assert link is not None and link.text == f"snippets/{name}.py"
        assert (site / "token-embeddings" / link.get("href")).resolve().is_file()


def check_highlights(page: str) -> None:
    """Each `highlight=` directive highlights exactly the lines between that subsection's markers."""
    directives = re.findall(r"^\{\{ example (\w+\.py):([-\w]+) highlight=([-\w]+) \}\}$", PAGE, re.M)
    assert {file for file, _, _ in directives} == {"row_lookup.py", "training_step_gradient.py"}
    for file, _, subsection in directives:
        lit = re.findall(r'<span class="hll">(.*?)\n</span>', code_block_html(page, file), re.S)
        assert [html.unescape(re.sub(r"<[^>]+>", "", line)) for line in lit] == marked_lines(file, subsection)


def check_outputs(page: str) -> None:
    """Every output sits under its code with the "Output" label and a provenance line."""
    outputs = re.findall(r'<div class="recorded-output" data-snippet="(\w+)">(.*?)</a></div></div>', page, re.S)
    assert [name for name, _ in outputs] == re.findall(r"^\{\{ example (\w+)\.py", PAGE, re.M)
    for name, block in outputs:
        assert '<span class="filename">Output</span>' in block
        assert f'Source: <a href="../snippets/{name}.py">snippets/{name}.py' in block


@pytest.mark.slow
def test_the_built_page_shows_figures_highlights_and_provenance(built_site: Path) -> None:
    page = (built_site / "token-embeddings" / "index.html").read_text(encoding="utf-8")
    check_figures(page, built_site)
    check_highlights(page)
    check_outputs(page)

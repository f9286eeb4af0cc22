"""/llms.txt and each page's Markdown version: the code and its recorded outputs as text."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from mkdocs.utils.meta import get_data

from recorder.project import manifest
from recorder.project.config import Part, Project
from recorder.project.directives import Example, Figure, Listing, parse
from recorder.project.outputs import read_outputs
from support import ROOT

DOCS = ROOT / "docs"
PROJECT = Project.load(ROOT)
PARTS = PROJECT.parts()
MARKER = re.compile(r"^\s*# -+8<-+ \[(start|end):([-\w]+)\]\s*$")
ENTRY = re.compile(r"^- \[([^\]]+)\]\(([^)]+)\)(?:: (.*))?$", re.M)

by_part = pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)


def sections(site: Path) -> dict[str, dict[Path, str]]:
    """/llms.txt's sections, by title, each with the built Markdown file of each page it lists and
    that page's description."""
    text = (site / "llms.txt").read_text(encoding="utf-8")
    found = {}
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        found[title] = {
            site / urlsplit(url).path.lstrip("/"): description or "" for _, url, description in ENTRY.findall(body)
        }
    return found


def listed(site: Path) -> list[tuple[str, Path]]:
    """The pages /llms.txt links, each by its title and the built file its link names."""
    text = (site / "llms.txt").read_text(encoding="utf-8")
    return [(title, site / urlsplit(url).path.lstrip("/")) for title, url, _ in ENTRY.findall(text)]


def built_markdown(site: Path, page: str) -> Path:
    """Where the build writes the Markdown version of `docs/page`."""
    built = page.removesuffix(".md").removesuffix(".ipynb")
    return site / ("index.md" if built == "index" else f"{built}/index.md")


def markdown_of(site: Path, page: str) -> str:
    """The Markdown version of `docs/page`, read where /llms.txt says it is."""
    path = built_markdown(site, page)
    assert path in {built for _, built in listed(site)}, f"/llms.txt does not list {page}"
    return path.read_text(encoding="utf-8")


def front_matter(part: Part) -> tuple[str, dict]:
    """A part's page: its Markdown body and its front matter."""
    return get_data((DOCS / part.page).read_text(encoding="utf-8"))


def shown_code(file: str, section: str | None) -> str:
    """What a page's code block shows of a snippet section: its lines without markers, dedented."""
    lines, inside = [], section is None
    for line in (ROOT / "snippets" / file).read_text(encoding="utf-8").splitlines():
        marker = MARKER.match(line)
        if marker and marker.group(2) == section:
            inside = marker.group(1) == "start"
        elif inside and not marker:
            lines.append(line)
    return textwrap.dedent("\n".join(lines)).strip("\n")


@pytest.mark.slow
def test_llms_txt_describes_the_series_and_lists_every_page(built_site: Path) -> None:
    text = (built_site / "llms.txt").read_text(encoding="utf-8")
    assert text.startswith("# How GPT-2 works\n\n> ")
    pages = listed(built_site)
    sources = sorted(path.relative_to(DOCS).as_posix() for path in [*DOCS.rglob("*.md"), *DOCS.rglob("*.ipynb")])
    assert sorted(path for _, path in pages) == sorted(built_markdown(built_site, source) for source in sources), (
        f"/llms.txt lists {[title for title, _ in pages]}, the site has {sources}"
    )
    for title, path in pages:
        assert path.is_file(), f"{title}: {path} was not written"


@pytest.mark.slow
def test_llms_txt_lists_each_part_with_its_description_and_each_notebook(built_site: Path) -> None:
    found = sections(built_site)
    series = found[PROJECT.options.llms_section]
    reference = {path for title, pages in found.items() if title != PROJECT.options.llms_section for path in pages}
    for part in PARTS:
        description = front_matter(part)[1].get("description")
        assert description, f"docs/{part.page} declares the `description` llms.txt gives it"
        assert series.get(built_markdown(built_site, part.page)) == description, part.name
        assert built_markdown(built_site, part.notebook) in reference, f"{part.notebook} is not listed"
    notebooks = {
        built_markdown(built_site, path.relative_to(DOCS).as_posix()) for path in (DOCS / "notebooks").glob("*.ipynb")
    }
    assert notebooks == {built_markdown(built_site, part.notebook) for part in PARTS}, "a notebook per part"
    # As the navigation orders them, however their folders' names sort.
    in_nav = [built_markdown(built_site, page) for page in _nav_pages() if page in {part.page for part in PARTS}]
    assert [path for path in series if path in in_nav] == in_nav
    assert list(found["Notebooks"]) == [
        path.parent.parent / "notebooks" / path.parent.name / "index.md" for path in in_nav
    ]


def _nav_pages() -> list[str]:
    """The pages the navigation lists, in its order."""
    from recorder.project.config import pages_of

    return [page for _, page in pages_of(PROJECT.nav)]


@pytest.mark.slow
def test_every_page_s_markdown_holds_no_directive_no_placeholder_and_no_drawing(built_site: Path) -> None:
    pages = listed(built_site)
    assert pages
    for title, path in pages:
        markdown = path.read_text(encoding="utf-8")
        assert markdown.startswith("# "), title
        for leftover in ("{{", "<svg", "recorded-output-", "¶", "Copied!"):
            assert leftover not in markdown, f"{title}: {leftover!r} in its Markdown"


@pytest.mark.slow
@by_part
def test_a_part_s_markdown_holds_each_code_section_and_its_recorded_output(built_site: Path, part: Part) -> None:
    markdown = markdown_of(built_site, part.page)
    records = manifest.read(ROOT)
    listings = [directive for directive in parse(front_matter(part)[0]) if isinstance(directive, Listing)]
    assert listings
    for listing in listings:
        code = shown_code(listing.file, listing.section)
        assert f"snippets/{listing.file}\n\n```python\n{code}\n```" in markdown, f"{listing.text}: not in the Markdown"
        if isinstance(listing, Example):
            name = listing.name
            output = (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n")
            shown = f"```python\n{code}\n```\n\nOutput\n\n```\n{output}\n```\n\n"
            assert shown in markdown, f"{name}: its recorded output does not follow its code"
            assert records[name].output_sha256 in markdown, f"{name}: its record is not in the Markdown"


@pytest.mark.slow
def test_the_provenance_page_s_markdown_lists_every_record_under_its_part(built_site: Path) -> None:
    markdown = markdown_of(built_site, "provenance.md")
    recorded = manifest.read(ROOT)
    assert "\n|" not in markdown, "a table row per output: too wide to read as text"
    for part in PARTS:
        title = next(title for title, page in _nav_titles() if page == part.page)
        records = markdown.partition(f"**{title}**\n")[2].partition("\n\n**")[0]
        for name in (name for name in recorded if name.startswith(f"{part.name}/")):
            line = next((line for line in records.splitlines() if line.startswith(f"- [snippets/{name}.py](")), "")
            assert recorded[name].output_sha256 in line, f"{name}: its record is not listed under {title}"


def _nav_titles() -> list[tuple[str, str]]:
    from recorder.project.config import pages_of

    return pages_of(PROJECT.nav)


@pytest.mark.slow
@by_part
def test_a_part_s_markdown_gives_each_figure_as_its_text_alternative(built_site: Path, part: Part) -> None:
    markdown = markdown_of(built_site, part.page)
    body, _ = front_matter(part)
    values = read_outputs(PROJECT)
    figures = [directive for directive in parse(body) if isinstance(directive, Figure)]
    lines = [line for line in markdown.splitlines() if line.startswith("**Figure:**")]
    assert len(lines) == len(figures)
    for figure in figures:
        alt = "".join(piece if isinstance(piece, str) else values.value(piece.name) for piece in figure.alt)
        assert any(alt in line for line in lines), f"{figure.name}: no text alternative in the Markdown"
        assert f"Source: [snippets/{figure.file}]" in markdown


@pytest.mark.slow
@by_part
def test_a_notebook_s_markdown_holds_each_cell_and_its_output(built_site: Path, part: Part) -> None:
    markdown = markdown_of(built_site, part.notebook)
    notebook = json.loads((DOCS / part.notebook).read_text(encoding="utf-8"))
    cells = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert cells
    for cell in cells:
        assert f"```python\n{''.join(cell['source']).strip()}\n```" in markdown
        for output in cell["outputs"]:
            assert f"```\n{''.join(output['text']).rstrip()}\n```" in markdown


def test_the_publish_workflow_builds_at_the_published_address() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "publish.yml").read_text(encoding="utf-8"))
    build = next(step for step in workflow["jobs"]["build"]["steps"] if "mkdocs build" in step.get("run", ""))
    assert "vars.SITE_URL" in build["env"]["SITE_URL"] and ".github.io/" in build["env"]["SITE_URL"]

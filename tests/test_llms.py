"""/llms.txt and each page's Markdown version: the code and its recorded outputs as text."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from recorder import store
from support import ROOT, with_values

ARTICLE = (ROOT / "docs" / "token-embeddings.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"^\{\{ (code|example) (\w+\.py)(?::([-\w]+))?", ARTICLE, re.M)
FIGURES = re.findall(r'^\{\{ figure (\w+)\.py "([^"]+)" \}\}$', ARTICLE, re.M)
MARKER = re.compile(r"^\s*# -+8<-+ \[(start|end):([-\w]+)\]\s*$")


def listed(site: Path) -> dict[str, Path]:
    """The pages /llms.txt links, by title, each as the built file its link names."""
    text = (site / "llms.txt").read_text(encoding="utf-8")
    return {title: site / urlsplit(url).path.lstrip("/")
            for title, url in re.findall(r"^- \[([^\]]+)\]\(([^)]+)\)", text, re.M)}


def markdown_of(site: Path, page: str) -> str:
    """The Markdown version of `docs/page`, read where /llms.txt says it is."""
    built = page.removesuffix(".md").removesuffix(".ipynb")
    path = site / ("index.md" if built == "index" else f"{built}/index.md")
    assert path in listed(site).values(), f"/llms.txt does not list {page}"
    return path.read_text(encoding="utf-8")


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
    sources = sorted(path.relative_to(ROOT / "docs").as_posix()
                     for path in [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.ipynb")])
    assert len(pages) == len(sources), f"/llms.txt lists {sorted(pages)}, the site has {sources}"
    for title, path in pages.items():
        assert path.is_file(), f"{title}: {path} was not written"


@pytest.mark.slow
@pytest.mark.parametrize("page", ["index.md", "token-embeddings.md", "provenance.md",
                                  "notebooks/token-embeddings.ipynb"])
def test_a_page_s_markdown_holds_no_directive_no_placeholder_and_no_drawing(built_site: Path, page: str) -> None:
    markdown = markdown_of(built_site, page)
    assert markdown.startswith("# ")
    for leftover in ("{{", "<svg", "recorded-output-", "¶", "Copied!"):
        assert leftover not in markdown, f"{page}: {leftover!r} in its Markdown"


@pytest.mark.slow
def test_the_article_s_markdown_holds_each_code_section_and_its_recorded_output(built_site: Path) -> None:
    markdown = markdown_of(built_site, "token-embeddings.md")
    manifest = store.read_manifest(ROOT)
    for kind, file, section in EXAMPLES:
        code = shown_code(file, section or None)
        assert f"snippets/{file}\n\n```python\n{code}\n```" in markdown, f"{file}:{section} is not in the Markdown"
        if kind == "example":
            name = file.removesuffix(".py")
            output = (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n")
            shown = f"```python\n{code}\n```\n\nOutput\n\n```\n{output}\n```\n\n"
            assert shown in markdown, f"{name}: its recorded output does not follow its code"
            assert manifest[name]["output_sha256"] in markdown, f"{name}: its record is not in the Markdown"


@pytest.mark.slow
def test_the_article_s_markdown_gives_each_figure_as_its_text_alternative(built_site: Path) -> None:
    markdown = markdown_of(built_site, "token-embeddings.md")
    assert len(FIGURES) == 2
    for name, alt in FIGURES:
        shown = with_values(alt)
        figure = next((line for line in markdown.splitlines() if line.startswith("**Figure:**") and shown in line),
                      None)
        assert figure is not None, f"{name}: no text alternative in the Markdown"
        assert f"Source: [snippets/{name}.py]" in markdown


@pytest.mark.slow
def test_the_notebook_s_markdown_holds_each_cell_and_its_output(built_site: Path) -> None:
    markdown = markdown_of(built_site, "notebooks/token-embeddings.ipynb")
    notebook = json.loads((ROOT / "docs" / "notebooks" / "token-embeddings.ipynb").read_text(encoding="utf-8"))
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

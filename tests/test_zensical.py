"""Zensical, MkDocs' successor, builds the same pages through the same Markdown extension,
recorder.engines.extension: every page reads the same as in the MkDocs build, a part's notebook is offered as a
download, and drift fails it too."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup, Tag

from recorder.project.config import Part, Project
from support import ROOT

PAGES = sorted(path.relative_to(ROOT / "docs").as_posix() for path in (ROOT / "docs").glob("*.md"))
PARTS = Project.load(ROOT).parts()


def article(site: Path, page: str) -> Tag:
    built = site / page.removesuffix(".md").removesuffix("index") / "index.html"
    found = BeautifulSoup(built.read_text(encoding="utf-8"), "html.parser").select_one("article")
    assert found is not None, f"{built} has no article"
    return found


def reading(page: Tag) -> dict[str, list[str]]:
    """What a reader reads of a page's code, outputs, provenance lines, figures and prose (where values stand)."""
    for link in page.select("a.headerlink, p.recorded-notebook"):
        link.extract()
    return {
        "code": [block.get_text() for block in page.select("div.highlight pre")],
        "outputs": [block.get_text() for block in page.select("div.recorded-output pre")],
        "provenance": [line.get_text(" ", strip=True) for line in page.select(".provenance")],
        "figures": [str(figure.svg) for figure in page.select("figure.recorded-figure")],
        "prose": [paragraph.get_text(" ", strip=True) for paragraph in page.find_all(["p", "li", "td", "th"])],
    }


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_each_page_reads_the_same_under_zensical_as_under_mkdocs(
    built_site: Path, zensical_site: Path, page: str
) -> None:
    mkdocs, zensical = reading(article(built_site, page)), reading(article(zensical_site, page))
    assert any(mkdocs.values()), f"{page}: nothing read, so nothing compared"
    for kind, shown in mkdocs.items():
        assert zensical[kind] == shown, f"{page}: its {kind} read otherwise under Zensical"
    assert "{{" not in article(zensical_site, page).get_text(), f"{page}: a directive was left as written"


@pytest.mark.slow
def test_every_link_to_a_copy_leads_to_the_same_file_under_both_engines(built_site: Path, zensical_site: Path) -> None:
    """The snippets' sources, the manifest and the tokenizer's files are plain files of the docs folder, which both
    engines publish: each page links the same copies, and each leads to a file."""

    def copies(site: Path, page: str) -> list[Path]:
        folder = (site / page.removesuffix(".md").removesuffix("index")).resolve()
        return [
            (folder / link["href"]).resolve()
            for link in article(site, page).select("a[href]")
            if "generated/" in str(link["href"]) and "://" not in str(link["href"])
        ]

    for page in PAGES:
        mkdocs, zensical = copies(built_site, page), copies(zensical_site, page)
        assert [path.relative_to(zensical_site) for path in zensical] == [
            path.relative_to(built_site.resolve()) for path in mkdocs
        ], f"{page}: other copies linked"
        for path in zensical:
            assert path.is_file(), f"{page}: {path.relative_to(zensical_site)} is not in the Zensical build"
    assert any(copies(zensical_site, page) for page in PAGES), "no page links a copy: nothing was compared"


@pytest.mark.slow
@pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)
def test_zensical_offers_each_part_s_notebook_as_a_download(zensical_site: Path, part: Part) -> None:
    link = article(zensical_site, part.page).select_one("p.recorded-notebook a[download]")
    assert "not as pages" in link.parent.get_text(), "the build says it shows no notebook pages"
    assert link is not None, f"{part.page}: no link to download its notebook"
    target = (zensical_site / part.name / link["href"]).resolve()
    assert target == (zensical_site / part.notebook).resolve()
    assert target.read_bytes() == (ROOT / "docs" / part.notebook).read_bytes()


def internal_links(site: Path, page: Path) -> list[tuple[str, Path]]:
    """Each link and source of a built page that stays inside the site, with the file it must lead to."""
    document = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    found = []
    addresses = [
        str(element[attribute]) for attribute in ("href", "src") for element in document.find_all(**{attribute: True})
    ]
    for address in addresses:
        parsed = urlsplit(address)
        if parsed.scheme or parsed.netloc or not parsed.path:
            continue  # elsewhere, or an anchor of the page itself
        folder = site if parsed.path.startswith("/") else page.parent  # the 404 page links from the site's root
        path = (folder / unquote(parsed.path).lstrip("/")).resolve()
        found.append((address, path / "index.html" if address.endswith("/") or path.is_dir() else path))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
def test_no_link_of_either_build_leads_nowhere(built_site: Path, zensical_site: Path, engine: str) -> None:
    site = (built_site if engine == "mkdocs" else zensical_site).resolve()
    pages = sorted(site.rglob("*.html"))
    broken = [
        f"{page.relative_to(site)}: {address}"
        for page in pages
        for address, path in internal_links(site, page)
        if not path.is_file()
    ]
    listed = re.findall(r"\]\(<?(http://127\.0\.0\.1:8000/[^)>]*)>?\)", (site / "llms.txt").read_text(encoding="utf-8"))
    broken += [
        f"llms.txt: {url}" for url in listed if not (site / url.removeprefix("http://127.0.0.1:8000/")).is_file()
    ]
    assert pages and listed and not broken, "links that lead nowhere:\n" + "\n".join(broken)

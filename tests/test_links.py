"""Links between pages: `recorder check` and the strict build stop on a broken link or anchor, naming both; in the built
site every page is reached by following links from the home page, each part's notebook from its page."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from bs4 import BeautifulSoup

from recorder.project.config import Part, Project
from support import ROOT, build, run_in

PARTS = Project.load(ROOT).parts()


@pytest.mark.slow
def test_a_broken_link_or_anchor_fails_check_and_the_build_naming_the_page_and_the_target(project: Path) -> None:
    """The state refuses them, so `recorder check`, MkDocs and Zensical stop on the same message; MkDocs' own
    validation (`validation:` in mkdocs.yml) is never reached."""
    parts = Project.load(project).parts()
    page, target = parts[0], parts[-1]  # a page links to a part (itself, when there is only one)
    broken = [f"{target.page}#no-such-heading", "no-such-page.md", f"{target.name}/"]  # the last: a folder
    source = project / "docs" / page.page
    links = " ".join(f"[broken]({link})" for link in broken)
    source.write_text(source.read_text(encoding="utf-8") + f"\nSee {links}.\n", encoding="utf-8")
    built, checked = build(project), run_in(project, "python", "-m", "recorder", "check")
    for who, code, said in (
        ("mkdocs build", built.returncode, built.stderr),
        ("check", checked.returncode, checked.stderr),
    ):
        assert code == 1, who
        for link in broken:
            assert f"docs/{page.page}: the link `{link}`" in said, f"{who} did not name {link}:\n{said}"


@pytest.fixture(scope="module")
def pages(built_site: Path) -> dict[str, BeautifulSoup]:
    """Every page of the built site, by its address from the site's root ("" for the home page)."""
    return {
        ("" if path.parent == built_site else f"{path.parent.relative_to(built_site).as_posix()}/"): BeautifulSoup(
            path.read_text(encoding="utf-8"), "html.parser"
        )
        for path in sorted(built_site.rglob("index.html"))
    }


def target(address: str, href: str) -> str | None:
    """The page of the site a link on the page at `address` leads to, by its address; None: elsewhere."""
    url = urlsplit(urljoin(f"http://site/{address}", href))
    return url.path.lstrip("/").removesuffix("index.html") if url.netloc == "site" else None


def linked_pages(address: str, document: BeautifulSoup, pages: dict[str, BeautifulSoup], within: str = "") -> set[str]:
    """The pages of the site that the links of `document` (at `address`), inside `within`, lead to."""
    return {
        found
        for link in document.select(f"{within} a[href]".strip())
        if (found := target(address, link["href"])) in pages
    }


@pytest.mark.slow
def test_every_page_is_reached_by_links_from_the_home_page(pages: dict[str, BeautifulSoup]) -> None:
    reached, pending = {""}, [""]
    while pending:
        address = pending.pop()
        for found in linked_pages(address, pages[address], pages) - reached:
            reached.add(found)
            pending.append(found)
    assert sorted(reached) == sorted(pages)


@pytest.mark.slow
@pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)
def test_a_part_s_page_links_its_notebook_which_the_navigation_leaves_out(
    pages: dict[str, BeautifulSoup], part: Part
) -> None:
    page, notebook = (f"{source.rsplit('.', 1)[0]}/" for source in (part.page, part.notebook))
    buttons = pages[page].select("p.recorded-notebook a")
    assert [target(page, button["href"]) for button in buttons] == [notebook], "the page offers its notebook"
    for address, document in pages.items():
        listed = linked_pages(address, document, pages, "nav.md-nav--primary")
        assert page in listed, f"{address or 'the home page'}: the navigation lists {part.page}"
        assert notebook not in listed, f"{address or 'the home page'}: the navigation lists {part.notebook}"

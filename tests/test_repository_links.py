"""Links back to the repository: built with GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_SHA,
pages link to their files at that commit, edits go to main and the notebook opens in Colab;
built without them, every link stays inside the site."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup, Tag
from mkdocs.utils.meta import get_data

from conftest import made_once
from recorder.project.config import Part, Project
from recorder.project.directives import Example, Figure, parse
from recorder.project.repository import VARIABLES, Repository, RepositoryError, from_environment, missing
from support import ROOT, offline_env
from test_site_security import external_fetches

SERVER, NAME, COMMIT = "https://github.com", "example/gpt2-explained", "0123456789abcdef" * 2 + "01234567"
LINKED = dict(zip(VARIABLES, (SERVER, NAME, COMMIT), strict=True))
REPOSITORY = f"{SERVER}/{NAME}"
NOTEBOOK = "notebooks/a-part.ipynb"  # any notebook: the functions only join its path into URLs
PARTS = Project.load(ROOT).parts()
# Each Markdown page by the file the build writes for it.
PAGES = {
    ("index.html" if path.stem == "index" else f"{path.stem}/index.html"): path.name
    for path in sorted((ROOT / "docs").glob("*.md"))
}


def test_all_three_variables_name_the_repository_at_that_commit() -> None:
    repository = from_environment({**LINKED, "HOME": "/root"})
    assert repository == Repository(SERVER, NAME, COMMIT)
    assert repository.url == REPOSITORY
    assert repository.at_commit("snippets/a-part/a_snippet.py") == (
        f"{REPOSITORY}/blob/{COMMIT}/snippets/a-part/a_snippet.py"
    )
    assert repository.colab(f"docs/{NOTEBOOK}") == (
        f"https://colab.research.google.com/github/{NAME}/blob/{COMMIT}/docs/{NOTEBOOK}"
    )


def test_colab_is_offered_only_for_github_com() -> None:
    repository = from_environment({**LINKED, "GITHUB_SERVER_URL": "https://git.example.org"})
    assert repository is not None and repository.url == f"https://git.example.org/{NAME}"
    assert repository.colab(f"docs/{NOTEBOOK}") is None


@pytest.mark.parametrize(
    "given", [(), ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY"), ("GITHUB_REPOSITORY",), ("GITHUB_SHA",)]
)
def test_some_of_the_variables_count_as_none(given: tuple[str, ...]) -> None:
    environ = {name: LINKED[name] for name in given}
    assert from_environment(environ) is None
    expected_missing = [name for name in VARIABLES if name not in given] if given else []
    assert missing(environ) == expected_missing
    assert from_environment({**environ, "GITHUB_SHA": ""}) is None, "an empty variable is an unset one"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("GITHUB_SERVER_URL", "github.com"),
        ("GITHUB_SERVER_URL", "https://github.com/"),
        ("GITHUB_REPOSITORY", "gpt2-explained"),
        ("GITHUB_REPOSITORY", 'example/"><script>'),
        ("GITHUB_SHA", "main"),
        ("GITHUB_SHA", COMMIT[:7]),
    ],
)
def test_a_malformed_variable_is_an_error_naming_it_and_the_fix(variable: str, value: str) -> None:
    with pytest.raises(RepositoryError) as error:
        from_environment({**LINKED, variable: value})
    assert f"{variable}={value!r}" in str(error.value)
    assert "unset GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_SHA" in str(error.value)


def test_the_publish_workflow_builds_with_the_repository_location() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "publish.yml").read_text(encoding="utf-8"))
    build = next(
        step
        for step in workflow["jobs"]["build"]["steps"]
        if step.get("run") == ".venv/bin/python -m mkdocs build --strict"
    )
    assert {name: build["env"][name] for name in VARIABLES} == {
        "GITHUB_SERVER_URL": "${{ github.server_url }}",
        "GITHUB_REPOSITORY": "${{ github.repository }}",
        "GITHUB_SHA": "${{ github.sha }}",
    }


@pytest.fixture(scope="module")
def linked_site(shared_folder: Path) -> Path:
    """The project built by `mkdocs build --strict` where GitHub Actions would build it, once per run."""

    def build_as_github_actions_would(folder: Path) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
            cwd=ROOT,
            env=offline_env(**LINKED),
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr

    return made_once(shared_folder, "linked-site", build_as_github_actions_would)


@pytest.fixture(scope="module")
def local_site(built_site: Path) -> Path:
    """The project built without the variables (conftest removes them from the tests' environment)."""
    return built_site


def soup(site: Path, page: str) -> BeautifulSoup:
    return BeautifulSoup((site / page).read_text(encoding="utf-8"), "html.parser")


def actions(document: BeautifulSoup) -> dict[str, str]:
    """The page's edit and view actions, by title, with their links."""
    return {
        link["title"]: link["href"]
        for link in document.select("a.md-content__button[title]")
        if link["title"] in ("Edit this page", "View source of this page")
    }


def source_links(document: BeautifulSoup) -> dict[str, Tag]:
    """Each output's or figure's "Source" link, by the snippet that printed it."""
    links = {}
    for line in document.select(".provenance"):
        block = line.find_parent(attrs={"data-snippet": True})
        assert block is not None and block["data-snippet"] not in links
        links[block["data-snippet"]] = line.find_all("a")[-1]
    return links


def shown_snippets(page: str) -> set[str]:
    """The snippets whose output `docs/page` shows, by its example and figure directives."""
    markdown = get_data((ROOT / "docs" / page).read_text(encoding="utf-8"))[0]
    return {directive.name for directive in parse(markdown) if isinstance(directive, Example | Figure)}


@pytest.mark.slow
@pytest.mark.parametrize(("built_page", "source"), sorted(PAGES.items()))
def test_each_page_offers_edit_on_main_and_view_at_the_built_commit(
    linked_site: Path, built_page: str, source: str
) -> None:
    assert actions(soup(linked_site, built_page)) == {
        "Edit this page": f"{REPOSITORY}/edit/main/docs/{source}",
        "View source of this page": f"{REPOSITORY}/blob/{COMMIT}/docs/{source}",
    }


@pytest.mark.slow
@pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)
def test_a_part_s_notebook_page_offers_its_file_and_colab_but_no_edit(linked_site: Path, part: Part) -> None:
    document = soup(linked_site, f"{part.notebook.removesuffix('.ipynb')}/index.html")
    assert actions(document) == {"View source of this page": f"{REPOSITORY}/blob/{COMMIT}/docs/{part.notebook}"}
    download = document.select_one("a[download]")
    colab = document.select_one('a[title="Open in Colab"]')
    assert download is not None and colab is not None
    assert download["href"] == part.notebook.rpartition("/")[2]
    assert colab["href"] == f"https://colab.research.google.com/github/{NAME}/blob/{COMMIT}/docs/{part.notebook}"
    assert colab.parent is download.parent, "Colab is offered beside the download"
    assert colab.find("svg") is not None and colab.find("img") is None, "its icon is inline"


@pytest.mark.slow
def test_each_output_links_its_snippet_at_the_built_commit(linked_site: Path) -> None:
    for built_page, source in PAGES.items():
        links = source_links(soup(linked_site, built_page))
        assert set(links) == shown_snippets(source), built_page
        for name, link in links.items():
            assert link["href"] == f"{REPOSITORY}/blob/{COMMIT}/snippets/{name}.py"
            assert link.get_text() == f"snippets/{name}.py"
    assert sum(map(len, map(shown_snippets, PAGES.values()))) > 0


@pytest.mark.slow
def test_the_linked_site_still_fetches_nothing_from_other_hosts(linked_site: Path) -> None:
    header = soup(linked_site, "index.html").select_one(".md-header a.md-source")
    assert header is not None and header["href"] == REPOSITORY
    assert external_fetches(linked_site) == []


@pytest.mark.slow
def test_without_the_variables_sources_link_to_the_copies_inside_the_site(local_site: Path) -> None:
    for built_page, source in PAGES.items():
        links = source_links(soup(local_site, built_page))
        assert set(links) == shown_snippets(source), built_page
        for name, link in links.items():
            copy = (local_site / built_page).parent / link["href"]
            assert copy.resolve() == (local_site / "generated" / "snippets" / f"{name}.py").resolve()
            assert copy.read_bytes() == (ROOT / "snippets" / f"{name}.py").read_bytes()


@pytest.mark.slow
def test_without_the_variables_nothing_links_to_the_repository(local_site: Path) -> None:
    pages = sorted(local_site.rglob("*.html"))
    assert {page.relative_to(local_site).as_posix() for page in pages} >= set(PAGES)
    for page in pages:
        document = soup(local_site, page.relative_to(local_site).as_posix())
        assert actions(document) == {}, page
        assert document.select('a[title="Open in Colab"], .md-source') == [], page
        elsewhere = [
            value
            for element in document.find_all(True)
            for value in element.attrs.values()
            if isinstance(value, str) and re.search(r"github\.com|colab\.research", value)
        ]
        assert elsewhere == [], page

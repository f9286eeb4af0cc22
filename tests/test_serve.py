"""The live preview keeps serving a page whose snippet changed, marking its output stale;
a build of the same project refuses it."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from mkdocs.utils.meta import get_data

from recorder.record.project import Part, Project
from recorder.directives import Example, parse
from support import build, offline_env

# How long the preview may take to start or to rebuild before the test gives up.
PATIENCE_SECONDS = 120


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(project: Path, log: Path) -> Iterator[str]:
    """`mkdocs serve --strict` in `project`, as `make serve` runs it; yields the site's URL."""
    address = f"127.0.0.1:{free_port()}"
    with log.open("w") as stream:
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--strict", "--dev-addr", address],
            cwd=project, env=offline_env(), stdout=stream, stderr=subprocess.STDOUT,
        )
    try:
        yield f"http://{address}/"
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def page_when(url: str, ready: Callable[[BeautifulSoup], bool], log: Path) -> BeautifulSoup:
    """The served page, once `ready` holds for it (the server starts and rebuilds in the background)."""
    deadline = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                page = BeautifulSoup(response.read(), "html.parser")
        except OSError:
            page = None
        if page is not None and ready(page):
            return page
        time.sleep(0.3)
    pytest.fail(f"the preview never served the expected page at {url}; its log:\n{log.read_text()}")


def stale_warnings(page: BeautifulSoup) -> dict[str, str]:
    """Snippet name -> text of the stale warning on its output block."""
    return {
        block["data-snippet"]: warning.get_text()
        for block in page.select("div.recorded-output")
        if (warning := block.select_one(".recorded-output__stale")) is not None
    }


def first_example(project: Path) -> tuple[Part, Example]:
    """The first part's first example: a snippet whose output its page shows."""
    for part in Project.load(project).parts():
        markdown = get_data((project / "docs" / part.page).read_text(encoding="utf-8"))[0]
        examples = [directive for directive in parse(markdown) if isinstance(directive, Example)]
        if examples:
            return part, examples[0]
    pytest.fail("no part's page shows an example")


@pytest.mark.slow
def test_preview_marks_a_changed_snippet_stale_while_the_build_fails(run, project: Path, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    part, example = first_example(project)
    snippet = project / "snippets" / example.file
    recorded = (project / "outputs" / f"{example.name}.txt").read_text(encoding="utf-8")
    with serving(project, log) as url:
        page = f"{url}{part.name}/"
        fresh = page_when(page, lambda page: bool(page.select("div.recorded-output")), log)
        assert stale_warnings(fresh) == {}

        snippet.write_text(snippet.read_text(encoding="utf-8") + "# edited while the preview runs\n", encoding="utf-8")
        stale = page_when(page, lambda page: bool(stale_warnings(page)), log)
        assert stale_warnings(stale) == {
            example.name: f"Stale output. snippets/{example.file} changed since its output was recorded. "
                          "Run `make record` and commit the updated outputs/."
        }
        # The recorded output is still shown, under its warning.
        shown = stale.select_one(f'div[data-snippet="{example.name}"] pre').get_text()
        assert shown.strip() == recorded.strip()

    result = build(project)
    assert result.returncode != 0
    assert f"snippets/{example.file} changed since its output was recorded" in result.stderr

"""The live preview, under MkDocs or Zensical, reports the project's message when a snippet changes and keeps
serving the page as it was, its code beside the output that code printed: never new code beside an old output."""

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

from recorder.directives import Example, parse
from recorder.record.project import Part, Project
from support import ZENSICAL, offline_env

# How long the preview may take to start or to rebuild before the test gives up.
PATIENCE_SECONDS = 120


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SERVE = {  # each engine's preview, as `make serve` runs MkDocs'
    "mkdocs": lambda address: [sys.executable, "-m", "mkdocs", "serve", "--strict", "--dev-addr", address],
    "zensical": lambda address: [
        ZENSICAL,
        "serve",
        "--strict",
        "--dev-addr",
        address,
    ],
}


@contextmanager
def serving(project: Path, log: Path, engine: str) -> Iterator[str]:
    """The engine's preview of `project`, from its folder; yields the site's URL."""
    address = f"127.0.0.1:{free_port()}"
    with log.open("w") as stream:
        server = subprocess.Popen(
            SERVE[engine](address), cwd=project, env=offline_env(), stdout=stream, stderr=subprocess.STDOUT
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


def page_now(url: str) -> BeautifulSoup | None:
    """The served page as it is now, if the preview serves it."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return BeautifulSoup(response.read(), "html.parser")
    except OSError:
        return None


def log_when(log: Path, said: str) -> str:
    """The preview's log, once it holds `said`."""
    deadline = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < deadline:
        if said in (text := log.read_text(errors="replace")):
            return text
        time.sleep(0.3)
    pytest.fail(f"the preview never said {said!r}; its log:\n{log.read_text(errors='replace')}")


def shown(page: BeautifulSoup, example: Example) -> tuple[str, str]:
    """The code and the output the page shows for `example`."""
    code = next(
        block
        for block in page.select("div.highlight")
        if (title := block.select_one(".filename")) and title.get_text() == f"snippets/{example.file}"
    )
    output = page.select_one(f'div[data-snippet="{example.name}"] pre')
    return code.select_one("pre").get_text(), output.get_text()


def first_example(project: Path) -> tuple[Part, Example]:
    """The first part's first example: a snippet whose output its page shows."""
    for part in Project.load(project).parts():
        markdown = Project.load(project).page(part.page)[0]
        examples = [directive for directive in parse(markdown) if isinstance(directive, Example)]
        if examples:
            return part, examples[0]
    pytest.fail("no part's page shows an example")


@pytest.mark.slow
@pytest.mark.parametrize("engine", SERVE)
def test_the_preview_says_why_a_changed_snippet_stops_it_and_serves_no_new_code_beside_an_old_output(
    project: Path, tmp_path: Path, engine: str
) -> None:
    log = tmp_path / "serve.log"
    part, example = first_example(project)
    snippet = project / "snippets" / example.file
    original = snippet.read_text(encoding="utf-8")
    marker = f"# --8<-- [start:{example.section}]\n"
    assert marker in original, f"{example.file} has no section {example.section}"
    with serving(project, log, engine) as url:
        page = f"{url}{part.name}/"
        before = shown(page_when(page, lambda page: bool(page.select("div.recorded-output")), log), example)

        snippet.write_text(original.replace(marker, f"{marker}edited_while_previewing = True\n"), encoding="utf-8")
        said = log_when(log, "changed since its output was recorded")
        assert f"snippets/{example.file} changed since its output was recorded" in said
        assert "Traceback" not in said
        if (served := page_now(page)) is not None:  # Zensical serves nothing until the state is publishable
            assert shown(served, example) == before, "the preview shows new code beside the old output"

        snippet.write_text(original, encoding="utf-8")  # undone: the preview builds again
        if engine == "zensical":  # which, once its configuration failed, watches only its own files until then
            config = project / "mkdocs.yml"
            config.write_bytes(config.read_bytes())
        page_when(page, lambda page: shown(page, example) == before, log)

"""The live preview. `make serve` (`python -m recorder serve`) records what an edit made stale, then rebuilds: the page
shows a snippet's new output with no command typed, and an edit it cannot record (a snippet that needs GPT-2's
weights) is said in the terminal and on the page, with no request left waiting. `zensical serve` reports the
project's message when a snippet changes and serves nothing until the state can be published again."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from recorder.project.config import Part, Project
from recorder.project.directives import Example, parse
from recorder.project.manifest import Origin
from recorder.project.snippets import discover
from recorder.project.values import templates
from recorder.tools import serve
from support import ZENSICAL, offline_env

# How long the preview may take to start, record or rebuild before the test gives up: generous, as the machine may be
# busy with other tests. Not a timing assertion.
PATIENCE_SECONDS = 180
# What one request may wait, however busy the machine: MkDocs' own `serve` holds a request for as long as its
# builds fail, which the preview must never do.
REQUEST_SECONDS = 20


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SERVE = {  # each engine's preview, as `make serve` runs the project's
    "recorder": lambda address: [sys.executable, "-m", "recorder", "serve", "--dev-addr", address],
    "zensical": lambda address: [ZENSICAL, "serve", "--dev-addr", address],
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


def page_now(url: str) -> BeautifulSoup | None:
    """The served page as it is now; None while no server answers. A request that waits too long fails the test."""
    try:
        with urllib.request.urlopen(url, timeout=REQUEST_SECONDS) as response:
            return BeautifulSoup(response.read(), "html.parser")
    except urllib.error.HTTPError as error:  # a page the server sends with an error status: still its page
        return BeautifulSoup(error.read(), "html.parser")
    except TimeoutError:
        pytest.fail(f"a request to {url} waited more than {REQUEST_SECONDS} s")
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError):
            pytest.fail(f"a request to {url} waited more than {REQUEST_SECONDS} s")
        return None  # not serving (yet)


def page_when(url: str, ready: Callable[[BeautifulSoup], bool], log: Path) -> BeautifulSoup:
    """The served page, once `ready` holds for it (the server starts, records and rebuilds in the background)."""
    deadline = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < deadline:
        if (page := page_now(url)) is not None and ready(page):
            return page
        time.sleep(0.3)
    pytest.fail(f"the preview never served the expected page at {url}; its log:\n{log.read_text(errors='replace')}")


def log_when(log: Path, said: str) -> str:
    """The preview's log, once it holds `said`."""
    deadline = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < deadline:
        if said in (text := log.read_text(errors="replace")):
            return text
        time.sleep(0.3)
    pytest.fail(f"the preview never said {said!r}; its log:\n{log.read_text(errors='replace')}")


def shown(page: BeautifulSoup, example: Example) -> tuple[str, str]:
    """The code and the output (or what stands in its place) the page shows for `example`; empty where it shows no
    code for it (a page of a preview being rebuilt, say)."""
    code = next(
        (
            block
            for block in page.select("div.highlight")
            if (title := block.select_one(".filename")) and title.get_text() == f"snippets/{example.file}"
        ),
        None,
    )
    if code is None:
        return "", ""
    output = page.select_one(f'div[data-snippet="{example.name}"] pre')
    in_place = code.find_next_sibling(class_="recorded-problem") if output is None else output
    return code.select_one("pre").get_text(), in_place.get_text() if in_place is not None else ""


def an_example(project: Path, runs_on: Origin) -> tuple[Part, Example]:
    """A part's example shown with a section, whose snippet runs on `runs_on` of GPT-2 and whose output no template
    reads (an edit of what it prints changes no value)."""
    snippets, loaded = discover(project), Project.load(project)
    for part in loaded.parts():
        read = {template.output for template in templates(project, part.name)}
        for directive in parse(loaded.page(part.page)[0]):
            if (
                isinstance(directive, Example)
                and directive.section
                and snippets[directive.name].runs_on is runs_on
                and directive.name.partition("/")[2] not in read
            ):
                return part, directive
    pytest.fail(f"no page shows an example running on {runs_on} whose output no template reads")


def printing(project: Path, example: Example, text: str) -> str:
    """Make the example's snippet print `text` as its section's last line; returns its source as it was."""
    snippet = project / "snippets" / example.file
    original = snippet.read_text(encoding="utf-8")
    end = f"# --8<-- [end:{example.section}]\n"
    assert end in original, f"{example.file} has no section {example.section}"
    snippet.write_text(original.replace(end, f"print({text!r})\n{end}"), encoding="utf-8")
    return original


def test_the_preview_is_told_of_an_edit_of_an_input_and_of_nothing_else(tmp_path: Path) -> None:
    """Every refresh and build reads each input: were a read an edit, one edit would refresh the preview forever.
    The project lies in a folder named as one the preview ignores inside it."""
    project = tmp_path / "__pycache__" / "project"
    snippet = project / "snippets" / "part" / "example.py"
    generated = project / "docs" / "generated" / "copy.txt"
    for path in (snippet, generated, project / "mkdocs.yml"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("written before the preview starts\n", encoding="utf-8")
    preview = serve.Preview(project / "mkdocs.yml", 30, tmp_path, "127.0.0.1:8000")
    observer = serve.watcher(preview, project / "docs")
    try:
        snippet.read_bytes()
        generated.write_text("the state's own file\n", encoding="utf-8")
        (project / "README.md").write_text("not read by the state\n", encoding="utf-8")
        (snippet.parent / "__pycache__").mkdir()
        (snippet.parent / "__pycache__" / "example.cpython-311.pyc").write_bytes(b"bytecode")
        assert not preview.changed.wait(1), (
            "a read, the state's own files, bytecode and the project's other files are no edits"
        )
        # Staged as store.replace_file and most editors save a file: written beside it, then moved into place.
        staged = [(path.with_name(f".{path.name}.tmp"), path) for path in (project / "mkdocs.yml", snippet)]
        for temporary, path in staged:
            temporary.write_bytes(path.read_bytes())
        assert not preview.changed.wait(1), "a file written to be moved into place is no edit yet"
        for temporary, path in staged:
            temporary.replace(path)
            assert preview.changed.wait(10), f"{path.name} moved into place is an edit"
            preview.changed.clear()
        snippet.write_bytes(snippet.read_bytes())
        assert preview.changed.wait(10), "a snippet written is an edit"
    finally:
        observer.stop()
        observer.join()


@pytest.mark.slow
def test_the_preview_records_an_edit_and_says_on_the_page_why_it_cannot_record_another(
    project: Path, tmp_path: Path
) -> None:
    """Two snippets edited at once: one is recorded and shown, the other needs GPT-2's weights, and its page says why
    it is not, in place of its old output and at the top."""
    log = tmp_path / "serve.log"
    part, example = an_example(project, Origin.NO_MODEL)
    weights_part, weights_example = an_example(project, Origin.WEIGHTS)
    with serving(project, log, "recorder") as url:
        page = f"{url}{part.name}/"
        page_when(page, lambda served: bool(served.select("div.recorded-output")), log)

        printing(project, example, "printed since the preview started")
        printing(project, weights_example, "printed where GPT-2's weights are out of reach")

        code, output = shown(page_when(page, lambda served: "printed since" in shown(served, example)[1], log), example)
        assert output.endswith("printed since the preview started"), "recorded, with no command typed"
        assert "printed since the preview started" in code
        served = page_when(
            f"{url}{weights_part.name}/", lambda served: "out of reach" in shown(served, weights_example)[0], log
        )
        said = served.select_one(".recorded-preview").get_text(" ")
        assert f"snippets/{weights_example.file} could not be recorded" in said and "make record PUBLISHED=1" in said
        assert f"snippets/{weights_example.file} changed since its output was recorded" in said
        assert "changed since this output was recorded" in shown(served, weights_example)[1], (
            "never new code beside an old output"
        )
        assert f"snippets/{weights_example.file} could not be recorded" in log_when(log, "could not be recorded")
        assert "Traceback" not in log.read_text(errors="replace")


@pytest.mark.slow
def test_zensical_serve_says_why_a_changed_snippet_stops_it_and_serves_no_new_code_beside_an_old_output(
    project: Path, tmp_path: Path
) -> None:
    """Zensical's own preview runs neither the record step nor the plugin: it refuses the state, as its builds do."""
    log = tmp_path / "serve.log"
    part, example = an_example(project, Origin.NO_MODEL)
    with serving(project, log, "zensical") as url:
        page = f"{url}{part.name}/"
        before = shown(page_when(page, lambda served: bool(served.select("div.recorded-output")), log), example)

        original = printing(project, example, "printed since the preview started")
        said = log_when(log, "changed since its output was recorded")
        assert f"snippets/{example.file} changed since its output was recorded" in said
        assert "Traceback" not in said
        if (served := page_now(page)) is not None:
            assert shown(served, example) == before, "the preview shows new code beside the old output"

        (project / "snippets" / example.file).write_text(original, encoding="utf-8")  # undone
        config = project / "mkdocs.yml"  # which, once its configuration failed, is all Zensical watches
        config.write_bytes(config.read_bytes())
        page_when(page, lambda served: shown(served, example) == before, log)

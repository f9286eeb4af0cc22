"""`python -m recorder serve` (`make serve`): a live preview that records what an edit made stale.

MkDocs' own `serve` rebuilds on every change but never records, and holds every request after a failed build until
one succeeds, so an edited snippet left the browser waiting. Here a watcher sees every edit of what the state reads
(a snippet, a page, a `values.yml`, `mkdocs.yml`, ...), runs the record step where the state says `make record`
would fix something (in a process of its own, as `make record` runs: the hub's libraries read HF_HUB_OFFLINE once,
and a snippet cannot break the preview), and only then asks MkDocs' live-reload server for a build. The pages stay
served while the record step runs. The build renders a state that every other build refuses (the extension's
`preview` option): every page opens with its problems and what the record step said, which the terminal shows too;
and a build that fails all the same serves a page saying why, never a request left waiting.

It uses MkDocs' public entry points as `mkdocs serve` does (`load_config`, `build`, `LiveReloadServer`); the server
watches a file the watcher touches when a build is due, and the theme's and the docs folder's other files.
"""

from __future__ import annotations

import logging
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import MkDocsException
from mkdocs.livereload import LiveReloadServer
from watchdog.events import (
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    RegexMatchingEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from recorder.check import state
from recorder.engines import config as engine_config
from recorder.project.config import GENERATED, NOTEBOOKS_DIR, REQUIREMENTS, Project
from recorder.project.errors import RecorderError
from recorder.render.conversion import EXTENSION
from recorder.render.html import visible

log = logging.getLogger("mkdocs.recorder.preview")
QUIET_SECONDS = 0.3  # an editor's save is several events, a record run many: act once they stop
# Inside a folder watched, no edit of an input: what the state skips, and a file written to replace another
# (`.NAME.tmp`, as store.replace_file stages it), until it is moved into place.
_NOT_EDITS = "/(.*/)?(" + "|".join(f"{re.escape(name)}(/.*)?" for name in sorted(state.SKIPPED)) + r"|\.[^/]*\.tmp)$"
# The events that change a file; not those of reading one, which every refresh and build does to every input.
_CHANGES = [FileCreatedEvent, FileDeletedEvent, FileModifiedEvent, FileMovedEvent]


class Preview:
    """What the preview keeps between builds: what the record step said when it last failed, what the last build was
    asked for, and the page served while the last build failed. It is the live-reload server's builder."""

    def __init__(self, config_file: Path, timeout: float, folder: Path, address: str) -> None:
        self.config_file, self.timeout, self.address = config_file, timeout, address
        self.trigger, self.site_dir = folder / "build-due", folder / "site"  # the server watches the trigger
        self.note = ""  # what the record step said when it last failed on this state; "" when it did not
        self.tried = ""  # the digest of the state the record step last ran on
        self.asked = ("", "")  # the digest and the note of the last build asked for
        self.failure: bytes | None = None  # the page served while the last build failed
        self.lock = threading.Lock()  # a refresh and a build never run at once: both read and write the state
        self.changed = threading.Event()

    def refresh(self) -> None:
        """Record what is stale, unless the record step ran on this very state already; then ask for a build if the
        state or what the record step said changed since the last."""
        with self.lock:
            try:
                now = self._recorded(state.current(Project.load(self.config_file.parent, self.config_file)))
            except RecorderError as error:  # the configuration cannot be read: the build says why
                now, self.note = None, str(error)
            asked = (now.digest if now else "", self.note)
            if asked != self.asked:
                self.asked = asked
                self.trigger.write_text(f"{asked}\n", encoding="utf-8")

    def _recorded(self, now: state.State) -> state.State:
        """The state once the record step ran on it, where it has something to record."""
        if not now.recordable:
            self.note = ""
            return now
        if now.digest == self.tried:
            return now
        self.tried = now.digest
        log.info("Recording what the change made stale")
        root = self.config_file.parent
        command = [sys.executable, "-m", "recorder", "--root", str(root), "record", "--timeout", str(self.timeout)]
        ran = subprocess.run(command, stderr=subprocess.PIPE, text=True)
        sys.stderr.write(ran.stderr)  # the terminal shows what it said, as `make record` would
        self.note = _error(ran)
        return state.current(Project.load(root, self.config_file))

    def watch(self) -> None:
        """Refresh after each edit, once its events stop: forever, in a thread of its own."""
        while True:
            self.changed.wait()
            while self.changed.wait(QUIET_SECONDS):
                self.changed.clear()
            self.refresh()

    def config(self) -> MkDocsConfig:
        """The configuration as mkdocs.yml says now, with the preview's options; MkDocs' warnings are said, and a
        state that every other build refuses is shown, rather than stopping the build."""
        with engine_config.reading(self.config_file, preview=True):
            config = load_config(str(self.config_file), site_dir=str(self.site_dir), dev_addr=self.address)
        config.strict, config.site_url = False, f"http://{self.address}/"
        config.mdx_configs.setdefault(EXTENSION, {}).update(preview=True, preview_note=self.note)
        return config

    def build(self, config: MkDocsConfig | None = None) -> None:
        """A build the live-reload server asks for; one that fails serves a page saying why in place of every page."""
        with self.lock:
            try:
                build(config or self.config(), serve_url=f"http://{self.address}/")
                self.failure = None
            except Exception as error:  # whatever it is: served as the page, or requests would wait for a next build
                message = str(error) if isinstance(error, MkDocsException | RecorderError) else traceback.format_exc()
                log.error("The preview cannot build the site: %s", message)
                self.failure = _failure_page(message)
                shutil.rmtree(self.site_dir, ignore_errors=True)
                self.site_dir.mkdir()

    def page(self, code: int) -> bytes | None:
        """What the server sends for a missing file: the failure's page, else the site's own."""
        if self.failure is not None:
            return self.failure
        page = self.site_dir / f"{code}.html"
        return page.read_bytes() if page.is_file() else None


def serve(config_file: Path, address: str, timeout: float) -> None:
    """Record what is stale, build the site and serve it on `address`, then record and rebuild on each edit."""
    # MkDocs' messages, and the preview's, on stderr, as `mkdocs serve` prints them.
    logging.basicConfig(format="%(levelname)-8s-  %(message)s")
    logging.getLogger("mkdocs").setLevel(logging.INFO)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stopped as by Ctrl-C: its folder is removed
    # A folder of the preview's own, for the built site and the file its server watches.
    with tempfile.TemporaryDirectory(prefix="recorder-preview-", ignore_cleanup_errors=True) as folder:
        preview = Preview(config_file.resolve(), timeout, Path(folder), address)
        preview.refresh()
        try:
            config = preview.config()
        except MkDocsException as error:  # nothing to serve, nor to watch yet
            raise RecorderError(f"{config_file.name} cannot be read: {error}") from None
        config.plugins.on_startup(command="serve", dirty=False)
        host, port = address.rsplit(":", 1)
        server = LiveReloadServer(builder=preview.build, host=host, port=int(port), root=str(preview.site_dir))
        server.error_handler = preview.page
        preview.build(config)
        for path in [preview.trigger, *_other_files(config)]:
            server.watch(str(path))
        observer = watcher(preview, Path(config.docs_dir))
        threading.Thread(target=preview.watch, daemon=True).start()
        try:
            server.serve()
        except KeyboardInterrupt:
            log.info("Shutting down...")
        finally:
            server.shutdown()
            observer.stop()
            config.plugins.on_shutdown()


def watcher(preview: Preview, docs_dir: Path) -> BaseObserver:
    """The watcher of the files the state reads (`state.input_folders`, and of the project's folder mkdocs.yml and
    requirements.txt only), but not the record step's own, started. It tells the preview of each edit."""
    observer, root = Observer(), preview.config_file.parent
    top = RegexMatchingEventHandler(
        regexes=[f"{re.escape(str(path))}$" for path in (preview.config_file, root / REQUIREMENTS)],
        ignore_directories=True,
        case_sensitive=True,
    )
    top.on_any_event = lambda event: preview.changed.set()
    observer.schedule(top, str(root), recursive=False, event_filter=_CHANGES)
    for folder, pattern in state.input_folders(root, docs_dir):
        if folder.is_dir():  # as deep as the state reads: the docs folder's pages, not generated/ below them
            # An event counts unless each of its paths is ignored: a file moved into place is an edit of its target.
            inputs = RegexMatchingEventHandler(
                ignore_regexes=[re.escape(str(folder)) + _NOT_EDITS],
                ignore_policy="all",
                ignore_directories=True,
                case_sensitive=True,
            )
            inputs.on_any_event = top.on_any_event
            observer.schedule(inputs, str(folder), recursive="**" in pattern, event_filter=_CHANGES)
    observer.start()
    return observer


def _other_files(config: MkDocsConfig) -> list[Path]:
    """What the server watches itself, no record ever needed: the theme's overrides and the docs folder's assets."""
    docs = Path(config.docs_dir)
    overrides = [Path(config.theme.custom_dir)] if config.theme.custom_dir else []
    return overrides + [
        path for path in docs.iterdir() if path.is_dir() and path.name not in (GENERATED, NOTEBOOKS_DIR)
    ]


def _error(ran: subprocess.CompletedProcess[str]) -> str:
    """What a failed record run said (its error, without the prefix); "" for one that succeeded."""
    if ran.returncode == 0:
        return ""
    said = re.search(r"^error: ", ran.stderr, re.M)
    return (ran.stderr[said.end() :] if said else ran.stderr).strip() or f"exited with status {ran.returncode}"


def _failure_page(message: str) -> bytes:
    """A page in place of every page while the site cannot be built: why, and it reloads itself until it can."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">'
        "<title>The preview cannot build the site</title></head><body><h1>The preview cannot build the site</h1>"
        f"<pre>{visible(message)}</pre><p>It builds again when you save a change; this page reloads itself.</p>"
        "</body></html>"
    ).encode()

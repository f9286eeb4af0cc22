"""A stand-in for the Hugging Face hub on 127.0.0.1 that serves one snapshot at the pinned revision.

It answers what huggingface_hub asks the hub when `from_pretrained(MODEL_ID,
revision=REVISION)` downloads into an empty cache: `HEAD`/`GET` of
`/<model>/resolve/<revision>/<file>` with the headers the hub sends, a 404
with the hub's `X-Error-Code` for a missing file or revision, and a 404 for
the tree listings (tolerated by transformers). Every request is logged in
`requests` so a test can prove the download went here and nowhere else.

Modes: `healthy`; `revision-missing` (the hub does not know the pinned
revision); `drops-weights` (every `GET` of the weights stops after BREAK_AT
bytes and the connection is closed); `silent` (it accepts each connection and
reads the request, then never answers, until the server shuts down). Like many
proxies it ignores `Range`, so a resumed download starts over each time and
never gets past the break.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Literal
from urllib.parse import unquote, urlsplit

from recorder.project.gpt2 import MODEL_ID, REVISION, WEIGHTS_FILE
from recorder.project.snippets import sha256_file

Mode = Literal["healthy", "revision-missing", "drops-weights", "silent"]
RESOLVE = re.compile(rf"/{re.escape(MODEL_ID)}/resolve/(?P<revision>[^/]+)/(?P<file>.+)")
TREE = re.compile(rf"/api/models/{re.escape(MODEL_ID)}/tree/(?P<revision>[^/?]+).*")
# Past huggingface_hub's first two 10 MiB chunks: each broken attempt keeps data, which resets the
# library's own count of retries; less of the file than half of it, so each attempt takes less time.
BREAK_AT = 25 * 2**20


@dataclass(frozen=True)
class Snapshot:
    """The files the stand-in hub serves, with the sha256 it gives as their ETag."""

    folder: Path
    etags: dict[str, str]

    @classmethod
    def of(cls, folder: Path) -> Snapshot:
        return cls(folder, {path.name: sha256_file(path) for path in sorted(folder.iterdir()) if path.is_file()})


@dataclass
class StandInHub:
    """The server, in a thread while used as a context manager; `url` goes into HF_ENDPOINT."""

    snapshot: Snapshot
    mode: Mode = "healthy"
    requests: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.closing = threading.Event()  # set on exit: a `silent` handler waits for it, then hangs up

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def asked_for(self, method: str, file: str) -> int:
        """How many `method` requests for one file of the snapshot the server received."""
        return sum(
            1 for asked, path in self.requests if asked == method and path == f"/{MODEL_ID}/resolve/{REVISION}/{file}"
        )

    def __enter__(self) -> StandInHub:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def _handler_for(hub: StandInHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the hub

        def do_HEAD(self) -> None:
            self._answer(send_body=False)

        def do_GET(self) -> None:
            self._answer(send_body=True)

        def log_message(self, format: str, *args: object) -> None:
            pass  # the test reads `hub.requests` instead

        def _answer(self, *, send_body: bool) -> None:
            hub.requests.append((self.command, self.path))
            if hub.mode == "silent":
                hub.closing.wait()
                self.close_connection = True
                return
            path = unquote(urlsplit(self.path).path)
            asked = RESOLVE.fullmatch(path) or TREE.fullmatch(path)
            if asked is None:
                self._refuse("RepoNotFound")
            elif asked["revision"] != REVISION or hub.mode == "revision-missing":
                self._refuse("RevisionNotFound")
            elif asked.re is TREE or asked["file"] not in hub.snapshot.etags:
                self._refuse("EntryNotFound")
            else:
                self._send_file(asked["file"], send_body=send_body)

        def _refuse(self, code: str) -> None:
            self.send_response(404)
            self.send_header("X-Error-Code", code)
            if code == "EntryNotFound":
                self.send_header("X-Repo-Commit", REVISION)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _send_file(self, name: str, *, send_body: bool) -> None:
            path = hub.snapshot.folder / name
            size, etag = path.stat().st_size, f'"{hub.snapshot.etags[name]}"'
            self.send_response(200)
            self.send_header("X-Repo-Commit", REVISION)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", str(size))
            if name == WEIGHTS_FILE:  # stored with LFS on the hub
                self.send_header("X-Linked-Etag", etag)
                self.send_header("X-Linked-Size", str(size))
            self.end_headers()
            if not send_body:
                return
            breaks = hub.mode == "drops-weights" and name == WEIGHTS_FILE
            with path.open("rb") as file:
                self.connection.sendfile(file, 0, min(BREAK_AT, size // 2) if breaks else size)
            if breaks:
                self.close_connection = True

    return Handler

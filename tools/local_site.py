"""Serve a built site on 127.0.0.1 while a `with` block runs, text gzip-compressed as static hosts send it,
so that an audit measures the transfer sizes readers get."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache, partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

COMPRESSED_TYPES = ("text/", "application/javascript", "application/json", "image/svg+xml")


@lru_cache(maxsize=64)
def _compressed(path: Path, modified_ns: int) -> bytes:
    """A file's gzip body, made once per version of the file, as a static host keeps it: compressing GPT-2's
    vocab.json anew for each request took a few hundred milliseconds, which timings of the page then counted."""
    return gzip.compress(path.read_bytes(), mtime=0)


class _SiteHandler(SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path /= "index.html"
        kind = self.guess_type(str(path))
        accepted = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepted and path.is_file() and kind.startswith(COMPRESSED_TYPES)):
            return super().do_GET()
        body = _compressed(path, path.stat().st_mtime_ns)
        self.send_response(200)
        for header, value in {"Content-Type": kind, "Content-Encoding": "gzip", "Content-Length": len(body)}.items():
            self.send_header(header, str(value))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Requests are not news; errors still reach the client as status codes."""


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """Yield the base URL (ending in `/`) of `folder` served over HTTP on loopback, on a free port."""
    if not (folder / "index.html").is_file():
        raise FileNotFoundError(f"{folder}/index.html does not exist. Build the site first: `make site`.")
    with ThreadingHTTPServer(("127.0.0.1", 0), partial(_SiteHandler, directory=str(folder))) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield f"http://127.0.0.1:{server.server_port}/"
        finally:
            server.shutdown()  # returns once serve_forever has

"""Serve a built site on 127.0.0.1, on a free port, for as long as a `with` block runs.

Text is sent gzip-compressed to clients that accept it, as static hosts do,
so an audit measures the transfer sizes readers would get.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

COMPRESSED_TYPES = ("text/", "application/javascript", "application/json", "image/svg+xml")


class _SiteHandler(SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path /= "index.html"
        kind = self.guess_type(str(path))
        accepts_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts_gzip and path.is_file() and kind.startswith(COMPRESSED_TYPES)):
            super().do_GET()
            return
        body = gzip.compress(path.read_bytes(), mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Requests are not news; errors still reach the client as status codes."""


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """Yield the base URL (ending in `/`) of `folder` served over HTTP on loopback."""
    if not (folder / "index.html").is_file():
        raise FileNotFoundError(f"{folder}/index.html does not exist. Build the site first: `make site`.")
    handler = partial(_SiteHandler, directory=str(folder))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, name="local-site", daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_port}/"
        finally:
            server.shutdown()
            thread.join()

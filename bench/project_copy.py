"""The benchmark's throwaway copy of the project, recorded cold against the stand-in.

The stand-in has GPT-2's architecture but random weights, so the record
step's command line refuses it by sha256. Here the files loaded are hashed
as usual but not compared with the pins, and only a folder `make bench`
marked is accepted: nothing run from here can write the project's outputs/.
Either way the copy's manifest goes first, so that every snippet is stale.

    python -m bench.project_copy COPY           cold record: `make record` with every snippet stale
    python -m bench.project_copy COPY --build   cold make site: the same inside `mkdocs build --strict`
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import partial
from pathlib import Path

from recorder.errors import RecorderError
from recorder.pinned import MANIFEST_NAME, OUTPUTS_DIR

PROJECT = Path(__file__).resolve().parents[1]
MARKER = ".benchmark-copy"


class NotACopy(RecorderError):
    """A folder the benchmark may not record into; the message says why."""


def make(destination: Path) -> Path:
    """Copy the project as its working tree has it (tracked and new files, not ignored ones) and mark it."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=PROJECT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (PROJECT / name).is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(PROJECT / name, destination / name)
    (destination / MARKER).write_text("A throwaway copy made by `make bench`: its outputs come from a "
                                      "stand-in checkpoint.\n", encoding="utf-8")
    return destination


def require(root: Path) -> Path:
    """`root`, resolved, if it is a benchmark copy; never the project itself."""
    resolved = root.resolve()
    if resolved == PROJECT:
        raise NotACopy(f"{resolved} is the project itself: stand-in outputs never go into its "
                       f"outputs/. Run `make bench`, which records into a temporary copy.")
    if not (resolved / MARKER).is_file():
        raise NotACopy(f"{resolved} is not a copy made by the benchmark (it has no {MARKER}). "
                       "Run `make bench`, which makes its own temporary copy.")
    return resolved


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or argv[1:] not in ([], ["--build"]):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        root = require(Path(argv[0]))
        # Imported here, not above: `make bench` imports this module, and a child's peak memory
        # counts its parent's resident set, which the record step's imports would grow.
        from recorder.record import record

        (root / OUTPUTS_DIR / MANIFEST_NAME).unlink(missing_ok=True)
        if argv[1:]:  # as `make site` runs it: the plugin records what is stale, in the build's process
            from mkdocs.__main__ import cli

            from recorder import plugin

            plugin.record = partial(record, pinned_files=False)
            os.environ["RECORD_STALE"] = "true"
            os.chdir(root)
            cli(["build", "--strict"])  # exits with the build's status
        record(root, report=partial(print, flush=True), pinned_files=False)
    except RecorderError as error:  # NotACopy among them
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The benchmark's throwaway copy of the project, and `make record FORCE=1` in it against the stand-in.

The stand-in has GPT-2's architecture but random weights, so the record
step's command line refuses it by sha256. Here the weights are hashed as
usual but not compared with the pin, and only a folder `make` marked is
accepted: nothing run from here can write the project's outputs/.

    python -m bench.project_copy COPY [--build]   (--build: then build, as `make site` does)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import partial
from pathlib import Path

from recorder.errors import RecorderError

PROJECT = Path(__file__).resolve().parents[1]
MARKER = ".benchmark-copy"


class NotACopy(RecorderError):
    """A folder the benchmark may not record into; the message says why."""


def project_files() -> list[str]:
    """The project as its working tree has it: tracked and new files, not ignored ones."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=PROJECT, capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name and (PROJECT / name).is_file()]


def make(destination: Path) -> Path:
    """Copy the project into the new folder `destination` and mark it as the benchmark's.

    The copies date from the epoch: older than the venv's stamp, so `make` in the
    copy never reinstalls the venv (into which it would install the copy).
    """
    for name in project_files():
        (destination / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PROJECT / name, destination / name)
        os.utime(destination / name, (0, 0))
    (destination / MARKER).write_text(
        "A throwaway copy made by `make bench`: its outputs come from a stand-in checkpoint.\n",
        encoding="utf-8",
    )
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
    # Here, not above: `make bench` imports this module, and its children's peak memory
    # starts from its resident set, which the record step's imports (MkDocs among them) would grow.
    from recorder import site
    from recorder.record import record

    if len(argv) not in (1, 2) or argv[1:] not in ([], ["--build"]):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        root = require(Path(argv[0]))
        if argv[1:]:  # as `make site`: this records in a child, and builds once it has
            return site.record_then_build(root, [sys.executable, "-m", "bench.project_copy", str(root)])
        record(root, force=True, report=partial(print, flush=True), pinned_weights=False)
        site.say_recorded()
    except RecorderError as error:  # NotACopy among them
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

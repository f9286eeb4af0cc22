"""`make site` when something is stale: record it in a child, then build here, each on its own core.

The record step runs as a child process (`python -m recorder record ...`), while
this process gets MkDocs ready: imports MkDocs, its theme, plugins, extensions and
hook, and reads mkdocs.yml, none of which depends on the outputs. Once the child
has committed its outputs it says so, before it exits: Python then takes about
1.5 s to tear down torch, transformers and the model, and the build, run as
`mkdocs build --strict` would (drift guard included), goes on meanwhile. If the
record step fails or is interrupted, nothing is built: the outputs stay as the
record step leaves them, and site/ as it was.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

# The environment variable naming the file descriptor on which a record run says it succeeded.
RECORDED_FD = "RECORDER_RECORDED_FD"
RECORDED = "recorded\n"


def record_then_build(root: Path, record_command: Sequence[str]) -> int:
    """Run `record_command` here and, once it says it recorded, `mkdocs build --strict` in `root`.

    Returns the record step's exit status if it failed, else the build's, else 0.
    """
    said, say = os.pipe()
    recorder = subprocess.Popen(list(record_command), env={**os.environ, RECORDED_FD: str(say)}, pass_fds=(say,))
    os.close(say)
    os.chdir(root)  # as `mkdocs build` run in `root`: pymdownx.snippets reads paths from there
    # Ctrl-C reaches the child too: while it records, it alone stops, leaving the outputs consistent, and says so.
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _get_mkdocs_ready()
        with os.fdopen(said, encoding="utf-8") as words:
            recorded = words.read() == RECORDED  # returns when the child has said it, or has ended
    finally:
        signal.signal(signal.SIGINT, interrupt)
    if not recorded:
        ended = recorder.wait()
        return 128 - ended if ended < 0 else ended or 1  # killed by a signal: as a shell reports it
    try:
        status = _build()
    finally:
        recorder.wait()
    return status or recorder.returncode


def say_recorded() -> None:
    """In a record run that `record_then_build` started: say the outputs are committed."""
    if (fd := os.environ.pop(RECORDED_FD, None)) is not None:
        with os.fdopen(int(fd), "w", encoding="utf-8") as words:
            words.write(RECORDED)


def _get_mkdocs_ready() -> None:
    import mkdocs.__main__  # noqa: F401  (the command line `_build` runs)
    from mkdocs.config import load_config
    from mkdocs.exceptions import ConfigurationError

    try:
        load_config()  # imports what mkdocs.yml names; the configuration is read again to build
    except ConfigurationError:
        pass  # the build reports it, as `mkdocs build` does


def _build() -> int:
    from mkdocs.__main__ import cli

    try:
        cli.main(["build", "--strict"], prog_name="mkdocs")
    except SystemExit as exit_:  # how the command line ends, always
        return exit_.code if isinstance(exit_.code, int) else 1
    return 0

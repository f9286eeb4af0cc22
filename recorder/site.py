"""`make site` when something is stale: record it, then build, with MkDocs made ready meanwhile.

The build's first seconds go to importing MkDocs, its theme, plugins, extensions
and hook and to reading mkdocs.yml, none of which depends on the outputs. So a
child process does that on the other core while the snippets run, then waits.
Once the record step has succeeded, it is told to build and runs `mkdocs build
--strict` as the command line would, drift guard included. If the record step
fails or is interrupted, the child is stopped before it builds anything: the
outputs stay as the record step leaves them, and site/ as it was.

    python -m recorder.site   (the child; started by `record_then_build`)
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

BUILD = "build\n"  # what the child waits for; anything else, or nothing, means "do not build"


def record_then_build(root: Path, record_step: Callable[[], None]) -> int:
    """Run `record_step`, then `mkdocs build --strict` in `root`; the build's exit status.

    What `record_step` raises propagates, after the child is stopped.
    """
    # A child, not a thread: importing MkDocs and its plugins holds the GIL, and the
    # record step's own work in this process would wait for it.
    builder = subprocess.Popen([sys.executable, "-m", "recorder.site"], cwd=root, stdin=subprocess.PIPE, text=True)
    assert builder.stdin is not None
    try:
        record_step()
    except BaseException:
        builder.kill()
        builder.wait()
        raise
    try:
        builder.stdin.write(BUILD)
        builder.stdin.close()
    except BrokenPipeError:
        pass  # it stopped while getting ready (a broken mkdocs.yml, say) and said why
    return builder.wait()


def build_when_told() -> int:
    """In the child: get MkDocs ready, wait for the word, then build as `mkdocs build --strict`.

    Returns 0 without building when the word does not come.
    """
    # Ctrl-C reaches the whole process group; while waiting, the parent decides (it stops this child).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from mkdocs.__main__ import cli
    from mkdocs.config import load_config
    from mkdocs.exceptions import ConfigurationError

    try:
        load_config()  # imports what mkdocs.yml names; the configuration is read again to build
    except ConfigurationError:
        pass  # the build below reports it, as `mkdocs build` does
    if sys.stdin.readline() != BUILD:
        return 0
    signal.signal(signal.SIGINT, signal.default_int_handler)
    cli.main(["build", "--strict"], prog_name="mkdocs")  # exits with the command line's status
    return 0


if __name__ == "__main__":
    sys.exit(build_when_told())

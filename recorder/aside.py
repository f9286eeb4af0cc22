"""A child process that gets ready on the other core while the snippets run, and works only when told.

Updating the notebooks after the record step starts with imports and reading
mkdocs.yml, none of which depends on the outputs. A child, not a thread: imports
hold the GIL, which the snippets need. The child gets ready, then waits for the
word. If the record step fails or is interrupted, the child is stopped instead,
having changed nothing; if this process dies, the child reads the end of its
input and stops too.

    parent:  with Aside("recorder.notebook", str(root)) as child: ...; child.go()
    child:   run_child(get_ready, work)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import NoReturn

GO = "go\n"  # what the child waits for; anything else, or nothing, means "stop"


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str
    stderr: str


class Aside:
    """`python -m MODULE ARGS` in `cwd` (default: here), started now; `go` returns what it printed."""

    def __init__(self, module: str, *args: str, cwd: Path | None = None) -> None:
        self._process = subprocess.Popen([sys.executable, "-m", module, *args], cwd=cwd, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def go(self) -> Done:
        """Tell the child to do its work, and wait until it has."""
        # If it stopped while getting ready (a broken mkdocs.yml, say), the word goes unheard: its status says so.
        stdout, stderr = self._process.communicate(GO)
        return Done(self._process.returncode, stdout, stderr)

    def stop(self) -> None:
        self._process.kill()
        self._process.communicate()

    def __enter__(self) -> Aside:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._process.returncode is None:  # not told to go: the step before it failed
            self.stop()


def run_child(get_ready: Callable[[], object], work: Callable[[], int]) -> NoReturn:
    """The child's life: get ready, wait for the word, work, and exit with the work's status.

    Until the word, Ctrl-C (which reaches the whole process group) is ignored: the
    parent decides. The child exits without tearing down its imports, which takes
    0.2 to 0.4 s that the parent would wait for; only the standard streams are left to flush.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    get_ready()
    status = 0
    if sys.stdin.readline() == GO:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        status = work()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)

"""Run a command as a child process and measure its wall time and peak memory.

Peak memory is the child's `ru_maxrss` from `wait4`: the largest resident set
of the child and of every descendant it waited for (make's recipes, a kernel).
Its CPU time, from the same call, counts none of the time spent waiting for other work on the machine.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from recorder.errors import RecorderError


class CommandFailed(RecorderError):
    """A measured command exited with an error; the message holds what it printed."""


@dataclass(frozen=True)
class Sample:
    seconds: float
    peak_mib: float
    cpu_seconds: float  # user and system, the child's and its waited-for descendants'


@dataclass(frozen=True)
class Finished:
    sample: Sample
    stdout: str
    stderr: str


def run(argv: Sequence[str | Path], *, cwd: Path, env: dict[str, str]) -> Finished:
    command = [str(part) for part in argv]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if child.returncode != 0:
        raise CommandFailed(f"`{' '.join(command)}` in {cwd} exited with status {child.returncode}:\n"
                            f"{stdout}{stderr}")
    return Finished(Sample(seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime), stdout, stderr)

"""What the benchmark asserts about the builds it times: what ran and what was imported."""

from __future__ import annotations

import re

from bench.measure import Finished
from recorder.errors import RecorderError

# The record step reports each snippet it runs as `[1/3] snippets/name.py  0.12 s`.
_RAN = re.compile(r"^\[\d+/\d+\] (?P<source>\S+)", re.M)
# `python -X importtime` (or PYTHONPROFILEIMPORTTIME=1) writes one such line per module imported.
_IMPORT_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(?P<module>\S+)\s*$", re.M)


class CheckFailed(RecorderError):
    """The build did something the benchmark rules out; the message says what."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def only_ran(finished: Finished, expected: list[str], what: str) -> None:
    ran = _RAN.findall(finished.stdout)
    expect(ran == expected, f"{what}: the record step ran {ran or 'nothing'}, expected {expected or 'nothing'}.")


def imports(finished: Finished, what: str, *, present: tuple[str, ...] = (), absent: tuple[str, ...] = ()) -> None:
    """Check an importtime-profiled run: `present` modules were imported, `absent` ones never."""
    modules = {match.group("module").split(".")[0] for match in _IMPORT_LINE.finditer(finished.stderr)}
    for module in present:
        expect(module in modules, f"{what}: {module} was not imported (the import profile saw "
                                  f"{len(modules)} modules).")
    for module in absent:
        expect(module not in modules, f"{what}: {module} was imported.")

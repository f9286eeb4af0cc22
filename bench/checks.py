"""What the benchmark asserts about the builds it times: what ran and what was imported."""

from __future__ import annotations

import re

from bench.measure import Finished, imported_modules
from recorder.errors import RecorderError

# The record step reports each snippet it runs as `[1/3] snippets/name.py  0.12 s`.
_RAN = re.compile(r"^\[\d+/\d+\] (?P<source>\S+)", re.M)


class CheckFailed(RecorderError):
    """The build did something the benchmark rules out; the message says what."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def snippets_run(finished: Finished) -> list[str]:
    return _RAN.findall(finished.stdout)


def only_ran(finished: Finished, expected: list[str], what: str) -> None:
    ran = snippets_run(finished)
    expect(ran == expected, f"{what}: the record step ran {ran or 'nothing'}, expected {expected or 'nothing'}.")


def imports(finished: Finished, what: str, *, present: tuple[str, ...] = (), absent: tuple[str, ...] = ()) -> None:
    """Check an importtime-profiled run: `present` modules were imported, `absent` ones never."""
    modules = imported_modules(finished.stderr)
    for module in present:
        expect(module in modules, f"{what}: {module} was not imported (the import profile saw "
                                  f"{len(modules)} modules).")
    for module in absent:
        expect(module not in modules, f"{what}: {module} was imported.")

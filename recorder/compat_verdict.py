"""Whether a snippet, run with another release, prints what the site shows.

The recorded outputs of model snippets are GPT-2's real values, which no stand-in checkpoint
prints. The lines that the pinned release, run against the stand-in, prints differently from the
recorded output depend on weight values: another release must print those in the recorded form
(`published.form`) and every other line exactly.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Any, NamedTuple

from recorder.compat_table import CompatError
from recorder.published import form


class Printed(NamedTuple):
    """What one run of a snippet gave: its output, or why it failed (its last line on stderr)."""

    stdout: str
    error: str | None = None


def weight_dependent_lines(source: str, recorded: str, reference: Printed, release: str) -> set[int]:
    """Line numbers (from 1) where the pinned release's stand-in run of `source` differs from the recorded output."""
    expected, printed = recorded.splitlines(), reference.stdout.splitlines()
    if reference.error is not None:
        raise CompatError(f"{source} fails with transformers {release}, the pinned release, against the stand-in "
                          f"checkpoint: {reference.error}. Fix the snippet (`make test` runs it).")
    if len(expected) != len(printed):
        raise CompatError(f"{source} prints {len(printed)} lines with transformers {release} against the stand-in "
                          f"checkpoint, but its recorded output has {len(expected)}. Run `make record` "
                          "(and `make test`), then `make compat` again.")
    return {number for number, (want, have) in enumerate(zip(expected, printed), 1) if want != have}


def verdict(recorded: str, printed: Printed, weight_dependent: set[int]) -> dict[str, Any]:
    """"same", the lines that differ, or the error: one cell of the version table."""
    if printed.error is not None:
        return {"verdict": "error", "error": printed.error}
    lines = []
    for number, (want, have) in enumerate(zip_longest(recorded.splitlines(), printed.stdout.splitlines()), 1):
        by_form = number in weight_dependent
        if want is None or have is None or (form(want) != form(have) if by_form else want != have):
            lines.append({"line": number, "recorded": want, "printed": have,
                          "compared": "by form" if by_form else "exactly"})
    return {"verdict": "differs", "lines": lines} if lines else {"verdict": "same"}

"""Whether a snippet, run with another release, prints what the site shows.

The recorded outputs of model snippets are GPT-2's real values, which no
stand-in checkpoint prints. The run with the pinned release against the
stand-in tells which lines depend on weight values: the ones it prints
differently from the recorded output. Another release must print those
lines in the recorded form (`published.form`) and every other line exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

from recorder.compat_table import BY_FORM, DIFFERS, ERROR, EXACTLY, SAME, CompatError
from recorder.published import form


@dataclass(frozen=True)
class Printed:
    """What one run of `python snippets/NAME.py` gave."""

    stdout: str
    error: str | None = None  # why it failed (its last line on stderr), or None if it succeeded


def weight_dependent_lines(name: str, recorded: str, reference: Printed, release: str) -> set[int]:
    """Line numbers (from 1) where the pinned release's stand-in run differs from the recorded output."""
    if reference.error is not None:
        raise CompatError(f"snippets/{name}.py fails with transformers {release}, the pinned release, against "
                          f"the stand-in checkpoint: {reference.error}. Fix the snippet (`make test` runs it).")
    expected, printed = recorded.splitlines(), reference.stdout.splitlines()
    if len(expected) != len(printed):
        raise CompatError(f"snippets/{name}.py prints {len(printed)} lines with transformers {release} against "
                          f"the stand-in checkpoint, but outputs/{name}.txt has {len(expected)}. "
                          "Run `make record` (and `make test`), then `make compat` again.")
    return {number for number, (want, have) in enumerate(zip(expected, printed), 1) if want != have}


def verdict(recorded: str, printed: Printed, weight_dependent: set[int]) -> dict[str, Any]:
    """"same", the lines that differ, or the error: one cell of the version table."""
    if printed.error is not None:
        return {"verdict": ERROR, "error": printed.error}
    lines = []
    for number, (want, have) in enumerate(zip_longest(recorded.splitlines(), printed.stdout.splitlines()), 1):
        compared = BY_FORM if number in weight_dependent else EXACTLY
        if want is not None and have is not None and (
            form(want) == form(have) if compared == BY_FORM else want == have
        ):
            continue
        lines.append({"line": number, "recorded": want, "printed": have, "compared": compared})
    return {"verdict": DIFFERS, "lines": lines} if lines else {"verdict": SAME}

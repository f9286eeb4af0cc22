"""compat/results.json, the version table `make compat` writes: reading it, and which of its rows no longer hold.

A row whose snippet or recorded output changed since is not yet checked: the page never shows a verdict about code
that is gone. `make compat`, the page and `python -m recorder check` all read the table here.
"""

import json
from pathlib import Path
from typing import Any, NamedTuple

from recorder.project.config import COMPAT_DIR
from recorder.project.errors import RecorderError
from recorder.project.findings import Finding, notice
from recorder.project.manifest import output_path
from recorder.project.provenance import counted
from recorder.project.snippets import Snippet, sha256_file, source_hashes

RESULTS = f"{COMPAT_DIR}/results.json"
FIX = f"Run `make compat` and commit {RESULTS}."


class CompatError(RecorderError):
    """Something `make compat` or the page cannot do; the message names the file and the fix."""


def read(root: Path) -> dict[str, Any]:
    """The table, with a verdict in every row for every release."""
    if not (root / RESULTS).exists():
        raise CompatError(f"{RESULTS} does not exist. {FIX}")
    try:
        table = json.loads((root / RESULTS).read_text(encoding="utf-8"))
        if table["reference"] not in table["releases"] or not all(
            _valid(row["results"][release]) for row in table["snippets"].values() for release in table["releases"]
        ):
            raise ValueError("no reference release, or a cell that is none of same, differs with its lines, error")
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise CompatError(
            f"{RESULTS} is not a valid version table ({type(error).__name__}: {error}). Restore "
            f"it with `git checkout -- {RESULTS}`, or run `make compat` and commit it."
        ) from None
    return table


def _valid(result: dict[str, Any]) -> bool:
    """A cell: its verdict, with the lines that differ where it says some do."""
    return result["verdict"] in ("same", "error") or (
        result["verdict"] == "differs" and isinstance(result["lines"], list)
    )


def checked_against(root: Path, snippet: Snippet) -> dict[str, Any]:
    """What a row's verdicts are about: the snippet's sources and the output it was compared with."""
    output = output_path(root, snippet.name)
    return {"sources": source_hashes(snippet, root), "output_sha256": sha256_file(output) if output.exists() else None}


def unchecked(root: Path, table: dict[str, Any], snippets: dict[str, Snippet]) -> dict[str, str]:
    """Snippets whose verdicts the table cannot give, by name, each with the reason."""
    why = {}
    for name, snippet in snippets.items():
        row, now = table["snippets"].get(name), checked_against(root, snippet)
        if row is None:
            why[name] = f"{snippet.relative(root)} is not in {RESULTS}"
        elif row.get("sources") != now["sources"]:
            why[name] = f"{snippet.relative(root)} (or a snippet it imports) changed since {RESULTS} was made"
        elif row.get("output_sha256") != now["output_sha256"]:
            why[name] = f"{output_path(root, name).relative_to(root)} changed since {RESULTS} was made"
    return why


def in_words(result: dict[str, Any]) -> str:
    """A cell's verdict as the page's link and the pull request's summary word it: how many lines differ, if any."""
    if result["verdict"] == "differs":
        return f"differs: {counted(len(result['lines']), 'line')}"
    return str(result["verdict"])


class View(NamedTuple):
    """The table as a page shows it: the file, the snippets in their order, and why each row not yet checked is."""

    table: dict[str, Any]
    snippets: list[str]
    unchecked: dict[str, str]


def view(root: Path, snippets: dict[str, Snippet]) -> View | str:
    """The table for the page, or why it cannot be read."""
    try:
        table = read(root)
    except CompatError as error:
        return str(error)
    return View(table, list(snippets), unchecked(root, table, snippets))


def notices(found: View | str) -> list[Finding]:
    """What `python -m recorder check` says of the table `view` found, in a line: how many rows it shows as not yet
    checked."""
    if isinstance(found, str):
        return [notice(found)]
    if not (stale := found.unchecked):
        return []
    return [
        notice(
            f"{counted(len(stale), 'row')} of the version table {'is' if len(stale) == 1 else 'are'} not yet checked "
            f"since {RESULTS} was made (a snippet or its output changed): run `make compat`, which checks only those, "
            f"and commit {RESULTS}."
        )
    ]

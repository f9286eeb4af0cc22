"""`python -m recorder pr-compat` (`make compat PR=1`): check the rows of the version table that a pull request left
unchecked (what `recorder check` notices), and tell its author, as `pr-record` does for the outputs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from recorder.project import staleness
from recorder.project.compat_table import RESULTS, View, in_words, read, view
from recorder.project.config import Project
from recorder.project.snippets import discover
from recorder.tools.pr_record import post

# The name under which the pull-request workflow uploads compat/results.json.
ARTIFACT = "compat-results"
CHECKED = f"Every row of the version table is checked: {RESULTS} needs no change.\n"
WAITING = (
    f"The version table compares the snippets with their recorded outputs, which this pull request left out of date "
    f"(the `record` job records them): {RESULTS} is checked once they are committed.\n"
)
INSTRUCTION = (
    f"Commit {RESULTS} from this run's `{ARTIFACT}` artifact (unzip it at the top of your clone), "
    "or run `make compat` and commit it."
)


def run(root: Path, check: Callable[[Path], object], summary: Path | None) -> bool:
    """Whether every row was checked already; when not, `check` (`make compat`) checks those that were not, and the
    summary shows their verdicts."""
    snippets = discover(root)
    found = view(root, snippets)  # where the table cannot be read, every row is checked
    rows = (
        found.unchecked
        if isinstance(found, View)
        else {name: f"{snippet.relative(root)}: {found}" for name, snippet in snippets.items()}
    )
    if not rows:
        post(CHECKED, summary)
        return True
    if staleness.stale(Project.load(root)):
        post(WAITING, summary)
        return True
    heading = "## Rows of the version table not yet checked\n\n" + "".join(f"- {reason}\n" for reason in rows.values())
    check(root)
    post(f"{heading}\n{verdicts(read(root), list(rows))}\n**{INSTRUCTION}**\n", summary)
    return False


def verdicts(table: dict[str, Any], names: list[str]) -> str:
    """The rows `names` of the table as Markdown: a verdict per release."""
    releases = list(table["releases"])
    lines = [f"| Example | {' | '.join(releases)} |", "| --- |" + " --- |" * len(releases)]
    for name in names:
        cells = [in_words(table["snippets"][name]["results"][release]) for release in releases]
        lines.append(f"| `{name}.py` | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"

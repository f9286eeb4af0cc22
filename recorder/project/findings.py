"""What a check finds: one type for every problem and notice, whoever finds it."""

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    PROBLEM = "problem"  # the site cannot be built until it is fixed
    NOTICE = "notice"  # said, never a failure (a row of the version table not yet checked)


@dataclass(frozen=True)
class Finding:
    message: str  # what is wrong, naming the file, the cause and the fix
    severity: Severity = Severity.PROBLEM
    snippet: str | None = None  # the snippet it is about ("<part>/<stem>"), where it is about one
    recordable: bool = False  # whether `make record` fixes it


problem = Finding  # what a finding is unless said otherwise


def recordable(message: str, snippet: str | None = None) -> Finding:
    """A problem `make record` fixes."""
    return Finding(message, Severity.PROBLEM, snippet, recordable=True)


def notice(message: str) -> Finding:
    return Finding(message, Severity.NOTICE)

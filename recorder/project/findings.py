"""What a check finds: one type for every problem and notice, whoever finds it."""

from dataclasses import dataclass
from enum import StrEnum
from functools import partial


class Severity(StrEnum):
    PROBLEM = "problem"  # the site cannot be built until it is fixed
    NOTICE = "notice"  # said, never a failure (a row of the version table not yet checked)


@dataclass(frozen=True)
class Finding:
    message: str  # what is wrong, naming the file, the cause and the fix
    snippet: str | None = None  # the snippet it is about ("<part>/<stem>"), where it is about one
    recordable: bool = False  # whether `make record` fixes it
    severity: Severity = Severity.PROBLEM


problem = Finding  # what a finding is unless said otherwise
recordable = partial(Finding, recordable=True)  # a problem `make record` fixes
notice = partial(Finding, severity=Severity.NOTICE)

"""Coverage of snippets/, held at 100%: measured in the stand-in runs of every snippet.

Only those runs are traced (`support.stand_ins_with_outputs`): tracing the test
workers too would double the cost of every build they make. The controller
erases old data when the run starts, and when it ends combines what the runs
wrote, prints the report and fails the run below `fail_under` (pyproject.toml).
A run that never reached the stand-in runs (a single test file, say) says so and reports nothing; stand-in
runs that measured nothing fail (`support.stand_ins_with_outputs`).

Every file of snippets/ counts, in a part's folder too: coverage itself finds the
files that never ran only in folders that are packages, and a part's folder is not.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from coverage import Coverage
from coverage.exceptions import NoDataError

from support import ROOT

_report = pytest.StashKey[str]()


def coverage_of_snippets() -> Coverage:
    """Coverage of snippets/, its data in the project's `.coverage`, whichever folder pytest runs from."""
    return Coverage(
        data_file=str(ROOT / ".coverage"), config_file=str(ROOT / "pyproject.toml"), source=[str(ROOT / "snippets")]
    )


def require_measured(coverage: Coverage) -> None:
    """Fail when runs of the snippets measured nothing: the gate would otherwise have no data to hold."""
    if not coverage.get_data().measured_files():
        raise RuntimeError(
            f"Coverage measured nothing while the snippets ran, so the gate on {ROOT / 'snippets'} "
            "would have no data: see `coverage_of_snippets` in tests/snippet_coverage.py."
        )


def count_every_file(coverage: Coverage, folder: Path) -> None:
    """Make each Python file below `folder` part of the report, at 0% if no measured run executed it.

    Only when something was measured: a run that never ran the snippets reports nothing.
    """
    data = coverage.get_data()
    if data.measured_files():
        data.touch_files([str(path.resolve()) for path in sorted(folder.rglob("*.py"))])


def _is_controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    if _is_controller(session.config):
        coverage_of_snippets().erase()


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not _is_controller(session.config):
        return
    coverage = coverage_of_snippets()
    printed = io.StringIO()
    try:
        coverage.combine()
        count_every_file(coverage, ROOT / "snippets")
        total = coverage.report(file=printed)
    except NoDataError:
        session.config.stash[_report] = "Not measured: no test of this run ran the snippets.\n"
        return
    below = total < coverage.config.fail_under
    verdict = (
        f"FAIL: coverage of snippets/ must be {coverage.config.fail_under:g}%" if below else "Required coverage reached"
    )
    session.config.stash[_report] = f"{printed.getvalue()}{verdict}: {total:.2f}%\n"
    if below and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    report = config.stash.get(_report, None)
    if report is not None:
        terminalreporter.section("coverage of snippets/ (the stand-in runs)")
        terminalreporter.write(report)

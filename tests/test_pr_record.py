"""`python -m recorder pr-record`, what the pull-request workflow runs: nothing stale passes and
says so; otherwise it records, reports what changed in the job summary and fails with what to commit.

The record step is replaced by a fake that writes an output the way the real one commits it:
nothing here can load GPT-2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import recorder.__main__ as command_line
from recorder.project import manifest
from recorder.project.config import Project
from recorder.project.manifest import Origin
from recorder.project.snippets import discover
from recorder.record import hub
from recorder.record.step import Session, new_record, save
from recorder.tools import pr_record
from support import ROOT, append

# A snippet that loads nothing of GPT-2, whose output's last line the fake record step changes ("<part>/<stem>").
NAME = next(
    name
    for name, snippet in sorted(discover(ROOT).items())
    if snippet.runs_on is Origin.NO_MODEL
    and not (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8").startswith("<svg")
)  # a figure
SOURCE = f"snippets/{NAME}.py"
ROW_LOOKUP = f"outputs/{NAME}.txt"
OLD_ROW = (ROOT / ROW_LOOKUP).read_text(encoding="utf-8").splitlines()[-1]
NEW_ROW = f"{OLD_ROW} (changed)"


class FakeRecord:
    """Records a new output of NAME, or raises `error`; remembers each call."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.calls: list[Path] = []

    def __call__(self, root: Path, **options: Any) -> None:
        self.calls.append(root)
        if self.error is not None:
            raise self.error
        current = Session(Project.load(root), discover(root), manifest.read(root))
        output = (root / ROW_LOOKUP).read_text().replace(OLD_ROW, NEW_ROW).encode()
        save(root, current, {NAME: (output, new_record(root, current.snippets[NAME], output, Origin.NO_MODEL, 0.1))})


@pytest.fixture
def summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The job summary file, as GitHub Actions gives it, already holding an earlier step's text."""
    path = tmp_path / "step-summary.md"
    path.write_text("Earlier step.\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(path))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    return path


def test_nothing_stale_passes_without_recording_and_says_no_output_changed(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = FakeRecord()
    written = tmp_path / "report.md"

    assert pr_record.run(project, record, written) is True

    assert record.calls == []
    assert written.read_text() == pr_record.UP_TO_DATE == capsys.readouterr().out
    assert pr_record.UP_TO_DATE.startswith("No recorded output changed")


def test_a_stale_snippet_is_recorded_its_diff_summarised_and_the_job_fails_with_the_instruction(
    project: Path, summary: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    append(project / SOURCE, "\n# edited\n")
    record = FakeRecord()
    monkeypatch.setattr(command_line, "record", record)

    assert command_line.main(["--root", str(project), "pr-record"]) == 1

    assert record.calls == [project]
    written = summary.read_text()
    assert written.startswith(
        f"Earlier step.\n## Recorded outputs are out of date\n\n- {SOURCE} changed since its output was recorded."
    )
    assert "## 1 recorded output changed since the pull request's commit" in written
    assert f"### `{NAME}`: changed\n\n```diff\n--- committed:{ROW_LOOKUP}\n+++ {ROW_LOOKUP}\n" in written
    assert f"\n-{OLD_ROW}\n+{NEW_ROW}\n```\n\n**{pr_record.INSTRUCTION}**\n" in written
    assert written.endswith(f"**{pr_record.INSTRUCTION}**\n")
    assert "Recording deleted" not in written
    assert f"`{pr_record.ARTIFACT}` artifact" in pr_record.INSTRUCTION
    assert "run `make record` where GPT-2 can be loaded" in pr_record.INSTRUCTION
    output = capsys.readouterr()
    assert written.removeprefix("Earlier step.\n") == output.out
    assert output.err.splitlines()[-1] == f"::error::{pr_record.INSTRUCTION}"


def test_a_failed_recording_is_summarised_without_pointing_at_an_artifact(
    project: Path, summary: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    append(project / SOURCE, "\n# edited\n")
    monkeypatch.setattr(command_line, "record", FakeRecord(hub.ModelUnavailable("the hub cannot be reached")))
    before = (project / ROW_LOOKUP).read_bytes()

    assert command_line.main(["--root", str(project), "pr-record"]) == 1

    written = summary.read_text()
    assert f"- {SOURCE} changed since its output was recorded." in written
    assert "Recording them here failed: the hub cannot be reached" in written
    assert written.endswith(f"Instead, {pr_record.RECORD_ELSEWHERE}\n")
    assert pr_record.ARTIFACT not in written
    assert "error: the hub cannot be reached" in capsys.readouterr().err
    assert (project / ROW_LOOKUP).read_bytes() == before


def test_without_github_actions_the_instruction_is_a_plain_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert pr_record.failure_line(pr_record.INSTRUCTION) == f"error: {pr_record.INSTRUCTION}"


def test_a_file_the_recording_deletes_is_named_with_the_command_that_deletes_it_in_a_clone(
    project: Path, summary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unzipping the artifact cannot delete a file: here one no snippet owns, left by a removed part."""
    left_behind = "outputs/removed-part/gone.txt"
    (project / left_behind).parent.mkdir()
    (project / left_behind).write_text("printed by a snippet since removed\n")
    monkeypatch.setattr(command_line, "record", FakeRecord())

    assert command_line.main(["--root", str(project), "pr-record"]) == 1

    written = summary.read_text()
    assert (
        f"- {left_behind} belongs to no snippet (snippets/removed-part/gone.py does not exist). "
        "Run `make record`, which removes it, or delete it.\n"
    ) in written
    assert (
        f"Recording deleted 1 file, which the artifact cannot: delete it in your clone too, "
        f"`git rm {left_behind}`.\n\n- `{left_behind}`\n\n**{pr_record.INSTRUCTION}**\n"
    ) in written
    assert not (project / left_behind).parent.exists()

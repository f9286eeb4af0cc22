"""`python -m recorder pr-record`: record what a pull request left stale (what `recorder check` reports), and tell
its author."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from recorder.check import state
from recorder.project.config import NOTEBOOKS_DIR, Project
from recorder.project.manifest import OUTPUTS_DIR
from recorder.project.provenance import counted
from recorder.tools import diff

# The name under which the pull-request workflow uploads outputs/ and docs/notebooks/.
ARTIFACT = "recorded-outputs"
UP_TO_DATE = "No recorded output changed: every output and notebook is committed and up to date.\n"
RECORD_ELSEWHERE = "run `make record` where GPT-2 can be loaded and commit outputs/ and docs/notebooks/."
INSTRUCTION = (
    f"Commit the files of this run's `{ARTIFACT}` artifact (unzip it at the top of your clone; "
    f"it holds outputs/ and docs/notebooks/), or {RECORD_ELSEWHERE}"
)


def run(root: Path, record_step: Callable[[Path], object], summary: Path | None) -> bool:
    """Whether the committed outputs were up to date; when not, records them and reports the change."""
    stale = state.current(Project.load(root)).problems  # as every build judges it
    if not stale:
        post(UP_TO_DATE, summary)
        return True
    heading = "## Recorded outputs are out of date\n\n" + "".join(f"- {problem}\n" for problem in stale)
    before, files = diff.in_tree(root), generated_files(root)
    try:
        record_step(root)
    except Exception as error:
        post(f"{heading}\nRecording them here failed: {error}\n\nInstead, {RECORD_ELSEWHERE}\n", summary)
        raise
    changes = diff.render(before, diff.in_tree(root), "the pull request's commit", before_name="committed")
    if gone := sorted(files - generated_files(root)):  # unzipping the artifact cannot delete a file, so its author must
        changes += (
            f"\nRecording deleted {counted(len(gone), 'file')}, which the artifact cannot: delete "
            f"{'it' if len(gone) == 1 else 'them'} in your clone "
            f"too, `git rm {' '.join(gone)}`.\n\n" + "".join(f"- `{path}`\n" for path in gone)
        )
    post(f"{heading}\n{changes}\n**{INSTRUCTION}**\n", summary)
    return False


def generated_files(root: Path) -> set[str]:
    """The files of outputs/ and of the notebooks' folder, from the project folder; not the record step's own."""
    project = Project.load(root)
    folders = [project.root / OUTPUTS_DIR, project.docs_dir / NOTEBOOKS_DIR]
    return {
        path.relative_to(project.root).as_posix()
        for folder in folders
        if folder.is_dir()
        for path in folder.rglob("*")
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    }


def post(markdown: str, summary: Path | None) -> None:
    """Print the Markdown, and append it to the job summary file when there is one."""
    print(markdown, end="", flush=True)
    if summary is not None:
        with summary.open("a", encoding="utf-8") as stream:
            stream.write(markdown)


def failure_line(instruction: str) -> str:
    """An instruction as an error, annotated on the pull request when run by GitHub Actions."""
    prefix = "::error::" if os.environ.get("GITHUB_ACTIONS") == "true" else "error: "
    return prefix + instruction

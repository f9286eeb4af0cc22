"""`make site` end to end, in a copy of the project: it records what is stale, then builds; a snippet that fails
builds nothing and changes no output."""

from __future__ import annotations

import shutil
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from bench.run import MAKE
from recorder.project.manifest import Origin
from recorder.project.snippets import Snippet, discover
from recorder.project.values import templates
from support import ROOT, append, snapshot


def quick_snippet() -> Snippet:
    """A snippet that loads nothing of GPT-2, imports no torch, and whose output no value reads."""
    read = {
        f"{part}/{template.output}"
        for part in {name.split("/")[0] for name in discover(ROOT)}
        for template in templates(ROOT, part)
    }
    found = [
        snippet
        for name, snippet in discover(ROOT).items()
        if snippet.runs_on is Origin.NO_MODEL and "torch" not in snippet.imports and name not in read
    ]
    assert found, "no snippet records without GPT-2 and torch: this test would need one"
    return found[0]


@pytest.fixture
def makeable(project: Path) -> Path:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copyfile(ROOT / name, project / name)
    return project


def make_site_after_appending(run, project: Path, line: str) -> tuple[str, dict[str, bytes], CompletedProcess[str]]:
    """`make site` once a quick snippet has `line` appended: the snippet's name, outputs/ before, the run."""
    snippet = quick_snippet()
    append(project / "snippets" / f"{snippet.name}.py", line)
    before = snapshot(project / "outputs")
    return snippet.name, before, run(*MAKE, "site", cwd=project)


@pytest.mark.slow
def test_make_site_records_what_is_stale_then_builds(run, makeable: Path) -> None:
    name, before, result = make_site_after_appending(run, makeable, "\n# edited: its output is stale until recorded\n")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"[1/1] snippets/{name}.py" in result.stdout
    after = snapshot(makeable / "outputs")
    assert {file for file in after if after[file] != before.get(file)} == {"manifest.json"}, "re-recorded, same output"
    assert (makeable / "site" / name.partition("/")[0] / "index.html").is_file()
    assert result.stdout.index("recorded 1 of") < result.stderr.index("Documentation built"), "recorded, then built"


@pytest.mark.slow
def test_a_failing_snippet_builds_nothing_and_changes_no_output(run, makeable: Path) -> None:
    name, before, result = make_site_after_appending(run, makeable, "\nraise RuntimeError('broken on purpose')\n")
    assert result.returncode != 0
    assert f"snippets/{name}.py raised an error" in result.stderr and "broken on purpose" in result.stderr
    assert snapshot(makeable / "outputs") == before
    assert not (makeable / "site").exists()

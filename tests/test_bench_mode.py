"""Stand-in weights are recorded only by the benchmark, and only into its own throwaway copy."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bench import project_copy
from recorder.checkpoint import snapshot_dir
from recorder.snippets import sha256_file
from support import ROOT, offline_env, snapshot


def bench_record(run, folder: Path, hub_cache: Path) -> subprocess.CompletedProcess[str]:
    return run("python", "-m", "bench.stand_in_record", str(folder), cwd=ROOT, env=offline_env(hub_cache))


@pytest.mark.slow
def test_the_command_line_refuses_the_stand_in(run, project: Path, stand_in_cache: Path) -> None:
    before = snapshot(project / "outputs")
    result = run("python", "-m", "recorder", "record", "--force", cwd=project, env=offline_env(stand_in_cache))
    assert result.returncode == 1
    assert "not the pinned GPT-2 weights" in result.stderr
    assert snapshot(project / "outputs") == before


# Were the check gone, an empty cache would stop the record step before it writes anything.
@pytest.mark.parametrize("spelling", [".", "snippets/.."])
def test_the_benchmark_mode_refuses_the_project_itself(run, tmp_path: Path, spelling: str) -> None:
    before = snapshot(ROOT / "outputs")
    result = bench_record(run, ROOT / spelling, hub_cache=tmp_path)
    assert result.returncode == 1
    assert f"error: {ROOT} is the project itself" in result.stderr
    assert snapshot(ROOT / "outputs") == before


def test_the_benchmark_mode_refuses_a_folder_it_did_not_make(run, project: Path, tmp_path: Path) -> None:
    before = snapshot(project / "outputs")
    result = bench_record(run, project, hub_cache=tmp_path / "empty")
    assert result.returncode == 1
    assert f"error: {project} is not a copy made by the benchmark" in result.stderr
    assert snapshot(project / "outputs") == before


@pytest.mark.slow
def test_the_benchmark_mode_records_the_stand_in_into_its_copy(run, tmp_path: Path, stand_in_cache: Path) -> None:
    copy = project_copy.make(tmp_path / "copy")
    result = bench_record(run, copy, stand_in_cache)
    assert result.returncode == 0, result.stderr
    entry = json.loads((copy / "outputs" / "manifest.json").read_text())["snippets"]["software_row"]
    assert entry["origin"] == "executed"
    weights = snapshot_dir(stand_in_cache) / "model.safetensors"
    assert entry["model"]["files"]["model.safetensors"] == sha256_file(weights)

"""What `make bench` relies on: stand-in weights recorded only into its own throwaway copy,
the weights' check hashed ahead without ever missing a change, and a `make site` that
runs the record step only when something it reads changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import project_copy
from recorder import hub
from recorder.hub import snapshot_dir
from recorder.snippets import sha256_bytes, sha256_file
from support import ROOT, offline_env, snapshot


def bench_record(run, folder: Path, hub_cache: Path) -> subprocess.CompletedProcess[str]:
    return run("python", "-m", "bench.project_copy", str(folder), cwd=ROOT, env=offline_env(hub_cache))


# That the command line refuses the stand-in is test_download.py's
# test_downloaded_stand_in_weights_run_and_are_refused.


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


def test_weights_hashed_ahead_are_hashed_again_if_replaced_meanwhile(tmp_path: Path) -> None:
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"loaded")
    hub.hash_ahead(tmp_path)
    assert hub.snapshot_digests(tmp_path) == {weights.name: sha256_bytes(b"loaded")}

    hub.hash_ahead(tmp_path)
    weights.write_bytes(b"replaced while hashing")
    assert hub.snapshot_digests(tmp_path) == {weights.name: sha256_bytes(b"replaced while hashing")}


def make_site_dry_run(run, copy: Path, *flags: str) -> list[str]:
    """The commands `make site` would run in `copy`, with this venv."""
    result = run("make", "--dry-run", "--no-print-directory", f"VENV={sys.prefix}", "site", *flags, cwd=copy)
    assert result.returncode == 0, result.stderr
    return [line.strip() for line in result.stdout.splitlines() if "-m recorder" in line or "-m mkdocs" in line]


def test_make_site_runs_the_record_step_only_when_something_it_reads_changed(run, tmp_path: Path) -> None:
    copy = project_copy.make(tmp_path / "copy")
    record_then_build = f"{sys.prefix}/bin/python -m recorder site"
    build = f"{sys.prefix}/bin/python -m mkdocs build --strict"
    assert make_site_dry_run(run, copy) == [record_then_build]

    recorded = copy / "outputs" / ".recorded"
    recorded.touch()
    assert make_site_dry_run(run, copy) == [build]
    assert make_site_dry_run(run, copy, "FORCE=1") == [f"{record_then_build} --force"]

    later = recorded.stat().st_mtime + 10
    os.utime(copy / "snippets" / "parameter_count.py", (later, later))
    assert make_site_dry_run(run, copy) == [record_then_build]

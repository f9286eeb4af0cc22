"""What `make bench` relies on: stand-in weights recorded only into its own throwaway copy,
a limit that does the record step's work, and `make` in a copy that never installs anything."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.run import MAKE, cells, copy_project
from recorder.hub import snapshot_dir
from recorder.snippets import discover, sha256_file
from support import ROOT, offline_env, snapshot


def bench_record(run, folder: Path, hub_cache: Path) -> subprocess.CompletedProcess[str]:
    return run("python", "-m", "bench.run", "--record", str(folder), cwd=ROOT, env=offline_env(hub_cache))


# That the command line refuses the stand-in is test_download.py's
# test_a_connection_that_breaks_in_the_weights_fails_fast_and_the_next_run_downloads_them_runs_and_refuses.


# Were the check gone, an empty cache would stop the record step, but only after it removed the manifest.
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
def test_the_benchmark_records_the_stand_in_into_its_copy_and_its_limit_prints_the_same(
        run, tmp_path: Path, stand_in_cache: Path) -> None:
    """The limit does the record step's work: one plain script printing what each snippet records.

    Only the part that loads weights is kept: the tokenizer's part would add run time, and no case."""
    copy = copy_project(tmp_path / "copy")
    shutil.rmtree(copy / "snippets" / "tokenization")
    (copy / "docs" / "tokenization.md").unlink()
    config = (copy / "mkdocs.yml").read_text(encoding="utf-8")
    nav_line = '  - "Part 1: Tokenization": tokenization.md\n'
    assert nav_line in config, "the copy's mkdocs.yml lists the tokenization part otherwise: update this test"
    (copy / "mkdocs.yml").write_text(config.replace(nav_line, ""), encoding="utf-8")
    result = bench_record(run, copy, stand_in_cache)
    assert result.returncode == 0, result.stderr
    entry = json.loads((copy / "outputs" / "manifest.json").read_text())["snippets"]["token-embeddings/software_row"]
    assert entry["origin"] == "executed"
    weights = snapshot_dir(stand_in_cache) / "model.safetensors"
    assert entry["model"]["files"]["model.safetensors"] == sha256_file(weights)

    script = tmp_path / "limit.py"
    script.write_text("\n\n".join(cells(copy)), encoding="utf-8")
    limit = run("python", str(script), cwd=tmp_path, env=offline_env(stand_in_cache))
    assert limit.returncode == 0, limit.stderr
    recorded = "".join((copy / "outputs" / f"{name}.txt").read_text(encoding="utf-8") for name in discover(copy))
    assert limit.stdout == recorded


# Were it installed, `pip install -r requirements.txt` would install the copy (`-e .`) into this venv.
def test_make_in_a_copy_takes_this_venv_as_installed(run, tmp_path: Path) -> None:
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copyfile(ROOT / name, tmp_path / name)
    result = run(*MAKE, "--dry-run", "record", "site", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all(f"{sys.prefix}/bin/python -m " in line for line in lines), lines

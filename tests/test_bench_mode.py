"""What `make bench` relies on: stand-in outputs recorded never into the project, only into a copy it
made, a limit that does the record step's work, and `make` in a copy that never installs anything."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.run import MAKE, cells
from recorder.snippets import discover
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
def test_the_benchmark_s_limit_prints_what_the_record_step_s_runner_prints(
        run, tmp_path: Path, stand_in_cache: Path, stand_in_outputs: list[dict[str, str]]) -> None:
    """The limit does the record step's work: one plain script printing what each snippet records, part by part.

    `make bench` checks this again against its own recording before it times anything."""
    script = tmp_path / "limit.py"
    script.write_text("\n\n".join(cells(ROOT)), encoding="utf-8")
    limit = run("python", str(script), cwd=tmp_path, env=offline_env(stand_in_cache))
    assert limit.returncode == 0, limit.stderr
    assert limit.stdout == "".join(stand_in_outputs[0][name] for name in discover(ROOT))


# Were it installed, `pip install -r requirements.txt` would install the copy (`-e .`) into this venv.
def test_make_in_a_copy_takes_this_venv_as_installed(run, tmp_path: Path) -> None:
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copyfile(ROOT / name, tmp_path / name)
    result = run(*MAKE, "--dry-run", "record", "site", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all(f"{sys.prefix}/bin/python -m " in line for line in lines), lines

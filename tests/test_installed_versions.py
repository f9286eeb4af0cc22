"""Outputs are stale when a package they depend on is another release, never for a build's local label
(`2.13.0`, `2.13.0+cpu` and `2.13.0+cu130` are one release of torch); the message names the package and
both versions, and says what helps."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.run import MAKE
from recorder.project import manifest, snippets, staleness
from recorder.project.config import Project
from support import ROOT, offline_env, snapshot

RECORDED_TORCH = {record.versions["torch"] for record in manifest.read(ROOT).values() if "torch" in record.versions}
real_installed_version = snippets.installed_version


def installing(monkeypatch: pytest.MonkeyPatch, torch: str) -> None:
    """As if `torch` were the installed version of torch."""
    monkeypatch.setattr(
        snippets, "installed_version", lambda package: torch if package == "torch" else real_installed_version(package)
    )


def test_the_committed_outputs_name_one_torch() -> None:
    assert len(RECORDED_TORCH) == 1, RECORDED_TORCH


@pytest.mark.parametrize("torch", ["2.13.0", "2.13.0+cpu", "2.13.0+cu130"])
def test_a_build_s_local_label_leaves_every_output_current(monkeypatch: pytest.MonkeyPatch, torch: str) -> None:
    installing(monkeypatch, torch)
    assert staleness.stale(Project.load(ROOT)) == []


def test_another_release_than_the_pin_is_named_and_reinstalling_is_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    installing(monkeypatch, "2.12.0+cpu")
    found = staleness.stale(Project.load(ROOT))
    assert found and {problem.snippet for problem in found} == {
        name for name, record in manifest.read(ROOT).items() if "torch" in record.versions
    }
    [recorded] = RECORDED_TORCH
    for problem in found:
        assert f"torch: recorded with {recorded}, installed 2.12.0+cpu" in problem.message
        assert "does not hold requirements.txt's torch==2.13.0" in problem.message
        assert "rm -r .venv" in problem.message and "make record" not in problem.message


def test_a_new_pin_is_named_and_recording_is_the_fix(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    requirements = project / "requirements.txt"
    requirements.write_text(requirements.read_text().replace("torch==2.13.0", "torch==2.14.0"))
    installing(monkeypatch, "2.14.0")
    found = staleness.stale(Project.load(project))
    assert found
    for problem in found:
        assert "torch: recorded with" in problem.message and "installed 2.14.0." in problem.message
        assert "Run `make record` to record with the installed versions" in problem.message


@pytest.mark.slow
def test_make_site_where_torch_is_another_build_of_the_same_release_rewrites_nothing(
    project: Path, tmp_path: Path
) -> None:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy2(ROOT / name, project)
    # Found first on the path, this is what the build reads as torch's version; torch itself is unchanged.
    other_build = tmp_path / "other-build"
    (other_build / "torch-2.13.0+cu130.dist-info").mkdir(parents=True)
    (other_build / "torch-2.13.0+cu130.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0+cu130\n"
    )
    env = {name: value for name, value in offline_env().items() if name not in ("MAKEFLAGS", "MFLAGS")}
    env["PYTHONPATH"] = str(other_build)
    seen = subprocess.run(
        [sys.executable, "-c", "from importlib.metadata import version; print(version('torch'))"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert seen == "2.13.0+cu130"

    def committed() -> list[dict[str, bytes]]:  # docs/generated/ is the state any build keeps, not a recording
        return [
            {name: data for name, data in snapshot(project / folder).items() if not name.startswith("generated/")}
            for folder in ("outputs", "docs")
        ]

    before = committed()
    ran = subprocess.run(
        [*MAKE, "site"], cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "recorded" not in ran.stdout, ran.stdout
    assert committed() == before


def test_another_transformers_release_is_named_for_every_snippet_that_loads_gpt2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each package an output depends on is compared, not torch alone: transformers decides what a model prints."""
    monkeypatch.setattr(
        snippets,
        "installed_version",
        lambda package: "5.18.0" if package == "transformers" else real_installed_version(package),
    )
    found = staleness.stale(Project.load(ROOT))
    loading = {name for name, record in manifest.read(ROOT).items() if "transformers" in record.versions}
    assert loading and {problem.snippet for problem in found} == loading
    for problem in found:
        assert "transformers: recorded with 5.17.0, installed 5.18.0" in problem.message

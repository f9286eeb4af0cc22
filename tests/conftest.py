"""Shared fixtures: stand-in GPT-2 checkpoints in offline Hugging Face caches, what the
snippets print against them, the built site, and project copies to break on purpose.

What is expensive is made once per test run, even when pytest-xdist's workers all
ask for it: the first worker makes it under a file lock, the others wait and reuse it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from recorder.project.repository import VARIABLES as REPOSITORY_VARIABLES
from recorder.record.runner import in_child
from support import ROOT, SEEDS, copy_project, offline_env, stand_ins_with_outputs, zensical_build

pytest_plugins = ["snippet_coverage"]

Run = Callable[..., subprocess.CompletedProcess[str]]

# Builds made in this process print MkDocs 2's notice otherwise, as the Makefile's commands would.
os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
# One thread for torch in every process the tests start: the workers already keep every core busy, and torch's
# threads spin while they wait on each other (making the stand-ins alone took a sixth less processor time).
os.environ.setdefault("OMP_NUM_THREADS", "1")
# GitHub Actions says where the repository is; the tests build without it unless they set it,
# so that pages link inside the site (tests/test_repository_links.py builds both ways).
for variable in REPOSITORY_VARIABLES:
    os.environ.pop(variable, None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests first, so that the workers' quick ones fill the time left, not the other way round."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def zensical_stays_out_of_the_worker() -> Iterator[None]:
    """A process that has loaded Zensical's package takes itself for Zensical (recorder/engines/config.py), so every
    later MkDocs build in the worker from another folder would fail, whichever test it is. Named at the test that
    loaded it."""
    yield
    assert "zensical" not in sys.modules, (
        "this test loaded Zensical's package into the test worker, which then takes itself for Zensical: "
        "run what needs Zensical in a child process (as support.zensical_build does)."
    )


@pytest.fixture(scope="session")
def shared_folder(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A folder of this test run that every xdist worker sees."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


def made_once(shared: Path, name: str, make: Callable[[Path], None]) -> Path:
    """`shared/name`, made by `make` the first time any worker asks for it."""
    folder = shared / name
    with FileLock(shared / f"{name}.lock"):
        if not (shared / f"{name}.done").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            (shared / f"{name}.done").touch()
    return folder


def _stand_ins_made_in_a_child(folder: Path) -> None:
    # The child inherits this process's environment: offline from the start, as the hub library reads
    # HF_HUB_OFFLINE once, when imported.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        outputs = in_child(stand_ins_with_outputs, folder)
    (folder / "outputs.json").write_text(json.dumps(outputs), encoding="utf-8")


@pytest.fixture(scope="session")
def stand_ins(shared_folder: Path) -> Path:
    """Two GPT-2-architecture checkpoints with the real tokenizer and other random weights, each where
    `from_pretrained` looks in its own Hugging Face cache, and what every snippet prints against each."""
    return made_once(shared_folder, "stand-ins", _stand_ins_made_in_a_child)


@pytest.fixture(scope="session")
def stand_in_caches(stand_ins: Path) -> tuple[Path, Path]:
    first, second = (stand_ins / f"seed-{seed}" for seed in SEEDS)
    return first, second


@pytest.fixture(scope="session")
def stand_in_cache(stand_in_caches: tuple[Path, Path]) -> Path:
    return stand_in_caches[0]


@pytest.fixture(scope="session")
def stand_in_outputs(stand_ins: Path) -> list[dict[str, str]]:
    """Every snippet's stdout against each stand-in, run by the record step's own runner.

    These runs execute every snippet, so they are the ones coverage measures.
    """
    return json.loads((stand_ins / "outputs.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def built_site(shared_folder: Path) -> Path:
    """The unmodified project built by `mkdocs build --strict`, for the tests that only read it."""

    def build_with_the_command_line(folder: Path) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
            cwd=ROOT,
            env=offline_env(),
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr

    return made_once(shared_folder, "site", build_with_the_command_line)


@pytest.fixture(scope="session")
def zensical_site(shared_folder: Path) -> Path:
    """A copy of the project built by `zensical build --strict` from its folder, as Zensical is run."""

    def build(folder: Path) -> None:
        result = zensical_build(copy_project(folder))
        assert result.returncode == 0, result.stdout + result.stderr

    return made_once(shared_folder, "zensical", build) / "site"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project to break on purpose."""
    (tmp_path / "project").mkdir()
    return copy_project(tmp_path / "project")


@pytest.fixture
def run() -> Run:
    """Run a command in a folder, capturing text; `python` means this interpreter."""

    def run_command(
        *command: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600
    ) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable if command[0] == "python" else command[0], *command[1:]]
        return subprocess.run(
            argv, cwd=cwd, env=env or offline_env(), capture_output=True, text=True, timeout=timeout, check=False
        )

    return run_command

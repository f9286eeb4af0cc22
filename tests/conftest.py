"""Shared fixtures: a stand-in GPT-2 in an offline Hugging Face cache, and project copies."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from recorder import checkpoint
from recorder.published import trial_outputs
from support import PROJECT_PARTS, ROOT, offline_env


Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def stand_in_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A GPT-2-architecture checkpoint with the real tokenizer, where `from_pretrained` looks."""
    cache = tmp_path_factory.mktemp("hub-seed-1")
    checkpoint.create(cache, seed=1)
    return cache


@pytest.fixture(scope="session")
def second_stand_in_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Same architecture, other random weights: lines that change between the two depend on weights."""
    cache = tmp_path_factory.mktemp("hub-seed-2")
    checkpoint.create(cache, seed=2)
    return cache


@pytest.fixture(scope="session")
def stand_in_outputs(stand_in_cache: Path, second_stand_in_cache: Path) -> list[dict[str, str]]:
    """Every snippet's stdout against each stand-in, run by the record step's own runner."""
    from recorder.snippets import discover

    names = list(discover(ROOT))
    return [trial_outputs(ROOT, names, cache, timeout=300) for cache in (stand_in_cache, second_stand_in_cache)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project to break on purpose."""
    copy = tmp_path / "project"
    copy.mkdir()
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, copy / part, ignore=shutil.ignore_patterns("__pycache__", ".record.lock"))
        else:
            shutil.copy2(source, copy / part)
    return copy


@pytest.fixture
def run() -> Run:
    """Run a command in a folder, capturing text; `python` means this interpreter."""

    def run_command(*command: str, cwd: Path, env: dict[str, str] | None = None,
                    timeout: float = 600) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable if command[0] == "python" else command[0], *command[1:]]
        return subprocess.run(argv, cwd=cwd, env=env or offline_env(), capture_output=True,
                              text=True, timeout=timeout, check=False)

    return run_command

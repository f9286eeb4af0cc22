"""Plain helpers for the tests (fixtures live in conftest.py)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from recorder.repository import VARIABLES as REPOSITORY_VARIABLES

ROOT = Path(__file__).resolve().parents[1]
# What a project copy needs to record outputs and build the site.
PROJECT_PARTS = ("docs", "hooks", "outputs", "overrides", "published", "snippets", "mkdocs.yml",
                 "requirements.txt")


def offline_env(hub_cache: Path | None = None, **extra: str) -> dict[str, str]:
    # Without the repository's location, which GitHub Actions sets in CI: pages link inside the site.
    inherited = {name: value for name, value in os.environ.items() if name not in REPOSITORY_VARIABLES}
    env = {**inherited, "HF_HUB_OFFLINE": "1", "NO_MKDOCS_2_WARNING": "1", **extra}
    if hub_cache is not None:
        env["HF_HUB_CACHE"] = str(hub_cache)
    else:
        env.pop("HF_HUB_CACHE", None)
    return env


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` with its bytes, to prove nothing changed."""
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file() and path.name != ".record.lock"}


def build(run: Callable[..., subprocess.CompletedProcess[str]], project: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of a project copy into its own site/."""
    return run("python", "-m", "mkdocs", "build", "--strict", "--site-dir", str(project / "site"), cwd=project)


def edit(path: Path, old: str, new: str) -> str:
    """Replace the first `old` in a file (which must hold it); returns the original text."""
    original = path.read_text(encoding="utf-8")
    assert old in original
    path.write_text(original.replace(old, new, 1), encoding="utf-8")
    return original

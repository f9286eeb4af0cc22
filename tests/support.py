"""Plain helpers for the tests (fixtures live in conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What a project copy needs to record outputs and build the site.
PROJECT_PARTS = ("docs", "hooks", "outputs", "published", "snippets", "mkdocs.yml")


def offline_env(hub_cache: Path | None = None, **extra: str) -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "NO_MKDOCS_2_WARNING": "1", **extra}
    if hub_cache is not None:
        env["HF_HUB_CACHE"] = str(hub_cache)
    else:
        env.pop("HF_HUB_CACHE", None)
    return env


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` with its bytes, to prove nothing changed."""
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file() and path.name != ".record.lock"}

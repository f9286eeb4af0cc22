"""`python -m recorder check`: every way the committed outputs and notebooks lag behind the sources."""

from __future__ import annotations

from pathlib import Path

from recorder import notebook, store


def problems(root: Path) -> list[store.Problem]:
    """Stale or hand-edited outputs first, then notebooks that differ from what `make record` writes."""
    project, recorded = notebook.load(root)
    return store.problems(project.root, entries=recorded.manifest) + notebook.problems(project, recorded)

"""One base for the errors the project raises for the user: what its command lines catch."""

from __future__ import annotations

import ast
import importlib

from recorder.project.config import ProjectError
from recorder.project.errors import RecorderError
from support import ROOT


def test_every_exception_the_project_defines_derives_from_recorder_error() -> None:
    found = []
    for package in ("recorder", "bench", "tools"):
        for path in sorted((ROOT / package).rglob("*.py")):  # recorder's subpackages too
            classes = [
                node.name for node in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(node, ast.ClassDef)
            ]
            module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
            found += [getattr(module, name) for name in classes if issubclass(getattr(module, name), Exception)]
    # The base, and one of a subpackage: the scan reached them.
    assert {RecorderError, ProjectError} <= set(found), "the project's exceptions were not found"
    assert [error for error in found if not issubclass(error, RecorderError)] == []

"""Run Python scripts as `python PATH` would, each in a fresh child of one warm interpreter.

Usage: python tests/script_runner.py PATH...  (prints a JSON object: path -> exit code, stdout, stderr)

A model snippet spends about 7 of its 9 seconds importing torch and transformers. This
interpreter imports the third-party modules the scripts name once, then forks a child per
script, so each run costs only its own work. The child is what a fresh `python PATH` is to
the script: `__name__ == "__main__"`, `sys.argv == [PATH]`, the script's folder first on
`sys.path` (and nothing of the project imported), its own copy of every module it imports
from that folder, its own stdout and stderr.
"""

from __future__ import annotations

import ast
import gc
import importlib
import json
import os
import runpy
import sys
import tempfile
import traceback
from pathlib import Path


def third_party_imports(scripts: list[Path]) -> set[tuple[str, str | None]]:
    """(module, name) for every `import module` / `from module import name` in the scripts'
    folders (a script may import its siblings) that is not itself a sibling."""
    siblings = {path for script in scripts for path in script.parent.glob("*.py")}
    shared = {path for script in scripts for path in script.parent.parent.glob("*.py")}  # snippets/'s own
    local = {path.stem for path in siblings | shared}
    found: set[tuple[str, str | None]] = set()
    for path in siblings:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {(alias.name, None) for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found |= {(node.module, alias.name) for alias in node.names}
    return {(module, name) for module, name in found if module.split(".")[0] not in local}


def preload(imports: set[tuple[str, str | None]]) -> None:
    """Import each module, and resolve each imported name, which transformers loads lazily."""
    for module, name in sorted(imports, key=str):
        loaded = importlib.import_module(module)
        if name is not None:
            getattr(loaded, name, None)


def run_in_child(script: Path) -> dict[str, object]:
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.dup2(stdout.fileno(), 1)
            os.dup2(stderr.fileno(), 2)
            os._exit(_run_as_main(script))
        _, status = os.waitpid(pid, 0)
        stdout.seek(0)
        stderr.seek(0)
        return {
            "returncode": os.waitstatus_to_exitcode(status),
            "stdout": stdout.read().decode(),
            "stderr": stderr.read().decode(),
        }


def _run_as_main(script: Path) -> int:
    sys.argv = [str(script)]
    sys.path[0] = str(script.resolve().parent)
    code = 0
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def main(paths: list[str]) -> None:
    scripts = [Path(path) for path in paths]
    preload(third_party_imports(scripts))
    # Out of the collector's sight: a child's collections would otherwise visit, and so copy, every object of
    # torch and transformers it shares with this process (the runs took a fifth longer).
    gc.freeze()
    print(json.dumps({path: run_in_child(script) for path, script in zip(paths, scripts, strict=True)}))


if __name__ == "__main__":
    main(sys.argv[1:])

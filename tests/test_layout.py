"""The code's layout, as CONTRIBUTING.md states it once: a rule per folder of recorder/ saying which others its
modules may import, so that imports run down the layers; and no import cycle.

Only the files are read, with ast: nothing of the project is imported, so this takes milliseconds.
Every import counts, inside functions too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("recorder", "bench", "tools")
SECTION = "## How the code is laid out"
ANYTHING = "anything"

Graph = dict[str, set[str]]  # "recorder/record/store.py" -> the project's modules it imports


def _only_a_docstring(path: Path) -> bool:
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return len(body) <= 1 and all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body)


def modules() -> list[str]:
    """Every module of FOLDERS, as a path from the root; a package's `__init__.py` that holds only its docstring is
    no module of its own."""
    return sorted(
        path.relative_to(ROOT).as_posix()
        for folder in FOLDERS
        for path in (ROOT / folder).rglob("*.py")
        if not (path.name == "__init__.py" and _only_a_docstring(path))
    )


def _file(dotted: str) -> str | None:
    """The project's file that a dotted name imports, if it names one: a module, or a package's `__init__.py`."""
    parts = dotted.split(".")
    if parts[0] not in FOLDERS:
        return None
    for module in ("/".join(parts) + ".py", "/".join(parts) + "/__init__.py"):
        if (ROOT / module).is_file():
            return module
    return None


def imports(module: str, known: set[str]) -> set[str]:
    """The project's modules that `module` imports, wherever in it the import stands."""
    folder = module.split("/")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse((ROOT / module).read_text(encoding="utf-8"), module)):
        if isinstance(node, ast.Import):
            found.update(filter(None, (_file(alias.name) for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(filter(None, [folder if node.level else "", node.module or ""]))
            # `from recorder.record import store` imports a module; `from recorder.record.store import X` a name.
            for alias in node.names:
                found.add(_file(f"{base}.{alias.name}") or _file(base) or "")
    return {imported for imported in found if imported in known and imported != module}


def graph() -> Graph:
    known = set(modules())
    return {module: imports(module, known) for module in sorted(known)}


def rules() -> dict[str, set[str] | None]:
    """CONTRIBUTING.md's rule for each place: the folders of recorder/ its modules may import besides their own,
    or None for anything."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert SECTION in text, f"CONTRIBUTING.md has no section {SECTION!r}: the rule of each folder belongs there."
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    found: dict[str, set[str] | None] = {}
    for place, allowed in re.findall(r"^\| `([^`]+)` \|[^|\n]*\| ([^|\n]+) \|$", section, re.M):
        found[place] = None if allowed.strip() == ANYTHING else set(re.findall(r"`([^`]+)`", allowed))
    return found


def place(module: str, known: dict[str, set[str] | None]) -> str:
    """The place of CONTRIBUTING.md's rules that `module` belongs to: its own file's row, else its folder's."""
    if module in known:
        return module
    for folder in sorted((name for name in known if name.endswith("/")), key=len, reverse=True):
        if module.startswith(folder):
            return folder
    return ""


def upward(found: Graph, known: dict[str, set[str] | None]) -> list[str]:
    """Each import that the rule of its module's place does not allow, with what to do about it."""
    wrong = []
    for module, imported_modules in sorted(found.items()):
        own = place(module, known)
        allowed = known.get(own)
        for imported in sorted(imported_modules):
            target = place(imported, known)
            if allowed is None or target == own or target in allowed:
                continue
            wrong.append(
                f"{module} ({own}) imports {imported} ({target}), which the rule of {own} in CONTRIBUTING.md does "
                f"not allow: move what it needs into a folder {own} may import."
            )
    return wrong


def cycle(found: Graph) -> list[str]:
    """One import cycle of `found` as [a, b, ..., a], or [] when there is none."""
    state: dict[str, str] = {}  # "open" while on the current path, then "done"
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = "open"
        path.append(module)
        for imported in sorted(found.get(module, ())):
            if state.get(imported) == "open":
                return [*path[path.index(imported) :], imported]
            if imported not in state and (loop := visit(imported)):
                return loop
        path.pop()
        state[module] = "done"
        return []

    for module in sorted(found):
        if module not in state and (loop := visit(module)):
            return loop
    return []


def test_imports_are_read() -> None:
    found = graph()
    # A check over no imports would pass whatever the code did: these three are known to be there.
    assert "recorder/record/store.py" in found["recorder/record/step.py"], "record/step.py's imports were not read"
    assert "recorder/check/state.py" in found["recorder/engines/config.py"], "engines/config.py's were not read"
    assert "recorder/record/article.py" in found["bench/run.py"], "`from recorder.record import article` not read"


def test_every_module_has_a_rule() -> None:
    known = rules()
    assert known, "CONTRIBUTING.md states no rule"
    homeless = [module for module in modules() if not place(module, known)]
    assert not homeless, f"no rule of CONTRIBUTING.md covers {homeless}: add a row for its folder to {SECTION!r}."
    gone = [name for name in known if not (ROOT / name).exists()]
    assert not gone, f"CONTRIBUTING.md states rules for {gone}, which do not exist: remove their rows."


def test_imports_run_down_the_layers() -> None:
    wrong = upward(graph(), rules())
    assert not wrong, "imports that the layers do not allow:\n" + "\n".join(wrong)


def test_no_import_cycle() -> None:
    found = cycle(graph())
    assert not found, (
        f"import cycle: {' -> '.join(found)}. Move what these modules need from each other "
        "into a module of a lower layer that imports none of them."
    )


def test_the_checks_catch_a_cycle_and_an_import_up_the_layers() -> None:
    assert cycle({"a.py": {"b.py"}, "b.py": {"a.py"}}) == ["a.py", "b.py", "a.py"]
    assert cycle({"a.py": {"b.py"}, "b.py": set()}) == []
    known = {"recorder/low/": set(), "recorder/high/": {"recorder/low/"}, "recorder/__main__.py": None}
    found = {
        "recorder/low/a.py": {"recorder/low/b.py", "recorder/high/c.py"},
        "recorder/high/c.py": {"recorder/low/a.py", "recorder/__main__.py"},
        "recorder/__main__.py": {"recorder/high/c.py"},
    }
    assert [line.split(",")[0] for line in upward(found, known)] == [
        "recorder/high/c.py (recorder/high/) imports recorder/__main__.py (recorder/__main__.py)",
        "recorder/low/a.py (recorder/low/) imports recorder/high/c.py (recorder/high/)",
    ]


def _calls(module: str) -> set[str]:
    """The names of the functions and methods `module` calls."""
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    return {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
    }


@pytest.mark.parametrize("module", [module for module in modules() if module.startswith("recorder/render/")])
def test_the_build_only_reads(module: str) -> None:
    """render/ turns what was recorded into HTML: it writes no file, into the docs folder or anywhere."""
    writes = _calls(module) & {"write_text", "write_bytes", "replace_file", "unlink", "mkdir", "rmtree", "commit"}
    assert not writes, f"{module} calls {sorted(writes)}: the build only reads; the state writes (recorder/check/)"


@pytest.mark.parametrize("module", [module for module in modules() if module.startswith("recorder/record/")])
def test_the_record_step_imports_no_engine(module: str) -> None:
    """The record step is engine-free: it runs before any engine reads, and reads the configuration as plain YAML."""
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    names |= {str(node.module) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    engines = sorted(name for name in names if name.split(".")[0] in {"mkdocs", "zensical"})
    assert not engines, f"{module} imports {engines}: the record step reads the configuration as plain YAML"

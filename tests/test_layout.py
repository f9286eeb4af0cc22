"""The code's layout, as the module map of CONTRIBUTING.md states it: imports run down the layers, in no cycle.

Only the files are read, with ast: nothing of the project is imported, so this takes milliseconds.
Every import counts, inside functions too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("recorder", "bench", "tools")
MAP = "## How the code is laid out"

# recorder's layers, lowest first. A module imports only from its own layer and the ones before it.
LAYERS = ("base", "record", "recorded", "pages", "state", "commands", "engines", "command line")
RECORDER = {  # each module of recorder/, as its path there without .py
    "errors": "base",
    "pinned": "base",
    "directives": "base",
    "values": "base",
    "repository": "base",
    "provenance": "base",
    "record/project": "record",
    "record/snippets": "record",
    "record/hub": "record",
    "record/runner": "record",
    "record/published": "record",
    "record/store": "record",
    "render/tokenizer_files": "record",
    "recorded": "recorded",
    "record/notebook": "recorded",
    "render/pages": "pages",
    "render/compat_page": "pages",
    "render/page": "pages",
    "render/conversion": "pages",
    "render/notebook_page": "pages",
    "state": "state",
    "record/step": "commands",
    "tools/diff": "commands",
    "tools/pr_record": "commands",
    "tools/pr_compat": "commands",
    "tools/compat": "commands",
    "render/extension": "engines",
    "render/plugin": "engines",
    "render/preview": "engines",
    "render/llms_markdown": "engines",
    "__main__": "command line",
}
# The other folders: the last layer of recorder/ each may import, and whether its modules may import each other.
TOP = {"bench": ("command line", True), "tools": ("command line", True)}

Graph = dict[str, set[str]]  # "recorder/record/store.py" -> the project's modules it imports


def _only_a_docstring(path: Path) -> bool:
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return len(body) <= 1 and all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body)


def modules() -> list[str]:
    """Every module of FOLDERS and their packages, as a path from the root; a package's `__init__.py` that holds
    only its docstring is no module of its own: its folder stands for it."""
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
            names = [alias.name for alias in node.names]
            found.update(filter(None, (_file(name) for name in names)))
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(filter(None, [folder if node.level else "", node.module or ""]))
            # `from recorder.record import store` imports a module; `from recorder.record.store import X` a name.
            for alias in node.names:
                found.add(_file(f"{base}.{alias.name}") or _file(base) or "")
    return {imported for imported in found if imported in known and imported != module}


def graph() -> Graph:
    known = set(modules())
    return {module: imports(module, known) for module in sorted(known)}


def layer(module: str) -> str:
    folder, name = module.split("/", 1)
    return RECORDER.get(name.removesuffix(".py"), "") if folder == "recorder" else folder


def cycle(graph: Graph) -> list[str]:
    """One import cycle of `graph` as [a, b, ..., a], or [] when there is none."""
    state: dict[str, str] = {}  # "open" while on the current path, then "done"
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = "open"
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            if state.get(imported) == "open":
                return [*path[path.index(imported) :], imported]
            if imported not in state and (found := visit(imported)):
                return found
        path.pop()
        state[module] = "done"
        return []

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return []


def upward(graph: Graph) -> list[str]:
    """Each import that runs back up the layers, with what to do about it."""
    wrong = []
    for module, imported_modules in sorted(graph.items()):
        folder = module.split("/")[0]
        # The last recorder/ layer it may import, and whether it may import the modules of its own folder.
        ceiling, own = (layer(module), True) if folder == "recorder" else TOP[folder]
        for imported in sorted(imported_modules):
            target = imported.split("/")[0]
            if ceiling not in LAYERS or (target == "recorder" and layer(imported) not in LAYERS):
                continue  # a recorder/ module without a layer: test_every_recorder_module_has_a_layer says so
            if target == "recorder":
                allowed = LAYERS.index(layer(imported)) <= LAYERS.index(ceiling)
            else:
                allowed = target == folder and own
            if allowed:
                continue
            fix = (
                f"or, if {module} belongs in a later layer, move it there (RECORDER here and "
                "CONTRIBUTING.md's module map)"
                if folder == "recorder"
                else f"which is recorder/ up to its {ceiling} layer{'' if own else f', not the rest of {folder}/'}"
            )
            wrong.append(
                f"{module} ({layer(module)}) imports {imported} ({layer(imported)}): move what it "
                f"needs into a module of a layer {module} may import, {fix}"
            )
    return wrong


def map_rows() -> dict[str, list[str]]:
    """The module map's rows: each module it names, with the layers it gives it."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert MAP in text, f"CONTRIBUTING.md has no section {MAP!r}: the module map belongs there."
    section = text.split(MAP, 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    for match in re.finditer(r"^\| `([^`]+\.py)` \| ([^|]+?) \|", section, re.M):
        rows.setdefault(match[1], []).append(match[2])
    return rows


def test_imports_are_read() -> None:
    found = graph()
    # A check over no imports would pass whatever the code did: these three are known to be there.
    assert "recorder/record/store.py" in found["recorder/record/step.py"], "record/step.py's imports were not read"
    assert "recorder/check/state.py" in found["recorder/engines/extension.py"], "the extension's imports were not read"
    assert "recorder/record/article.py" in found["bench/run.py"], "`from recorder.record import published` was not read"


def test_no_import_cycle() -> None:
    found = cycle(graph())
    assert not found, (
        f"import cycle: {' -> '.join(found)}. Move what these modules need from each other "
        "into a module of a lower layer that imports none of them."
    )


def test_every_recorder_module_has_a_layer() -> None:
    names = {
        module.removeprefix("recorder/").removesuffix(".py") for module in modules() if module.startswith("recorder/")
    }
    assert not names - set(RECORDER), (
        f"recorder/ modules with no layer: {sorted(names - set(RECORDER))}. "
        "Add each to RECORDER in tests/test_layout.py, and a row to "
        "CONTRIBUTING.md's module map."
    )
    assert not set(RECORDER) - names, (
        f"RECORDER names modules that recorder/ no longer has: "
        f"{sorted(set(RECORDER) - names)}. Remove them here and from the map."
    )
    assert set(RECORDER.values()) <= set(LAYERS), "RECORDER names a layer that is not in LAYERS"


def test_imports_run_down_the_layers() -> None:
    wrong = upward(graph())
    assert not wrong, "imports that run back up the layers:\n" + "\n".join(wrong)


def test_the_module_map_lists_every_module_in_its_layer() -> None:
    rows = map_rows()
    missing = [module for module in modules() if module not in rows]
    assert not missing, (
        f"CONTRIBUTING.md's module map ({MAP}) has no row for {missing}: add one each, with its layer and its one job."
    )
    gone = [module for module in rows if module.split("/")[0] in FOLDERS and module not in modules()]
    assert not gone, f"CONTRIBUTING.md's module map lists modules that no longer exist: {gone}. Remove their rows."
    twice = [module for module, layers in rows.items() if len(layers) > 1]
    assert not twice, f"CONTRIBUTING.md's module map has more than one row for {twice}: keep one each."
    misplaced = [
        f"{module}: the map says {layers[0]!r}, tests/test_layout.py says {layer(module)!r}"
        for module, layers in rows.items()
        if module in modules() and layers[0] != layer(module)
    ]
    assert not misplaced, "the module map and RECORDER disagree; make them say the same:\n" + "\n".join(misplaced)


def test_the_checks_catch_a_cycle_and_an_import_up_the_layers() -> None:
    assert cycle({"recorder/a.py": {"recorder/b.py"}, "recorder/b.py": {"recorder/a.py"}}) == [
        "recorder/a.py",
        "recorder/b.py",
        "recorder/a.py",
    ]
    assert cycle({"recorder/a.py": {"recorder/b.py"}, "recorder/b.py": set()}) == []
    up = {
        "recorder/record/store.py": {"recorder/record/notebook.py", "recorder/project/errors.py"},
        "recorder/project/errors.py": {"recorder/engines/plugin.py", "bench/run.py"},
        "recorder/engines/plugin.py": {
            "recorder/render/llms_markdown.py",
            "recorder/record/step.py",
            "recorder/__main__.py",
        },
        "recorder/record/step.py": {"recorder/engines/plugin.py"},
        "tools/audit.py": {"bench/run.py", "recorder/__main__.py", "tools/local_site.py"},
    }
    assert [line.split(":")[0] for line in upward(up)] == [
        "recorder/project/errors.py (base) imports bench/run.py (bench)",
        "recorder/project/errors.py (base) imports recorder/engines/plugin.py (engines)",
        "recorder/record/step.py (commands) imports recorder/engines/plugin.py (engines)",
        "recorder/record/store.py (record) imports recorder/record/notebook.py (recorded)",
        "recorder/engines/plugin.py (engines) imports recorder/__main__.py (command line)",
        "tools/audit.py (tools) imports bench/run.py (bench)",
    ]


def test_each_package_lists_its_modules_in_the_map_s_order() -> None:
    """A listing of a package is alphabetical; its docstring and the map give the order the data takes."""
    order = list(map_rows())
    for init in sorted((ROOT / "recorder").glob("*/__init__.py")):
        package = init.parent.relative_to(ROOT).as_posix()
        names = [module for module in order if module.startswith(package + "/")]
        docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        missing = [module for module in names if Path(module).name not in docstring]
        assert not missing, f"{package}/__init__.py's docstring does not name {missing}: list each in its stage."
        listed = sorted(names, key=lambda module: docstring.index(Path(module).name))
        assert listed == names, (
            f"{package}/__init__.py lists its modules as {listed}, CONTRIBUTING.md's module map "
            f"as {names}: give both the order the data takes."
        )


def test_the_record_step_imports_no_engine_and_nothing_of_render() -> None:
    """The record step is engine-free: it runs before any engine reads, and what it shares with the build sits
    below both."""
    found = graph()
    for module in (name for name in found if name.startswith("recorder/record/")):
        upward_imports = sorted(imported for imported in found[module] if imported.startswith("recorder/render/"))
        assert not upward_imports, f"{module} imports {upward_imports}: move what both need below both"
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        engines = sorted(
            {
                alias.name
                for node in ast.walk(tree)
                if isinstance(node, ast.Import)
                for alias in node.names
                if alias.name.split(".")[0] in {"mkdocs", "zensical"}
            }
            | {
                str(node.module)
                for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and str(node.module).split(".")[0] in {"mkdocs", "zensical"}
            }
        )
        assert not engines, f"{module} imports {engines}: the record step reads the configuration as plain YAML"

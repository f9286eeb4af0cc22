"""The companion notebook of a page: its examples as cells, under them their recorded outputs.

It is generated, never edited. `make record` writes it from the page's code and
example directives (in page order), the snippet sections they show (read the
way the page's `--8<--` includes read them) and the outputs recorded for them.
The build reports a notebook that differs from what `generate` returns now,
like any other drift.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any

import nbformat
from markdown import Markdown
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.utils.meta import get_data
from nbformat import v4
from packaging.utils import canonicalize_name

from recorder import snippets, store
from recorder.directives import Example, Listing, parse
from recorder.errors import RecorderError
from recorder.pages import PageError, Recorded, check_include, fence, recorded
from recorder.pinned import SNIPPETS_DIR
from recorder.project import NOTEBOOKS_DIR, Part, Project
from recorder.provenance import Origin
from recorder.snippets import REQUIREMENTS


def load(root: Path, manifest: dict[str, dict[str, Any]] | None = None) -> tuple[Project, Recorded]:
    """The project and its recorded outputs, as the build reads them (a record run passes its manifest)."""
    project = Project.load(root)
    return project, recorded(project, manifest=manifest)


def generate(project: Project, recorded: Recorded, part: Part) -> bytes:
    """The notebook of `part`: the bytes `make record` writes, once `update` found them valid, and
    that the build compares with the committed ones."""
    markdown = get_data((project.docs_dir / part.page).read_text(encoding="utf-8"))[0]
    # Each code or example block, in page order: what the notebook shows.
    blocks = [directive for directive in parse(markdown, part.page) if isinstance(directive, Listing)]
    outputs = {block.name: recorded.output(block.name) for block in blocks if isinstance(block, Example)}
    for block in blocks:
        check_include(recorded.root, block.file, block.section)
    section = _section_reader(project.config, recorded.root)
    imports = _imports(recorded.root, blocks)
    cells = [
        _cell("markdown", _introduction(markdown, recorded, blocks), "about"),
        _cell("code", "%pip install " + " ".join(_pins(recorded.root, imports)), "install"),
        _cell("code", "\n".join(sorted(imports, key=_module_of)), "imports"),
    ]
    for number, block in enumerate(blocks, 1):
        shown = ([{"output_type": "stream", "name": "stdout", "text": outputs[block.name]}]
                 if isinstance(block, Example) else [])
        cell_id = f"{number:02d}-{PurePosixPath(block.file).stem}-{block.section or 'all'}"[:64]
        cells.append(_cell("code", section(block), cell_id.replace("_", "-"), shown))
    metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python"}}
    notebook = nbformat.from_dict({"nbformat": v4.nbformat, "nbformat_minor": v4.nbformat_minor,
                                   "metadata": metadata, "cells": cells})
    return (nbformat.writes(notebook) + "\n").encode()


def _cell(kind: str, source: str, cell_id: str, outputs: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """A cell as nbformat's schema has it. `update` checks the notebook once, as a whole:
    nbformat's `v4.new_*` helpers would validate every cell and output on its own as well."""
    cell: dict[str, Any] = {"cell_type": kind, "id": cell_id, "metadata": {}, "source": source}
    if kind == "code":
        cell |= {"execution_count": None, "outputs": outputs or []}
    return cell


def problems(project: Project, recorded: Recorded) -> list[store.Problem]:
    """Each companion notebook that is missing, differs from what `generate` returns now, or belongs to no part."""
    found = []
    for part in project.parts():
        path, shown = _path(project, part.notebook)
        try:
            expected = generate(project, recorded, part)
        except PageError:
            continue  # building the page reports it, naming the page and the fix
        except RecorderError as error:
            found.append(store.Problem("*", f"{shown} cannot be generated: {error}"))
            continue
        if not path.exists():
            found.append(store.Problem("*", f"{shown} is missing. Run `make record` and commit it."))
        elif path.read_bytes() != expected:
            found.append(store.Problem("*", (
                f"{shown} differs from what `make record` generates from docs/{part.page}, its snippets "
                f"and {REQUIREMENTS} (edited by hand, or not regenerated). Notebooks are never "
                "edited: run `make record` and commit it."
            )))
    return found + [store.Problem("*", f"{shown} belongs to no part (no {SNIPPETS_DIR}/{path.stem}/). "
                                       "Delete it, or run `make record`, which does.")
                    for path, shown in _orphans(project)]


def update(project: Project, report: Callable[[str], None], manifest: dict[str, dict[str, Any]]) -> None:
    """Rewrite each companion notebook that differs from what `generate` returns now; drop those of no part."""
    found = recorded(project, manifest=manifest)
    for part in project.parts():
        path, shown = _path(project, part.notebook)
        try:
            data = generate(project, found, part)
            nbformat.validate(json.loads(data))
        except PageError as error:  # the build stops on it too, naming the page
            report(f"{shown} left as it was: docs/{part.page}: {error}")
            continue
        if not path.exists() or path.read_bytes() != data:
            path.parent.mkdir(exist_ok=True)
            store.replace_file(path, data)
            report(f"wrote {shown}")
    for path, shown in _orphans(project):
        path.unlink()
        report(f"removed {shown}, whose part is gone")


def _path(project: Project, notebook: str) -> tuple[Path, str]:
    """A notebook's file, and how messages name it: from the project's folder."""
    path = project.docs_dir / notebook
    return path, path.relative_to(project.root).as_posix()


def _orphans(project: Project) -> list[tuple[Path, str]]:
    owned = {part.notebook for part in project.parts()}
    return [_path(project, f"{NOTEBOOKS_DIR}/{path.name}")
            for path in sorted((project.docs_dir / NOTEBOOKS_DIR).glob("*.ipynb"))
            if f"{NOTEBOOKS_DIR}/{path.name}" not in owned]


def _section_reader(config: MkDocsConfig, root: Path) -> Callable[[Listing], str]:
    """Reads a block's code exactly as the page's `--8<--` include does, with its settings."""
    settings = dict(config.mdx_configs.get("pymdownx.snippets", {}))
    bases = settings.get("base_path", ["."])
    # As pymdownx.snippets resolves them: `!relative $config_dir/...` or relative to the working folder.
    settings["base_path"] = [os.path.abspath(base) for base in ([bases] if isinstance(bases, str) else bases)]
    reader = Markdown(extensions=["pymdownx.snippets"],
                      extension_configs={"pymdownx.snippets": settings}).preprocessors["snippet"]

    def read(block: Listing) -> str:
        body = fence(root, block.file, block.section)[1:-1]  # the lines between the fences
        return "\n".join(reader.run(body)).strip("\n")

    return read


def _imports(root: Path, blocks: list[Listing]) -> dict[str, str]:
    """The import statements of the shown snippets, by text, minus imports of other snippets.

    Sections show the code without its imports; the notebook gathers them in one cell.
    """
    folders = {root / SNIPPETS_DIR, *(root / SNIPPETS_DIR / PurePosixPath(block.file).parent for block in blocks)}
    local = {path.stem for folder in folders for path in folder.glob("*.py")}
    statements: dict[str, str] = {}
    for file in dict.fromkeys(block.file for block in blocks):
        source = (root / SNIPPETS_DIR / file).read_text(encoding="utf-8")
        for node in ast.parse(source).body:
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules = [node.module]
            else:
                continue
            if not any(module.split(".")[0] in local for module in modules):
                statements.setdefault(ast.get_source_segment(source, node), file)
    return statements


def _module_of(statement: str) -> str:
    return statement.split()[1]


def _pins(root: Path, imports: dict[str, str]) -> list[str]:
    """`NAME==VERSION` from requirements.txt for each installed package the imports need."""
    pinned = snippets.pins(root)
    distributions: Mapping[str, list[str]] = {}
    wanted = set()
    for statement, file in imports.items():
        module = _module_of(statement).split(".")[0]
        if module in sys.stdlib_module_names:
            continue
        # Most packages are named like their module; only the others need the slow map
        # of every installed package's files.
        if canonicalize_name(module) not in pinned:
            distributions = distributions or metadata.packages_distributions()
        names = distributions.get(module, [module])
        pins = [pinned[name] for name in map(canonicalize_name, names) if name in pinned]
        if not pins:
            raise store.RecordError(
                f"{SNIPPETS_DIR}/{file} imports `{module}`, which {REQUIREMENTS} does not pin. "
                f"Pin the package that provides it there as NAME==VERSION."
            )
        wanted.update(pins)
    return sorted(wanted, key=str.lower)


def _introduction(markdown: str, recorded: Recorded, blocks: list[Listing]) -> str:
    title_match = re.search(r"^# (.+)$", markdown, re.M)
    title = title_match.group(1).strip() if title_match else "this article"
    # The files of each origin, worded as the line under each output says it, without its day.
    origins: dict[str, dict[str, None]] = {}
    for block in blocks:
        if isinstance(block, Example):
            line = Origin.of(recorded.manifest[block.name]).line(markdown=True)
            origins.setdefault(line, {})[f"`{SNIPPETS_DIR}/{block.file}`"] = None
    sources = "\n".join(f"- {', '.join(files)}: {origin}" for origin, files in origins.items())
    return f"""# {title}: the notebook

Every example of the article *{title}*, one cell each, in the order the article shows them.
Run the cells from top to bottom: the first installs the pinned packages
(add `--extra-index-url https://download.pytorch.org/whl/cpu` to it for PyTorch's smaller CPU build),
the second imports what the examples use, and the examples that use GPT-2 download its files
from the Hugging Face hub at the pinned revision.

The outputs saved under the cells are the ones the site shows, not the result of running this copy:

{sources}
"""

"""Each part's companion notebook, generated, never edited: its page's code and examples as cells, read as the page
includes them, under each example its recorded output. What a notebook must hold is worked out here, like whether an
output is stale; the record step writes it (recorder/record/notebook.py), and the state reports one that lags."""

import ast
import builtins
import symtable
import sys
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

import nbformat
from markdown import Markdown
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from recorder.project import provenance, snippets
from recorder.project.config import NOTEBOOKS_DIR, REQUIREMENTS, SNIPPETS_DIR, Part, Project
from recorder.project.directives import Example, Listing, parse
from recorder.project.errors import PageError, RecorderError
from recorder.project.findings import Finding, problem, recordable
from recorder.project.outputs import Outputs, fence

_KERNEL = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}


def generate(project: Project, outputs: Outputs, part: Part) -> bytes:
    """The notebook of `part`, as `make record` writes it and the build expects it."""
    blocks = [directive for directive in parse(outputs.pages[part.page]) if isinstance(directive, Listing)]
    section = _section_reader(project)  # checks each include, before _imports reads it
    examples = [
        new_code_cell(
            section(block),
            id=f"{number:02d}-{PurePosixPath(block.file).stem}-{block.section or 'all'}"[:64].replace("_", "-"),
            outputs=[new_output("stream", text=outputs.output(block.name))] if isinstance(block, Example) else [],
        )
        for number, block in enumerate(blocks, 1)
    ]
    imports, pins = _imports(outputs.root, blocks)
    _check_runs(f"{outputs.docs_dir}/{part.page}", ["\n".join(imports), *(cell.source for cell in examples)], blocks)
    cells = [
        new_markdown_cell(_introduction(part.title, outputs, blocks, pins), id="about"),
        new_code_cell("%pip install " + " ".join(pins), id="install"),
        new_code_cell("\n".join(imports), id="imports"),
        *examples,
    ]
    return f"{nbformat.writes(new_notebook(cells=cells, metadata=_KERNEL))}\n".encode()


def _check_runs(page: str, sources: list[str], blocks: list[Listing]) -> None:
    """Refuse a page whose shown code, run cell after cell, would use a name that no cell before defines: a reader's
    notebook would stop there, though each snippet runs on its own."""
    known = set(dir(builtins))
    for number, source in enumerate(sources):
        table = symtable.symtable(source, f"cell {number}", "exec")
        defined = {symbol.get_name() for symbol in table.get_symbols() if symbol.is_assigned() or symbol.is_imported()}
        if missing := sorted(_globals_used(table) - known - defined):
            block = blocks[number - 1]
            where = f"{SNIPPETS_DIR}/{block.file}" + (f":{block.section}" if block.section else "")
            raise RecorderError(
                f"{page}: its notebook would stop at `{where}`: name `{missing[0]}` is "
                "defined by no block the page shows before it. Show the lines that define it first "
                "(a `{{ code ... }}` directive), or widen that block's section to include them."
            )
        known |= defined


def _globals_used(table: symtable.SymbolTable) -> set[str]:
    """The global names a cell's code reads, in its functions and comprehensions too."""
    names = {
        symbol.get_name()
        for symbol in table.get_symbols()
        if symbol.is_referenced()
        and (symbol.is_global() if table.get_type() != "module" else not (symbol.is_assigned() or symbol.is_imported()))
    }
    return names.union(*(_globals_used(child) for child in table.get_children()))


def stale_notebooks(project: Project, outputs: Outputs, stale: set[str]) -> list[Finding]:
    """Each companion notebook that is missing, differs from what `generate` returns now, or belongs to no part. One
    whose part has `stale` outputs (snippet names) differs for their cause: `make record` rewrites it with them."""
    return [
        finding for notebook in notebooks(project) if (finding := _notebook_problem(project, outputs, *notebook, stale))
    ]


def _notebook_problem(
    project: Project, outputs: Outputs, path: Path, name: str, part: Part | None, stale: set[str]
) -> Finding | None:
    """What is wrong with the notebook at `path`, `name` in messages, of `part`; None if nothing is."""
    if part is None:
        return recordable(
            f"{name} belongs to no part (no {SNIPPETS_DIR}/{path.stem}/). Delete it, or run `make record`, which does."
        )
    page = f"{outputs.docs_dir}/{part.page}"
    try:
        expected = generate(project, outputs, part)
    except PageError:  # the page's own problems name the directive and its fix
        if not lags(part, stale):  # fixing the page is all it takes: a problem that only follows from those
            return None
        return problem(
            f"{name} cannot be regenerated while the code or outputs {page} shows cannot be rendered: once they "
            "can, run `make record`, which rewrites it, and commit it."
        )
    except RecorderError as error:
        return problem(f"{name} cannot be generated: {error}")
    if not path.exists():
        return recordable(f"{name} is missing. Run `make record` and commit it.")
    if path.read_bytes() != expected and not lags(part, stale):
        return recordable(
            f"{name} differs from what `make record` generates from {page}, its snippets and {REQUIREMENTS} "
            "(edited by hand, or not regenerated). Notebooks are never edited: run `make record` and commit it.",
        )
    return None


def lags(part: Part, stale: set[str]) -> bool:
    """Whether an output of `part` is among the `stale` ones (snippet names): its notebook waits for them."""
    return any(snippet.startswith(f"{part.name}/") for snippet in stale)


def notebooks(project: Project) -> list[tuple[Path, str, Part | None]]:
    """Each part's notebook, then each notebook of no part, with how messages name it: from the project's folder."""
    owned: dict[Path, Part | None] = {project.docs_dir / part.notebook: part for part in project.parts()}
    for path in sorted((project.docs_dir / NOTEBOOKS_DIR).glob("*.ipynb")):
        owned.setdefault(path, None)
    return [(path, path.relative_to(project.root).as_posix(), part) for path, part in owned.items()]


def _section_reader(project: Project) -> Callable[[Listing], str]:
    """Reads a block's code exactly as the page's `--8<--` include does, with its settings."""
    reader = Markdown(
        extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": project.snippet_settings()}
    ).preprocessors["snippet"]
    # The lines between the fences of the block the page shows.
    return lambda block: "\n".join(reader.run(fence(project.root, block.file, block.section)[1:-1])).strip("\n")


def _imports(root: Path, blocks: list[Listing]) -> tuple[list[str], list[str]]:
    """The shown snippets' imports, but of other snippets (sections leave them out: the notebook gathers them in one
    cell), by module, a name imported once; and the pins of requirements.txt for the packages they need."""
    folders = {root / SNIPPETS_DIR / PurePosixPath(block.file).parent for block in blocks}
    local = {name for folder in folders for name in snippets.local_modules(folder)}  # the parts' own modules
    pinned, wanted = snippets.pins(root), set()
    statements: dict[str, str] = {}  # `import x` -> x, the module it is sorted by
    imported: dict[str, set[str]] = {}  # `from x import` -> its names, as written (`a`, `a as b`)
    for file in dict.fromkeys(block.file for block in blocks):
        for node, alias, module in _imports_from_outside(root / SNIPPETS_DIR / file, local):
            if isinstance(node, ast.Import):
                statements[f"import {ast.unparse(alias)}"] = module
            else:
                imported.setdefault(module, set()).add(ast.unparse(alias))
            if (package := module.split(".")[0]) not in sys.stdlib_module_names:
                wanted.update(snippets.pins_providing(pinned, package, f"{SNIPPETS_DIR}/{file}"))
    statements |= {f"from {module} import {', '.join(sorted(names))}": module for module, names in imported.items()}
    return sorted(statements, key=lambda statement: (statements[statement], statement)), sorted(wanted, key=str.lower)


def _imports_from_outside(path: Path, local: set[str]) -> Iterator[tuple[ast.Import | ast.ImportFrom, ast.alias, str]]:
    """Each name a snippet file imports absolutely from a module not in `local`, as (statement, name, module)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.Import | ast.ImportFrom) or getattr(node, "level", 0):
            continue
        for alias in node.names:
            module = alias.name if isinstance(node, ast.Import) else str(node.module)
            if module.split(".")[0] not in local:
                yield node, alias, module


def _introduction(title: str, outputs: Outputs, blocks: list[Listing], pins: list[str]) -> str:
    """The first cell: the part, titled as the navigation titles it, and where each output comes from; `pins`, what
    its install cell installs."""
    # The files of each origin, worded as the line under each output says it, without its day.
    origins: dict[str, dict[str, None]] = {}
    for block in blocks:
        if isinstance(block, Example):
            line = provenance.line(outputs.records[block.name], markdown=True)
            origins.setdefault(line, {})[f"`{SNIPPETS_DIR}/{block.file}`"] = None
    sources = "\n".join(f"- {', '.join(files)}: {origin}" for origin, files in origins.items())
    # PyTorch's own index offers its CPU build, far smaller than the default one: worth saying where it installs.
    torch_index = (
        "\n(add `--extra-index-url https://download.pytorch.org/whl/cpu` to it for PyTorch's smaller CPU build)"
        if any(pin.startswith("torch==") for pin in pins)
        else ""
    )
    return f"""# {title}

The companion notebook of this site's page *{title}*: every example of the page, one cell each,
in the order the page shows them. Run the cells from top to bottom: the first installs the pinned packages{torch_index},
the second imports what the examples use, and the examples that use GPT-2 download its files
from the Hugging Face hub at the pinned revision.

The outputs saved under the cells are the ones the site shows, not the result of running this copy:

{sources}
"""

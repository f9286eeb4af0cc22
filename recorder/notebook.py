"""The companion notebook of a page: its examples as cells, under them their recorded outputs.

It is generated, never edited. `make record` writes it from the page's code and
example directives (in page order), the snippet sections they show (read the
way the page's `--8<--` includes read them) and the outputs recorded for them.
The build reports a notebook that differs from what `generate` returns now,
like any other drift.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

import nbformat
from markdown import Markdown
from mkdocs.config.defaults import MkDocsConfig
from nbformat import v4
from packaging.utils import canonicalize_name

from recorder import aside, snippets, store
from recorder.directives import Directive, Example, Snippet, parse
from recorder.errors import RecorderError
from recorder.html_source import SourceParser
from recorder.pages import PageError, Recorded, check_include, code_block
from recorder.pinned import MODEL_ID, SNIPPETS_DIR, short
from recorder.project import Project
from recorder.snippets import REQUIREMENTS

# How a page's text becomes its directives: `parse`, or the build's copy, which parses each page once.
Parser = Callable[[str, str], list[Directive]]

NOTEBOOKS_DIR = "notebooks"
# mkdocs-jupyter always writes a MathJax loader and a Mermaid loader that fetch from
# other hosts. These notebooks have neither math nor diagrams, and the site loads
# nothing from elsewhere, so the rendered page goes without both.
MATHJAX_COMMENTS = ("Load mathjax", "End of mathjax configuration")  # around the MathJax loader
MERMAID_CLASS = ".jp-Mermaid"  # what the Mermaid loader's <script type="module"> looks for
COPY_BUTTON = "clipboard-copy"  # the element of the copy buttons, named by both of their inline scripts


def notebook_path(project: Project, page: str) -> Path:
    return project.docs_dir / NOTEBOOKS_DIR / Path(page).with_suffix(".ipynb").name


def load(root: Path, manifest: dict[str, dict[str, Any]] | None = None) -> tuple[Project, Recorded]:
    """The project and its recorded outputs, as the build reads them.

    A record run passes the manifest's entries it has read already.
    """
    project = Project.load(root)
    manifest = store.read_manifest(project.root) if manifest is None else manifest
    return project, Recorded(project.root, manifest, project.recorded_values, {})


def generate(project: Project, recorded: Recorded, page: str, parser: Parser = parse) -> bytes:
    """The notebook for `page`, as the bytes `make record` writes once `valid` has checked them.

    The build only compares these bytes with the committed ones, written valid.
    """
    markdown = (project.docs_dir / page).read_text(encoding="utf-8")
    # Each code or example block, in page order: what the notebook shows.
    blocks = [directive for directive in parser(markdown, page) if isinstance(directive, Snippet)]
    for block in blocks:
        check_include(recorded.root, block.file, block.section)
    section = _section_reader(project.config)
    imports = _imports(recorded.root, blocks)
    cells = [
        _cell("markdown", _introduction(markdown, recorded, blocks), "about"),
        _cell("code", "%pip install " + " ".join(_pins(recorded.root, imports)), "install"),
        _cell("code", "\n".join(sorted(imports, key=_module_of)), "imports"),
    ]
    for number, block in enumerate(blocks, 1):
        outputs = []
        if isinstance(block, Example):
            text = recorded.output(block.file.removesuffix(".py"))
            outputs = [{"output_type": "stream", "name": "stdout", "text": text}]
        cell_id = f"{number:02d}-{block.file.removesuffix('.py')}-{block.section or 'all'}"[:64]
        cells.append(_cell("code", section(block), cell_id.replace("_", "-"), outputs))
    metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python"}}
    notebook = nbformat.from_dict({"nbformat": v4.nbformat, "nbformat_minor": v4.nbformat_minor,
                                   "metadata": metadata, "cells": cells})
    return (nbformat.writes(notebook) + "\n").encode()


def valid(data: bytes) -> bytes:
    """`data`, once nbformat's schema has found it a valid notebook."""
    nbformat.validate(json.loads(data))
    return data


def _cell(kind: str, source: str, cell_id: str, outputs: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """A cell as nbformat's schema has it. `valid` checks the notebook once, as a whole:
    nbformat's `v4.new_*` helpers would validate every cell and output on its own as well."""
    cell: dict[str, Any] = {"cell_type": kind, "id": cell_id, "metadata": {}, "source": source}
    if kind == "code":
        cell |= {"execution_count": None, "outputs": outputs or []}
    return cell


def problems(project: Project, recorded: Recorded, parser: Parser = parse) -> list[store.Problem]:
    """Each companion notebook that is missing or differs from what `generate` returns now."""
    found = []
    for page in project.notebooks:
        path = notebook_path(project, page)
        shown = path.relative_to(project.root).as_posix()
        try:
            expected = generate(project, recorded, page, parser)
        except PageError:
            continue  # building the page reports it, naming the page and the fix
        except store.RecordError as error:
            found.append(store.Problem("*", f"{shown} cannot be generated: {error}"))
            continue
        if not path.exists():
            found.append(store.Problem("*", f"{shown} is missing. Run `make record` and commit it."))
        elif path.read_bytes() != expected:
            found.append(store.Problem("*", (
                f"{shown} differs from what `make record` generates from docs/{page}, its snippets "
                f"and {REQUIREMENTS} (edited by hand, or not regenerated). Notebooks are never "
                "edited: run `make record` and commit it."
            )))
    return found


def update(root: Path, report: Callable[[str], None], manifest: dict[str, dict[str, Any]]) -> None:
    """Rewrite each companion notebook that differs from what `generate` returns now."""
    project, recorded = load(root, manifest)
    for page in project.notebooks:
        path = notebook_path(project, page)
        try:
            data = valid(generate(project, recorded, page))
        except PageError as error:  # the build stops on it too, naming the page
            report(f"{path.relative_to(project.root).as_posix()} left as it was: docs/{page}: {error}")
            continue
        if path.exists() and path.read_bytes() == data:
            continue
        path.parent.mkdir(exist_ok=True)
        store.replace_file(path, data)
        report(f"wrote {path.relative_to(project.root).as_posix()}")


def update_when_told(root: Path) -> NoReturn:
    """In the child a record run starts aside: get ready, then `update` from the manifest the run saved.

    What it reports goes to stdout, a line each, and an error to stderr, for the run to pass on.
    """
    def get_ready() -> None:
        # A first pass on the outputs as they stand reads mkdocs.yml and imports and builds what `generate`
        # uses (nbformat's schema validator alone takes 0.13 s), leaving only the pass on the new outputs.
        with contextlib.suppress(RecorderError):  # the second pass reports it
            project, recorded = load(root)
            for page in project.notebooks:
                valid(generate(project, recorded, page))

    def work() -> int:
        try:
            update(root, print, store.read_manifest(root))
        except RecorderError as error:
            print(error, file=sys.stderr)
            return 1
        return 0

    aside.run_child(get_ready, work)


def without_remote_loaders(html: str) -> str:
    """A rendered notebook page minus the loaders that would fetch scripts from other hosts."""
    spans = _TemplateScripts(html).remote_loaders
    if len(spans) != 2:
        raise PageError(
            f"found {len(spans)} of the 2 script loaders (MathJax, Mermaid) that mkdocs-jupyter writes; "
            "its template changed. Update MATHJAX_COMMENTS or MERMAID_CLASS in recorder/notebook.py to match it."
        )
    return _without(html, spans)


def with_copy_scripts_last(page: str) -> str:
    """A built notebook page with mkdocs-jupyter's copy-button scripts moved to the end of its body.

    mkdocs-jupyter writes them inline above the first cell, where the parser stops to run
    them: the browser paints what it has by then, and the rest of the page's parse and the
    theme's start-up count as blocking time. The buttons need them only once clicked.
    """
    found = _TemplateScripts(page)
    if len(found.copy_scripts) != 2 or found.body_end is None:
        raise PageError(
            f"found {len(found.copy_scripts)} of the 2 inline scripts of the copy buttons (mentioning "
            f"`{COPY_BUTTON}`) that mkdocs-jupyter writes, {'and' if found.body_end else 'but no'} end of "
            "<body>; its template changed. Update COPY_BUTTON in recorder/notebook.py to match it."
        )
    moved = "".join(page[start:stop] for start, stop in found.copy_scripts)
    return _without(page[:found.body_end], found.copy_scripts) + moved + page[found.body_end:]


def _without(html: str, spans: list[tuple[int, int]]) -> str:
    kept: list[str] = []
    end = 0
    for start, stop in spans:
        kept.append(html[end:start])
        end = stop
    return "".join(kept) + html[end:]


class _TemplateScripts(SourceParser):
    """Where the scripts mkdocs-jupyter writes stand in a page, as (start, end) offsets, found as a browser
    parses it: its remote loaders, its copy buttons' inline scripts, and the end of the body.

    The spans are cut out of the page as it is, so every other byte stays as mkdocs-jupyter wrote it.
    """

    def __init__(self, html: str) -> None:
        super().__init__(html)
        self.remote_loaders: list[tuple[int, int]] = []
        self.copy_scripts: list[tuple[int, int]] = []
        self.body_end: int | None = None
        self._mathjax: int | None = None  # the start of the MathJax loader's opening comment
        self._script: tuple[int, list[tuple[str, str | None]]] | None = None  # an open `<script>`: start, attributes
        self._text = ""
        self.feed(html)
        self.close()

    def handle_comment(self, data: str) -> None:
        if data.strip() == MATHJAX_COMMENTS[0]:
            self._mathjax = self.source_offset()
        elif data.strip() == MATHJAX_COMMENTS[1] and self._mathjax is not None:
            self.remote_loaders.append((self._mathjax, self.source_offset() + len(f"<!--{data}-->")))
            self._mathjax = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._script, self._text = (self.source_offset(), attrs), ""

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "body":
            self.body_end = self.source_offset()
        if tag != "script" or self._script is None:
            return
        start, attrs = self._script
        span = (start, self.html.index(">", self.source_offset()) + 1)
        if ("type", "module") in attrs and MERMAID_CLASS in self._text:
            self.remote_loaders.append(span)
        elif not attrs and COPY_BUTTON in self._text:
            self.copy_scripts.append(span)
        self._script = None


def _section_reader(config: MkDocsConfig) -> Callable[[Snippet], str]:
    """Reads a block's code exactly as the page's `--8<--` include does, with its settings."""
    settings = dict(config.mdx_configs.get("pymdownx.snippets", {}))
    bases = settings.get("base_path", ["."])
    # As pymdownx.snippets resolves them: `!relative $config_dir/...` or relative to the working folder.
    settings["base_path"] = [os.path.abspath(base) for base in ([bases] if isinstance(bases, str) else bases)]
    reader = Markdown(extensions=["pymdownx.snippets"],
                      extension_configs={"pymdownx.snippets": settings}).preprocessors["snippet"]

    def read(block: Snippet) -> str:
        body = code_block(block.file, block.section, highlighted=[])[1:-1]  # the lines between the fences
        return "\n".join(reader.run(body)).strip("\n")

    return read


def _imports(root: Path, blocks: list[Snippet]) -> dict[str, str]:
    """The import statements of the shown snippets, by text, minus imports of other snippets.

    Sections show the code without its imports; the notebook gathers them in one cell.
    """
    local = {path.stem for path in (root / SNIPPETS_DIR).glob("*.py")}
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


def _introduction(markdown: str, recorded: Recorded, blocks: list[Snippet]) -> str:
    title_match = re.search(r"^# (.+)$", markdown, re.M)
    title = title_match.group(1).strip() if title_match else "this article"
    origins: dict[str, list[str]] = {}
    for block in blocks:
        if isinstance(block, Example):
            files = origins.setdefault(_origin(recorded.manifest[block.file.removesuffix(".py")]), [])
            if f"`{SNIPPETS_DIR}/{block.file}`" not in files:
                files.append(f"`{SNIPPETS_DIR}/{block.file}`")
    sources = "\n".join(f"- from {', '.join(files)}: {origin};" for origin, files in origins.items())
    return f"""# {title}: the notebook

Every example of the article *{title}*, one cell each, in the order the article shows them.
Run the cells from top to bottom: the first installs the pinned packages
(add `--extra-index-url https://download.pytorch.org/whl/cpu` to it for PyTorch's smaller CPU build),
the second imports what the examples use, and the model examples download GPT-2 small
from the Hugging Face hub at the pinned revision.

The outputs saved under the cells are the ones the site shows, not the result of running this copy:

{sources.removesuffix(";")}.
"""


def _origin(entry: dict[str, Any]) -> str:
    model = entry.get("model")
    if entry["origin"] == "published":
        libraries = ", ".join(f"{package} {version}" for package, version in entry["published"]["reported_with"].items())
        return (f"the published run of GPT-2 `{MODEL_ID}@{short(model['revision'])}` with {libraries}, "
                "reported with the article (the machines that build the site cannot load GPT-2's weights)")
    if model:
        return f"executed by the site's build step on GPT-2 `{MODEL_ID}@{short(model['revision'])}`, weights verified"
    return "executed by the site's build step, which needs no model for them"


if __name__ == "__main__":
    update_when_told(Path(sys.argv[1]))

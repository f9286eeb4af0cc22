"""The companion notebook of a page: its examples as cells, under them their recorded outputs.

It is generated, never edited. `make record` writes it from the page's code and
example directives (in page order), the snippet sections they show (read the
way the page's `--8<--` includes read them) and the outputs recorded for them.
The build reports a notebook that differs from what `generate` returns now,
like any other drift.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import nbformat
from markdown import Markdown
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from nbformat import v4

from recorder import store
from recorder.pages import Block, PageError, PageState, Recorded, code_block, expand
from recorder.pinned import MODEL_ID, SNIPPETS_DIR, short

# Pages in docs/ with a companion notebook, named like the page, in docs/notebooks/.
PAGES = ("token-embeddings.md",)
NOTEBOOKS_DIR = "notebooks"
REQUIREMENTS = "requirements.txt"
# mkdocs-jupyter always writes a MathJax loader and a Mermaid loader that fetch from
# other hosts. These notebooks have neither math nor diagrams, and the site loads
# nothing from elsewhere, so the rendered page goes without both.
_REMOTE_LOADERS = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->"
    r"|<script type=\"module\">(?:(?!</script>).)*?\.jp-Mermaid(?:(?!</script>).)*</script>",
    re.S,
)
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;#]+)", re.M)


def notebook_path(config: MkDocsConfig, page: str) -> Path:
    return Path(config.docs_dir) / NOTEBOOKS_DIR / Path(page).with_suffix(".ipynb").name


def load(root: Path, manifest: dict[str, dict[str, Any]] | None = None) -> tuple[MkDocsConfig, Recorded]:
    """The site's configuration and recorded outputs, as the build reads them.

    Without the plugins: no notebook depends on them, and loading them
    (mkdocs-jupyter above all) would cost every record run a second.
    A record run passes the manifest's entries it has read already.
    """
    config = load_config(config_file=str(root / "mkdocs.yml"), plugins=[])
    manifest = store.read_manifest(root) if manifest is None else manifest
    return config, Recorded(root, manifest, config.extra.get("recorded_values", {}), {})


def generate(config: MkDocsConfig, recorded: Recorded, page: str) -> bytes:
    """The notebook for `page`, as the bytes `make record` writes."""
    markdown = (Path(config.docs_dir) / page).read_text(encoding="utf-8")
    state = PageState()
    expand(markdown, page, recorded, state, page_url=page)
    section = _section_reader(config)
    imports = _imports(recorded.root, state.blocks)
    cells = [
        v4.new_markdown_cell(_introduction(markdown, recorded, state.blocks), id="about"),
        v4.new_code_cell("%pip install " + " ".join(_pins(recorded.root, imports)), id="install"),
        v4.new_code_cell("\n".join(sorted(imports, key=_module_of)), id="imports"),
    ]
    for number, block in enumerate(state.blocks, 1):
        outputs = []
        if block.kind == "example":
            text = recorded.output(block.file.removesuffix(".py"))
            outputs = [v4.new_output("stream", name="stdout", text=text)]
        cell_id = f"{number:02d}-{block.file.removesuffix('.py')}-{block.section or 'all'}"[:64]
        cells.append(v4.new_code_cell(section(block), id=cell_id.replace("_", "-"), outputs=outputs))
    notebook = v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(notebook)
    return (nbformat.writes(notebook) + "\n").encode()


def problems(root: Path, config: MkDocsConfig, recorded: Recorded) -> list[store.Problem]:
    """Each companion notebook that is missing or differs from what `generate` returns now."""
    found = []
    for page in PAGES:
        path = notebook_path(config, page)
        shown = path.relative_to(root).as_posix()
        try:
            expected = generate(config, recorded, page)
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
    config, recorded = load(root, manifest)
    for page in PAGES:
        path = notebook_path(config, page)
        try:
            data = generate(config, recorded, page)
        except PageError as error:  # the build stops on it too, naming the page
            report(f"{path.relative_to(root).as_posix()} left as it was: docs/{page}: {error}")
            continue
        if path.exists() and path.read_bytes() == data:
            continue
        path.parent.mkdir(exist_ok=True)
        store.replace_file(path, data)
        report(f"wrote {path.relative_to(root).as_posix()}")


def without_remote_loaders(html: str) -> str:
    """A rendered notebook page minus the loaders that would fetch scripts from other hosts."""
    stripped, count = _REMOTE_LOADERS.subn("", html)
    if count != 2:
        raise PageError(
            f"found {count} of the 2 script loaders (MathJax, Mermaid) that mkdocs-jupyter writes; "
            "its template changed. Update _REMOTE_LOADERS in recorder/notebook.py to match it."
        )
    return stripped


def _section_reader(config: MkDocsConfig) -> Callable[[Block], str]:
    """Reads a block's code exactly as the page's `--8<--` include does, with its settings."""
    settings = dict(config.mdx_configs.get("pymdownx.snippets", {}))
    bases = settings.get("base_path", ["."])
    # As pymdownx.snippets resolves them: `!relative $config_dir/...` or relative to the working folder.
    settings["base_path"] = [os.path.abspath(base) for base in ([bases] if isinstance(bases, str) else bases)]
    reader = Markdown(extensions=["pymdownx.snippets"],
                      extension_configs={"pymdownx.snippets": settings}).preprocessors["snippet"]

    def read(block: Block) -> str:
        body = code_block(block.file, block.section, highlighted=[])[1:-1]  # the lines between the fences
        return "\n".join(reader.run(body)).strip("\n")

    return read


def _imports(root: Path, blocks: list[Block]) -> dict[str, str]:
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
    text = (root / REQUIREMENTS).read_text(encoding="utf-8")
    pinned = {_canonical(match["name"]): match.group(0) for match in _PIN.finditer(text)}
    distributions: Mapping[str, list[str]] = {}
    wanted = set()
    for statement, file in imports.items():
        module = _module_of(statement).split(".")[0]
        if module in sys.stdlib_module_names:
            continue
        # Most packages are named like their module; only the others need the slow map
        # of every installed package's files.
        if _canonical(module) not in pinned:
            distributions = distributions or metadata.packages_distributions()
        names = distributions.get(module, [module])
        pins = [pinned[name] for name in map(_canonical, names) if name in pinned]
        if not pins:
            raise store.RecordError(
                f"{SNIPPETS_DIR}/{file} imports `{module}`, which {REQUIREMENTS} does not pin. "
                f"Pin the package that provides it there as NAME==VERSION."
            )
        wanted.update(pins)
    return sorted(wanted, key=str.lower)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _introduction(markdown: str, recorded: Recorded, blocks: list[Block]) -> str:
    title_match = re.search(r"^# (.+)$", markdown, re.M)
    title = title_match.group(1).strip() if title_match else "this article"
    origins: dict[str, list[str]] = {}
    for block in blocks:
        if block.kind == "example":
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

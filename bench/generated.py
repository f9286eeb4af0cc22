"""What the benchmark writes from the snippets: the limit's script and the peer's site.

Both hold the snippets' code itself, in the order the record step runs it.
The shared snippet modules (like `pinned_gpt2`) come first, once, so the
model is loaded once; each example then runs in a function of its own, so
its names stay its own as they do in its own file, and the lines importing
shared snippet modules are dropped since their names are already defined.
"""

from __future__ import annotations

import ast
import io
import tokenize
from graphlib import TopologicalSorter
from pathlib import Path

from recorder.pinned import SNIPPETS_DIR
from recorder.snippets import discover

PEER_PAGE = "token_embeddings.py"
PEER_CONFIG = """\
site_name: Token embeddings, rendered by mkdocs-jupyter
theme:
  name: material
  font: false
plugins:
  - search
  - mkdocs-jupyter:
      execute: true
      cache: false
      allow_errors: false
"""
# The site's own configuration with its hook switched off: the same pages, built plainly.
# Links to the files the hook publishes (outputs/manifest.json) then have no target: said, not fatal.
PLAIN_CONFIG = """\
INHERIT: mkdocs.yml
hooks: []
validation:
  links:
    not_found: info
"""


def _local_imports(tree: ast.Module, local: set[str]) -> list[ast.stmt]:
    """The top-level statements that import only snippet modules."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            modules = [node.module or ""] if node.level == 0 else []
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        if modules and all(module.split(".")[0] in local for module in modules):
            found.append(node)
    return found


def _code(path: Path, local: set[str]) -> tuple[str, set[str]]:
    """The file's code without its imports of snippet modules, and the modules they named."""
    source = path.read_text(encoding="utf-8")
    imports = _local_imports(ast.parse(source, filename=str(path)), local)
    dropped = {line for node in imports for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
    kept = [line for number, line in enumerate(source.splitlines(), 1) if number not in dropped]
    modules = {(node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
               for node in imports for alias in node.names}
    return "\n".join(kept).strip() + "\n", modules


def _indented(code: str) -> str:
    """The code one level deeper, leaving the inside of multi-line strings as it is."""
    inside = {row for token in tokenize.generate_tokens(io.StringIO(code).readline)
              if token.type == tokenize.STRING for row in range(token.start[0] + 1, token.end[0] + 1)}
    return "\n".join(line if number in inside or not line else "    " + line
                     for number, line in enumerate(code.splitlines(), 1))


def cells(root: Path) -> list[str]:
    """The shared modules' code (each after those it imports), then one call per example."""
    examples = discover(root)
    files = {path.stem: path for path in sorted((root / SNIPPETS_DIR).glob("*.py"))}
    code = {name: _code(path, set(files)) for name, path in files.items()}
    shared = TopologicalSorter({name: code[name][1] for name in files if name not in examples})
    setup = [code[name][0] for name in shared.static_order()]
    calls = [f"def example():\n{_indented(code[name][0])}\n\n\nexample()\n" for name in examples]
    return setup + calls


def limit_script(root: Path) -> str:
    return "\n\n".join(cells(root))


def write_peer_site(root: Path, folder: Path) -> None:
    """A mkdocs-jupyter site whose one page is every snippet, a cell each, as a jupytext script."""
    (folder / "docs").mkdir(parents=True)
    page = "".join(f"\n# %%\n{cell}" for cell in cells(root))
    (folder / "docs" / PEER_PAGE).write_text(
        f"# %% [markdown]\n# # Understanding GPT-2 token embeddings\n{page}", encoding="utf-8")
    (folder / "mkdocs.yml").write_text(PEER_CONFIG, encoding="utf-8")

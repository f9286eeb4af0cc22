"""The companion notebook: the page's snippet sections and recorded outputs, runnable, never stale."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from recorder.notebook_page import without_remote_loaders
from recorder.pages import PageError
from recorder.published import check
from recorder.runner import QUIET_LIBRARIES
from support import ROOT, build, offline_env

PAGE = ROOT / "docs" / "token-embeddings.md"
NOTEBOOK = ROOT / "docs" / "notebooks" / "token-embeddings.ipynb"
# Read independently of the recorder: each block directive of the page, in page order.
BLOCK = re.compile(r"^[ \t]*\{\{ (?P<kind>code|example) (?P<file>\w+)\.py:(?P<section>[-\w]+)\b[^}]*\}\}[ \t]*$", re.M)


def section(file: str, name: str) -> str:
    """The lines between a section's markers, minus nested markers, dedented."""
    lines = (ROOT / "snippets" / f"{file}.py").read_text(encoding="utf-8").splitlines()
    stripped = [line.strip() for line in lines]
    start, end = stripped.index(f"# --8<-- [start:{name}]"), stripped.index(f"# --8<-- [end:{name}]")
    shown = [line for line in lines[start + 1:end] if "--8<--" not in line]
    return textwrap.dedent("\n".join(shown)).strip("\n")


def stdout(cell: nbformat.NotebookNode) -> str:
    return "".join(output.text for output in cell.outputs
                   if output.output_type == "stream" and output.name == "stdout")


@pytest.fixture(scope="module")
def notebook() -> nbformat.NotebookNode:
    document = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(document)
    return document


@pytest.fixture(scope="module")
def blocks() -> list[re.Match[str]]:
    found = list(BLOCK.finditer(PAGE.read_text(encoding="utf-8")))
    assert found, f"no code or example directive found in {PAGE}"
    return found


def test_cells_are_the_page_blocks_in_page_order(notebook, blocks) -> None:
    intro, install, imports, *examples = notebook.cells
    assert intro.cell_type == "markdown"
    assert [cell.cell_type for cell in (install, imports, *examples)] == ["code"] * (2 + len(blocks))
    for cell, block in zip(examples, blocks, strict=True):
        assert cell.source == section(block["file"], block["section"]), block.group(0)


def test_outputs_are_the_recorded_outputs(notebook, blocks) -> None:
    examples = notebook.cells[3:]
    for cell, block in zip(examples, blocks, strict=True):
        if block["kind"] == "code":
            assert cell.outputs == [], block.group(0)
        else:
            recorded = (ROOT / "outputs" / f"{block['file']}.txt").read_text(encoding="utf-8")
            assert [output.output_type for output in cell.outputs] == ["stream"]
            assert stdout(cell) == recorded, block.group(0)


def test_first_cell_installs_the_pinned_packages(notebook) -> None:
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    pins = [re.search(rf"^{package}==\S+", requirements, re.M).group(0) for package in ("torch", "transformers")]
    assert notebook.cells[1].source == "%pip install " + " ".join(pins)


def test_imports_cell_gathers_imports_the_snippets_make(notebook, blocks) -> None:
    statements = notebook.cells[2].source.splitlines()
    assert statements and all(isinstance(node, ast.Import | ast.ImportFrom)
                              for node in ast.parse(notebook.cells[2].source).body)
    sources = "\n".join((ROOT / "snippets" / f"{file}.py").read_text(encoding="utf-8")
                        for file in {block["file"] for block in blocks})
    for statement in statements:
        assert re.search(rf"^{re.escape(statement)}$", sources, re.M), statement


def test_introduction_names_where_each_output_comes_from(notebook, blocks) -> None:
    intro = notebook.cells[0].source
    for block in blocks:
        if block["kind"] == "example":
            assert f"`snippets/{block['file']}.py`" in intro
    assert "published run of GPT-2" in intro and "build step" in intro


@pytest.mark.slow
def test_notebook_runs_top_to_bottom_against_the_stand_in(
    notebook, blocks, stand_in_cache: Path, stand_in_outputs: list[dict[str, str]],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """Without its %pip cell, the notebook runs in a fresh kernel and prints what the snippets print."""
    for name, value in offline_env(stand_in_cache, **QUIET_LIBRARIES).items():
        monkeypatch.setenv(name, value)
    document = nbformat.from_dict(notebook)
    install = document.cells.pop(1)
    assert install.source.startswith("%pip install ")
    NotebookClient(document, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    first, second = stand_in_outputs
    for cell, block in zip(document.cells[2:], blocks, strict=True):
        name = block["file"]
        if block["kind"] == "code":
            assert stdout(cell) == "", block.group(0)
            continue
        # The same checkpoint as the snippet's own run: every line equal.
        assert stdout(cell) == first[name], block.group(0)
        # Lines that do not depend on weight values equal the recorded output.
        recorded = (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8")
        check(name, recorded, [stdout(cell), second[name]], label=f"outputs/{name}.txt")


@pytest.mark.slow
def test_a_hand_edited_or_stale_notebook_fails_the_build_until_recorded(built_site: Path, run, project: Path) -> None:
    # `built_site` is the unmodified project, built: the copy builds before its notebook is touched.
    copy = project / "docs" / "notebooks" / "token-embeddings.ipynb"
    copy.write_text(copy.read_text(encoding="utf-8").replace("Embedding(50257, 768)", "Embedding(50257, 1024)"),
                    encoding="utf-8")
    result = build(project)
    assert result.returncode != 0
    assert "docs/notebooks/token-embeddings.ipynb differs from what `make record` generates" in result.stderr
    assert "run `make record`" in result.stderr
    copy.unlink()
    result = build(project)
    assert result.returncode != 0
    assert "docs/notebooks/token-embeddings.ipynb is missing. Run `make record`" in result.stderr
    recorded = run("python", "-m", "recorder", "record", cwd=project)
    assert recorded.returncode == 0, recorded.stderr
    assert "wrote docs/notebooks/token-embeddings.ipynb" in recorded.stdout
    assert copy.read_bytes() == NOTEBOOK.read_bytes()
    assert build(project).returncode == 0


def test_the_remote_loaders_are_cut_out_and_every_other_byte_is_kept() -> None:
    page = ('<p title="a &amp; b">x &lt; y</p>\n<!-- Load mathjax -->\n<script src="https://cdn.test/mathjax.js"> </script>\n'
            '<!-- MathJax configuration -->\n<script type="text/x-mathjax-config">init()</script>\n'
            '<!-- End of mathjax configuration -->\n<script type="module">\n'
            '  if ("</p>") document.querySelectorAll(".jp-Mermaid > pre");\n</script>\n<style>.jp-Mermaid {}</style>\n')
    assert without_remote_loaders(page) == '<p title="a &amp; b">x &lt; y</p>\n\n\n<style>.jp-Mermaid {}</style>\n'
    with pytest.raises(PageError, match="found 1 of the 2 script loaders"):
        without_remote_loaders(page.replace(".jp-Mermaid >", "pre"))


def test_the_copy_button_scripts_move_to_the_end_of_the_body_and_every_other_byte_is_kept() -> None:
    copy = "<script>\ncustomElements.define('clipboard-copy', C)</script>"
    notice = "<script>on('clipboard-copy', show)</script>"
    page = (f'<body><article><a href="x.ipynb">download</a>\n{copy}\n{notice}\n<div class="jp-Cell">'
            f'<clipboard-copy for="cell-1"></clipboard-copy></div></article>\n'
            '<script src="bundle.js"></script>\n</body>\n</html>\n')
    assert with_copy_scripts_last(page) == (
        '<body><article><a href="x.ipynb">download</a>\n\n\n<div class="jp-Cell">'
        '<clipboard-copy for="cell-1"></clipboard-copy></div></article>\n'
        f'<script src="bundle.js"></script>\n{copy}{notice}</body>\n</html>\n')
    with pytest.raises(PageError, match="found 1 of the 2 inline scripts of the copy buttons"):
        with_copy_scripts_last(page.replace(notice, ""))

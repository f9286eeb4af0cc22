"""A notebook page is styled by docs/stylesheets/notebook.css instead of the 570 KB mkdocs-jupyter inlines."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

from recorder.render.notebook_page import without_styles
from support import ROOT

NOTEBOOK_CSS = ROOT / "docs" / "stylesheets" / "notebook.css"


def test_every_inlined_stylesheet_goes_and_every_other_byte_stays() -> None:
    page = (
        '<style type="text/css">\n.a { content: "<p>" }\n</style>\n<p title="a &amp; b">x &lt;style&gt;</p>\n'
        '<STYLE>.b {}</STYLE >\n<div class="jp-Cell">cell</div>\n'
    )
    assert without_styles(page) == '\n<p title="a &amp; b">x &lt;style&gt;</p>\n\n<div class="jp-Cell">cell</div>\n'


def test_the_stylesheet_was_taken_from_the_mkdocs_jupyter_installed() -> None:
    taken_from = re.search(r"as mkdocs-jupyter (\S+) styles them", NOTEBOOK_CSS.read_text(encoding="utf-8"))
    assert taken_from is not None and taken_from[1] == metadata.version("mkdocs-jupyter"), (
        f"docs/stylesheets/notebook.css holds the rules of mkdocs-jupyter {taken_from and taken_from[1]}'s "
        f"stylesheets, and {metadata.version('mkdocs-jupyter')} is installed: compare what its templates/mkdocs_html "
        "inline into a notebook page with notebook.css, update it, then its first line."
    )


@pytest.mark.slow
def test_only_the_notebook_pages_link_the_cells_css(built_site: Path) -> None:
    for page in built_site.rglob("index.html"):
        html = page.read_text(encoding="utf-8")
        links = re.findall(r'<link rel="stylesheet" href="([^"]*notebook\.css)">', html)
        if page.parent.parent.name != "notebooks":
            assert not links, f"{page} pays for the notebooks' stylesheet"
            continue
        assert "<style" not in html and len(html) < 150_000, f"{page} carries mkdocs-jupyter's stylesheets again"
        assert len(links) == 1 and (page.parent / links[0]).resolve() == built_site / "stylesheets" / "notebook.css"
    css = (built_site / "stylesheets" / "notebook.css").read_text(encoding="utf-8")
    assert ".jp-OutputArea-output" in css  # the cells' own styles
    assert ".jp-Dialog" not in css and "--jp-icon-" not in css  # JupyterLab's application's are not

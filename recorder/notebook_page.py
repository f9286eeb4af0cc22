"""A notebook's page as mkdocs-jupyter renders it, made to load nothing from elsewhere and to paint early.

mkdocs-jupyter always writes a MathJax loader and a Mermaid loader that fetch from other
hosts, and the inline scripts of its copy buttons above the first cell. The loaders are
cut out; the scripts run last. Both are found as a browser parses the page and moved as
written, so every other byte stays as mkdocs-jupyter wrote it.
"""

from __future__ import annotations

from recorder.html_source import SourceParser
from recorder.pages import PageError

# mkdocs-jupyter always writes a MathJax loader and a Mermaid loader that fetch from
# other hosts. These notebooks have neither math nor diagrams, and the site loads
# nothing from elsewhere, so the rendered page goes without both.
MATHJAX_COMMENTS = ("Load mathjax", "End of mathjax configuration")  # around the MathJax loader
MERMAID_CLASS = ".jp-Mermaid"  # what the Mermaid loader's <script type="module"> looks for
COPY_BUTTON = "clipboard-copy"  # the element of the copy buttons, named by both of their inline scripts


def without_remote_loaders(html: str) -> str:
    """A rendered notebook page minus the loaders that would fetch scripts from other hosts."""
    spans = _TemplateScripts(html).remote_loaders
    if len(spans) != 2:
        raise PageError(
            f"found {len(spans)} of the 2 script loaders (MathJax, Mermaid) that mkdocs-jupyter writes; "
            "its template changed. Update MATHJAX_COMMENTS or MERMAID_CLASS in recorder/notebook_page.py to match it."
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
            "<body>; its template changed. Update COPY_BUTTON in recorder/notebook_page.py to match it."
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

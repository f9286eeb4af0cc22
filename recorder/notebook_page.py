"""A notebook's page as mkdocs-jupyter renders it, minus the loaders that would fetch scripts from other hosts.

mkdocs-jupyter always writes a MathJax loader and a Mermaid loader. These
notebooks have neither math nor diagrams, and the site loads nothing from
elsewhere, so the page goes without both. They are found as a browser parses
the page and cut out as written, so every other byte stays as mkdocs-jupyter
wrote it.
"""

from __future__ import annotations

from html.parser import HTMLParser

from recorder.pages import PageError

MATHJAX_COMMENTS = ("Load mathjax", "End of mathjax configuration")  # around the MathJax loader
MERMAID_CLASS = ".jp-Mermaid"  # what the Mermaid loader's <script type="module"> looks for


def without_remote_loaders(html: str) -> str:
    spans = _RemoteLoaders(html).spans
    if len(spans) != 2:
        raise PageError(
            f"found {len(spans)} of the 2 script loaders (MathJax, Mermaid) that mkdocs-jupyter writes; its "
            "template changed. Update MATHJAX_COMMENTS or MERMAID_CLASS in recorder/notebook_page.py to match it."
        )
    kept, end = [], 0
    for start, stop in spans:
        kept.append(html[end:start])
        end = stop
    return "".join(kept) + html[end:]


class _RemoteLoaders(HTMLParser):
    """Where the two loaders stand in the page, as (start, end) offsets into its text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.html = html
        self.spans: list[tuple[int, int]] = []
        self._line_starts = [0]  # the offset at which each line starts, as HTMLParser counts lines
        while (found := html.find("\n", self._line_starts[-1])) != -1:
            self._line_starts.append(found + 1)
        self._mathjax: int | None = None  # the start of the MathJax loader's opening comment
        self._module: int | None = None  # the start of an open `<script type="module">`
        self._text = ""
        self.feed(html)
        self.close()

    def _here(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def handle_comment(self, data: str) -> None:
        if data.strip() == MATHJAX_COMMENTS[0]:
            self._mathjax = self._here()
        elif data.strip() == MATHJAX_COMMENTS[1] and self._mathjax is not None:
            self.spans.append((self._mathjax, self._here() + len(f"<!--{data}-->")))
            self._mathjax = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._module, self._text = (self._here() if ("type", "module") in attrs else None), ""

    def handle_data(self, data: str) -> None:
        self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._module is not None and MERMAID_CLASS in self._text:
            self.spans.append((self._module, self.html.index(">", self._here()) + 1))
        if tag == "script":
            self._module = None

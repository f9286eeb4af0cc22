"""An HTML parser that knows where in the page's text each thing it reports starts.

Built pages are edited by cutting or replacing spans of their HTML as written,
so that every other byte stays as MkDocs or mkdocs-jupyter wrote it; a subclass
of `SourceParser` finds the spans as a browser would parse the page.
"""

from __future__ import annotations

from html.parser import HTMLParser


class SourceParser(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.html = html
        # The offset at which each line starts, as HTMLParser counts lines (by "\n").
        self._line_starts = [0]
        while (found := html.find("\n", self._line_starts[-1])) != -1:
            self._line_starts.append(found + 1)

    # Not `offset`: HTMLParser keeps its own column by that name.
    def source_offset(self) -> int:
        """Where in `html` the tag, comment or text being handled starts."""
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

"""Render a page's parsed directives through Python-Markdown's extension points.

`prepare` resolves every directive first, so each error names its fix before MkDocs converts the page.
`PageDirectives` then puts them into the conversion:

- a Preprocessor, before pymdownx.snippets (32), turns each code and example directive into the fenced
  block a page would write by hand, whose `--8<--` include pymdownx.snippets fills in;
- a Treeprocessor, before inline processing, swaps each paragraph that is an example, figure, provenance
  or compatibility directive for its HTML: only the tree shows that a directive has a paragraph of its
  own, and Markdown strips its placeholders' delimiters from the source after the Preprocessors run;
- an InlineProcessor replaces each `{{ value NAME }}` with its escaped text.

All of it goes through Markdown's htmlStash, so an output holding `<script>`, Markdown or `--8<--`
stays literal text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from recorder import compat_page
from recorder.compat_page import CompatError
from recorder.directives import Block, Compatibility, Directive, Example, Listing, Provenance, Value
from recorder.pages import PageError, Recorded, check_include, fence, render_figure, render_output, visible
from recorder.provenance import record_table


@dataclass
class PreparedPage:
    """A page's directives, each with what it becomes; the conversion records what it used."""

    fences: list[tuple[Listing, list[str]]] = field(default_factory=list)  # lines replacing the directive's
    outputs: list[tuple[Block, str]] = field(default_factory=list)  # HTML for its own paragraph
    values: dict[str, str] = field(default_factory=dict)  # directive as written -> escaped text
    quoted: Counter[str] = field(default_factory=Counter)  # how often the page writes each value
    placed: set[Listing] = field(default_factory=set)  # fences the conversion put in
    shown: set[Block] = field(default_factory=set)  # outputs it put in
    replaced: Counter[str] = field(default_factory=Counter)

    def check(self) -> None:
        """Fail unless the conversion used exactly the directives the page was parsed into."""
        for directive, _ in self.fences:
            if directive not in self.placed:
                raise PageError(f"line {directive.line + 1} no longer held `{directive.text}` when Markdown "
                                "read the page: something changed the page between parsing and rendering.")
        for directive, _ in self.outputs:
            if directive not in self.shown:
                raise PageError(f"the output of `{directive.text}` was lost while rendering Markdown; "
                                "keep example directives outside of HTML blocks.")
        for text, count in self.quoted.items():
            if self.replaced[text] != count:
                raise PageError(f"`{text}` stands {count} time(s) outside code, but rendering Markdown "
                                f"replaced it {self.replaced[text]} time(s). Keep values out of HTML "
                                "blocks, HTML tags and link addresses.")


def prepare(directives: list[Directive], recorded: Recorded, page_url: str) -> PreparedPage:
    """What each directive of a page becomes; raises PageError, naming the fix, on the first that cannot."""
    prepared = PreparedPage()
    for directive in directives:
        if isinstance(directive, Value):
            prepared.values[directive.text] = visible(recorded.value(directive.name))
            prepared.quoted[directive.text] += 1
        elif isinstance(directive, Listing):
            lines = fence(recorded.root, directive.file, directive.section, directive.highlight)
            # An example's directive stays, after its fence, as the paragraph its output takes.
            lines += ["", directive.text] if isinstance(directive, Example) else []
            prepared.fences.append((directive, [directive.indent + line if line else line for line in lines]))
            if isinstance(directive, Example):
                prepared.outputs.append((directive, render_output(recorded, directive.name, page_url)))
        elif isinstance(directive, Provenance):
            prepared.outputs.append((directive, record_table(recorded.manifest, page_url, recorded.repository,
                                                             recorded.parts)))
        elif isinstance(directive, Compatibility):
            try:
                html = compat_page.render(recorded.root, page_url, recorded.repository, recorded.parts,
                                          recorded.manifest)
            except CompatError as error:
                raise PageError(str(error)) from None
            prepared.outputs.append((directive, html))
        else:
            check_include(recorded.root, directive.file, None)
            alt = "".join(part if isinstance(part, str) else recorded.value(part.name) for part in directive.alt)
            prepared.outputs.append((directive, render_figure(recorded, directive.name, alt, page_url)))
    return prepared


class PageDirectives(Extension):
    """Renders the page `convert_next` was given, in the next Markdown conversion MkDocs starts.

    MkDocs makes a Markdown instance per page right after on_page_markdown, and a conversion cannot be
    told which page it converts: the page is handed over here, and taken by the next instance made.
    """

    def __init__(self) -> None:
        super().__init__()
        self._next: PreparedPage | None = None

    def convert_next(self, page: PreparedPage) -> None:
        self._next = page

    def extendMarkdown(self, md: Markdown) -> None:
        page, self._next = self._next, None
        if page is None:
            return  # a page without directives
        # Priorities: before pymdownx.snippets (32); before inline processing (20); values after code
        # spans (190), links (160) and raw HTML (90), so a value in a link's address or a tag is left as
        # written, which `check` reports, and before emphasis (60), which could pair two names' underscores.
        fences, outputs, values = _Fences(md), _Outputs(md), _Values(r"\{\{[^{}\n]*\}\}", md)
        fences.page = outputs.page = values.page = page
        md.preprocessors.register(fences, "recorded_fences", 33)
        md.treeprocessors.register(outputs, "recorded_outputs", 25)
        md.inlinePatterns.register(values, "recorded_values", 75)


class _Fences(Preprocessor):
    page: PreparedPage

    def run(self, lines: list[str]) -> list[str]:
        # From the last, so that the lines before each directive keep their numbers.
        for directive, fence_lines in reversed(self.page.fences):
            if directive.line < len(lines) and lines[directive.line].strip(" \t") == directive.text:
                lines[directive.line:directive.line + 1] = fence_lines
                self.page.placed.add(directive)
        return lines


class _Outputs(Treeprocessor):
    """Each paragraph that is an output's directive becomes its stashed HTML; one in a raw HTML block or
    sharing its paragraph is found by no paragraph, which `check` reports."""

    page: PreparedPage

    def run(self, root: Element) -> None:
        waiting = list(self.page.outputs)
        for paragraph in root.iter("p"):
            text = (paragraph.text or "").strip()
            if found := next((entry for entry in waiting if entry[0].text == text), None):
                waiting.remove(found)
                paragraph.text = self.md.htmlStash.store(found[1])
                self.page.shown.add(found[0])


class _Values(InlineProcessor):
    page: PreparedPage

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str | None, int | None, int | None]:
        text = self.page.values.get(m.group(0))
        if text is None:
            return None, None, None  # not a value of this page: left as written
        self.page.replaced[m.group(0)] += 1
        return self.md.htmlStash.store(text), m.start(0), m.end(0)

"""A page's directives, parsed once into typed values before anything renders the page.

A page writes, each block directive alone on its line:

    {{ code FILE:SECTION }}      a snippet section as a code block
    {{ example FILE:SECTION }}   the same, followed by its recorded output and provenance
    {{ figure FILE "ALT" }}      the SVG a snippet printed, inline, with its provenance
    {{ provenance }}             every output's whole record, in one table
    {{ value NAME }}             inline: a named value read from a recorded output
    {{ compatibility }}          the version table of compat/results.json (see compat_page)

`code` and `example` take `highlight=SUBSECTION` after the section to highlight
the lines of a section nested in it, so prose can point at one line by name.
A figure's ALT, its caption, may quote `{{ value NAME }}` like the prose does.

The companion notebook takes its blocks from this list without rendering the
page, and the page's conversion (recorder/page_markdown.py) renders from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recorder.pages import PageError

_FILE = r"(?P<file>[a-z][a-z0-9_]*\.py)"
_SECTION_NAME = r"[a-z][-_0-9a-z]*"
_ARGUMENT = re.compile(
    _FILE + rf"(?::(?P<section>{_SECTION_NAME}))?(?:[ \t]+highlight=(?P<highlight>{_SECTION_NAME}))?$"
)
_FIGURE_ARGUMENT = re.compile(_FILE + r'[ \t]+"(?P<alt>[^"\n]+)"$')
_VALUE_NAME = re.compile(r"[a-z][a-z0-9_]*$")
# Python-Markdown has no pass that only parses: it finds code while converting. So code is
# recognised here as the directives have always recognised it, fences (``` or ~~~) and code
# spans, which a page uses to show the syntax itself; the conversion then checks it used
# exactly the directives found here (PreparedPage.check), so the two cannot silently differ.
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
# A code span (skipped), or a directive: up to the first `}}` outside double quotes, since a
# figure's quoted ALT may hold values, else (an unclosed quote) up to the first `}}`.
_TOKEN = re.compile(r'(?P<ticks>`+)[^`\n].*?(?P=ticks)'
                    r'|\{\{(?P<body>(?:"[^"\n]*"|[^"\n])*?)\}\}|\{\{(?P<loose>.*?)\}\}')
_INNER = re.compile(r"\{\{(?P<body>.*?)\}\}")


@dataclass(frozen=True)
class Value:
    """`{{ value NAME }}`, inline: a named value read from a recorded output."""

    text: str  # as written, from `{{` to `}}`
    name: str


@dataclass(frozen=True)
class Block:
    """A directive that stands alone on its line."""

    text: str  # as written, from `{{` to `}}`
    line: int  # the page's line it stands on, from 0
    indent: str  # what precedes it on that line (inside an admonition, say)


@dataclass(frozen=True)
class Listing(Block):
    """A code block of a snippet section, with the lines of `highlight` highlighted."""

    file: str  # in snippets/, e.g. "token-embeddings/row_lookup.py" for `row_lookup.py` on token-embeddings.md
    section: str | None  # None: the whole file
    highlight: str | None

    @property
    def name(self) -> str:
        """The snippet's name, e.g. "token-embeddings/row_lookup"."""
        return self.file.removesuffix(".py")


@dataclass(frozen=True)
class Code(Listing):
    """`{{ code FILE:SECTION }}`: the code block alone."""


@dataclass(frozen=True)
class Example(Listing):
    """`{{ example FILE:SECTION }}`: the code block, then the snippet's recorded output."""


@dataclass(frozen=True)
class Figure(Block):
    """`{{ figure FILE "ALT" }}`: the SVG the snippet printed, described by ALT."""

    file: str
    alt: tuple[str | Value, ...]  # text, and the values it quotes, in order

    @property
    def name(self) -> str:
        return self.file.removesuffix(".py")


@dataclass(frozen=True)
class Provenance(Block):
    """`{{ provenance }}`: every output's record, one table row each."""


@dataclass(frozen=True)
class Compatibility(Block):
    """`{{ compatibility }}`: the table of compat/results.json."""


Directive = Code | Example | Figure | Provenance | Compatibility | Value
_LISTINGS: dict[str, type[Code | Example]] = {"code": Code, "example": Example}
_TABLES: dict[str, type[Provenance | Compatibility]] = {"provenance": Provenance, "compatibility": Compatibility}


def parse(markdown: str, page: str) -> list[Directive]:
    """Every directive of `markdown` (the page `page`) outside code, in page order, validated."""
    lines = markdown.split("\n")  # as Python-Markdown splits it, so `line` numbers its lines
    fenced = _fenced(lines)
    found: list[Directive] = []
    for number, line in enumerate(lines):
        if number in fenced:
            continue
        for token in _TOKEN.finditer(line):
            body = token.group("loose") if token.group("body") is None else token.group("body")
            if body is None:
                continue  # a code span
            before, after = line[:token.start()], line[token.end():]
            alone = not before.strip(" \t") and not after.strip(" \t")
            found.append(_directive(body, token.group(0), page, number, before if alone else None))
    return found


def _fenced(lines: list[str]) -> set[int]:
    """The numbers of the lines of fenced code blocks, fences included; an unclosed fence fences nothing."""
    fenced: set[int] = set()
    number = 0
    while number < len(lines):
        if opening := _FENCE.match(lines[number]):
            closing = next((end for end in range(number + 1, len(lines))
                            if lines[end].strip(" \t") == opening.group(1)), None)
            if closing is not None:
                fenced.update(range(number, closing + 1))
                number = closing
        number += 1
    return fenced


def _directive(body: str, text: str, page: str, line: int, indent: str | None) -> Directive:
    """The directive `text` (`{{ body }}`); `indent` is None unless it stands alone on its line."""
    kind, _, argument = body.strip().partition(" ")
    argument = argument.strip()
    if kind == "value":
        if not _VALUE_NAME.match(argument):
            raise PageError(f"`{{{{ value {argument} }}}}` needs a value name.")
        return Value(text, argument)
    if kind not in (*_LISTINGS, "figure", *_TABLES):
        raise PageError(f"unknown directive `{{{{{body}}}}}`. "
                        "Use code, example, figure, provenance, compatibility or value.")
    if indent is None:
        raise PageError(f"`{{{{ {kind} ... }}}}` must stand alone on its own line.")
    if kind in _TABLES:
        if argument:
            raise PageError(f"`{{{{ {kind} {argument} }}}}` takes nothing: write `{{{{ {kind} }}}}`.")
        return _TABLES[kind](text, line, indent)
    if kind == "figure":
        figure = _FIGURE_ARGUMENT.match(argument)
        if figure is None:
            raise PageError(f'`{{{{ figure {argument} }}}}` needs FILE.py "alt text".')
        return Figure(text, line, indent, _in_part(page, figure.group("file")), _alt(figure.group("alt"), page, line))
    parsed = _ARGUMENT.match(argument)
    if parsed is None:
        raise PageError(f"`{{{{ {kind} {argument} }}}}` needs FILE.py or FILE.py:SECTION, "
                        "optionally followed by highlight=SUBSECTION.")
    return _LISTINGS[kind](text, line, indent, _in_part(page, parsed.group("file")), parsed.group("section"),
                           parsed.group("highlight"))


def part_of(page: str) -> str:
    """The part a page is: its path in docs/ without `.md`, which names its folder of snippets/."""
    return page.removesuffix(".md")


def _in_part(page: str, file: str) -> str:
    """A file as a page names it, as a path in snippets/: each page shows the files of its own folder."""
    return f"{part_of(page)}/{file}"


def _alt(alt: str, page: str, line: int) -> tuple[str | Value, ...]:
    """A figure's ALT as its text and the values it quotes; any other directive there is an error."""
    parts: list[str | Value] = []
    end = 0
    for token in _INNER.finditer(alt):
        value = _directive(token.group("body"), token.group(0), page, line, indent=None)
        assert isinstance(value, Value), "any other directive must stand alone, which raised"
        parts += [alt[end:token.start()], value]
        end = token.end()
    return tuple(part for part in [*parts, alt[end:]] if part)

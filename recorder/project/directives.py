"""A page's directives (CONTRIBUTING.md, "Edit prose"), parsed once into typed values, from which both the page's
conversion (recorder/engines/extension.py) and the companion notebook work."""

import re
from collections.abc import Callable
from dataclasses import dataclass

from recorder.project.errors import PageError

_FILE = r"(?P<file>[a-z][-a-z0-9_]*/[a-z][a-z0-9_]*\.py)"
_SECTION = r"[a-z][-_0-9a-z]*"
_PART = re.compile(r"(?P<part>[a-z][-a-z0-9_]*)?")
_NOTHING = re.compile("")
_ARGUMENT = re.compile(_FILE + rf"(?::(?P<section>{_SECTION}))?(?:[ \t]+highlight=(?P<highlight>{_SECTION}))?")
_FIGURE_ARGUMENT = re.compile(_FILE + r'[ \t]+"(?P<alt>[^"\n]+)"')
_VALUE_NAME = re.compile(r"(?:[a-z][-a-z0-9_]*/)?[a-z][a-z0-9_]*")
# Python-Markdown has no pass that only parses, so code is recognised here (fences and code spans,
# which a page uses to show the syntax itself); PreparedPage.check then proves the conversion used
# exactly the directives found here.
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
# A code span (skipped), or a directive up to the first `}}` outside double quotes (a figure's ALT may
# hold values), else, with an unclosed quote, up to the first `}}`.
_TOKEN = re.compile(
    r"(?P<ticks>`+)[^`\n].*?(?P=ticks)"
    r'|\{\{(?P<body>(?:"[^"\n]*"|[^"\n])*?)\}\}|\{\{(?P<loose>.*?)\}\}'
)
_INNER = re.compile(r"\{\{(?P<body>.*?)\}\}")


@dataclass(frozen=True)
class Value:
    text: str  # as written, from `{{` to `}}`
    name: str


@dataclass(frozen=True)
class Block:
    """A directive alone on its line."""

    text: str  # as written, from `{{` to `}}`
    line: int  # the page's line it stands on, from 0
    indent: str  # what precedes it on that line (inside an admonition, say)


@dataclass(frozen=True)
class SnippetBlock(Block):
    """A block showing what a snippet is or printed."""

    file: str  # in snippets/, e.g. "token-embeddings/row_lookup.py"

    @property
    def name(self) -> str:
        return self.file.removesuffix(".py")


@dataclass(frozen=True)
class Listing(SnippetBlock):
    """A code block of a snippet section, with the lines of `highlight` highlighted."""

    section: str | None  # None: the whole file
    highlight: str | None


class Code(Listing):
    """`{{ code ... }}`: the code block alone."""


class Example(Listing):
    """`{{ example ... }}`: the code block, then the snippet's recorded output."""


@dataclass(frozen=True)
class Figure(SnippetBlock):
    alt: tuple[str | Value, ...]  # text, and the values it quotes, in order


class Provenance(Block):
    """`{{ provenance }}`: every output's record, one table row each."""


class Compatibility(Block):
    """`{{ compatibility }}`: the table of compat/results.json."""


class Parts(Block):
    """`{{ parts }}`: the parts, as the navigation names and orders them, each with its page's description."""


@dataclass(frozen=True)
class Origins(Block):
    """`{{ origins PART }}`: where the part's outputs come from, as their records say; `{{ origins }}`, every part's."""

    part: str | None


Directive = Code | Example | Figure | Provenance | Compatibility | Parts | Origins | Value


def parse(markdown: str) -> list[Directive]:
    """Every directive of `markdown` outside code, in page order, validated."""
    lines = markdown.split("\n")  # as Python-Markdown splits it, so `line` numbers its lines
    fenced = _fenced(lines)
    directives: list[Directive] = []
    for number, line in enumerate(lines):
        for token in [] if number in fenced else _TOKEN.finditer(line):
            body = token.group("loose") if token.group("body") is None else token.group("body")
            if body is not None:  # not a code span
                before, after = line[: token.start()], line[token.end() :]
                alone = not before.strip(" \t") and not after.strip(" \t")
                directives.append(_directive(body, token.group(0), number, before if alone else None))
    return directives


def _fenced(lines: list[str]) -> set[int]:
    """The numbers of the lines of fenced code blocks, fences included; an unclosed fence fences nothing."""
    fenced: set[int] = set()
    for number, line in enumerate(lines):
        if number not in fenced and (opening := _FENCE.match(line)):
            closing = next(
                (end for end in range(number + 1, len(lines)) if lines[end].strip(" \t") == opening[1]), None
            )
            fenced.update(range(number, closing + 1) if closing is not None else ())
    return fenced


def _directive(body: str, text: str, line: int, indent: str | None) -> Directive:
    """The directive `text` (`{{ body }}`); `indent` is None unless it stands alone on its line."""
    kind, _, argument = body.strip().partition(" ")
    argument = argument.strip()
    if kind not in _FORMS:
        *others, last = _FORMS
        raise PageError(f"unknown directive `{{{{{body}}}}}`. Use {', '.join(others)} or {last}.")
    if indent is None and kind != "value":
        raise PageError(f"`{{{{ {kind} ... }}}}` must stand alone on its own line.")
    form, usage, make = _FORMS[kind]
    if (match := form.fullmatch(argument)) is None:
        raise PageError(f"`{{{{ {kind} {argument} }}}}` {usage}")
    return make(match, text, line, indent)


def _listing(kind: type[Code | Example]) -> tuple[re.Pattern[str], str, Callable[..., Directive]]:
    """The form of a directive that shows a snippet's code."""
    usage = "needs PART/FILE.py or PART/FILE.py:SECTION, optionally followed by highlight=SUBSECTION."
    return _ARGUMENT, usage, lambda match, *block: kind(*block, *match.group("file", "section", "highlight"))


def _table(kind: type[Provenance | Compatibility | Parts]) -> tuple[re.Pattern[str], str, Callable[..., Directive]]:
    """The form of a directive that takes nothing: a table or list the site makes."""
    return _NOTHING, f"takes nothing: write `{{{{ {kind.__name__.lower()} }}}}`.", lambda _, *block: kind(*block)


# Each directive by name: the form of what follows its name, what a directive of another form is told, and the
# directive a match makes, from the text, line and indent of a block (a value is inline: it takes only its text).
_FORMS: dict[str, tuple[re.Pattern[str], str, Callable[..., Directive]]] = {
    "code": _listing(Code),
    "example": _listing(Example),
    "figure": (
        _FIGURE_ARGUMENT,
        'needs PART/FILE.py "alt text".',
        lambda match, text, line, indent: Figure(text, line, indent, match["file"], _alt(match["alt"], line)),
    ),
    "provenance": _table(Provenance),
    "compatibility": _table(Compatibility),
    "parts": _table(Parts),
    "origins": (
        _PART,
        "takes a part's folder name, or nothing for every part.",
        lambda match, *block: Origins(*block, match["part"]),
    ),
    "value": (
        _VALUE_NAME,
        "needs PART/NAME, a value of a part's values.yml, or a built-in value's name.",
        lambda match, text, *_: Value(text, match[0]),
    ),
}


def _alt(alt: str, line: int) -> tuple[str | Value, ...]:
    """A figure's ALT as its text and the values it quotes; any other directive there is an error."""
    parts: list[str | Value] = []
    end = 0
    for token in _INNER.finditer(alt):
        value = _directive(token.group("body"), token.group(0), line, indent=None)
        assert isinstance(value, Value), "any other directive must stand alone, which raised"
        parts += [alt[end : token.start()], value]
        end = token.end()
    return tuple(part for part in [*parts, alt[end:]] if part)

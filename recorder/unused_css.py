"""A built page's inline stylesheets, minus the rules and custom properties nothing on it can use.

mkdocs-jupyter inlines JupyterLab's whole stylesheet into every notebook page:
about 570 KB, three thousand rules and hundreds of icons held in custom
properties, of which a page of plain cells uses a few dozen. A browser parses
all of it and weighs every rule against every element, which made the
notebook page the slowest of the site.

A rule is dropped when its every selector names a class, an id or an element
that no element of the page has. Only those parts of a selector are weighed:
attribute selectors, pseudo-classes and pseudo-elements are not, since the
reader and the theme's script change them (hover, the palette's
`[data-md-color-scheme]`), so a rule that may apply some day stays. Rules for
elements that scripts create would be dropped too: use this only where the
styled markup is all in the HTML, as in a rendered notebook. A rule is kept or
dropped whole, so a selector list that a browser rejects stays rejected.

Rules are found by a scan for the braces and semicolons outside comments,
strings and url()s; tinycss2 parses each selector, and the declarations of
the rules kept. Tokenizing all of JupyterLab's stylesheet would cost each
build half a second for rules dropped unread.

A custom property is dropped when nothing can read it: no `var()` in the kept
rules (following `var()`s inside kept custom properties), and no mention of
its name in the page's `style` attributes or in the stylesheets it links.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import tinycss2
from tinycss2.ast import Declaration, HashToken, IdentToken, LiteralToken, Node, WhitespaceToken

from recorder.html_source import SourceParser

# At-rules holding rules, which are pruned like the page's top level; other blocks are kept as written.
_GROUPING_RULES = {"media", "supports", "layer", "container"}
_COMBINATORS = {">", "+", "~"}


class _Page(SourceParser):
    """What a page's HTML holds that its stylesheets can refer to, and where its `<style>` texts are."""

    def __init__(self, html: str) -> None:
        super().__init__(html)
        self.tags: set[str] = set()
        self.classes: set[str] = set()
        self.ids: set[str] = set()
        # (start of the `<style>` tag, start of its text, start of `</style>`, end of `</style>`)
        self.styles: list[tuple[int, int, int, int]] = []
        self.style_attributes: list[str] = []
        self.stylesheets: list[str] = []
        self._open_style: tuple[int, int] | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        values = {name: value or "" for name, value in attrs}
        self.classes.update(values.get("class", "").split())
        if "id" in values:
            self.ids.add(values["id"])
        if "style" in values:
            self.style_attributes.append(values["style"])
        if tag == "link" and "stylesheet" in values.get("rel", "").split() and values.get("href"):
            self.stylesheets.append(values["href"])
        if tag == "style":
            start = self.source_offset()
            self._open_style = (start, start + len(self.get_starttag_text() or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "style" and self._open_style is not None:
            end_tag = self.source_offset()
            self.styles.append((*self._open_style, end_tag, self.html.index(">", end_tag) + 1))
            self._open_style = None


@dataclass
class _Rule:
    """A kept style rule: its selector text and its declarations."""

    selector: str
    declarations: list[Declaration]


@dataclass
class _Group:
    """A kept grouping at-rule (`@media ...`) and the rules kept inside it."""

    head: str
    items: list[_Item]


_Item = str | _Rule | _Group  # a string is kept as written


def without_unused_css(html: str, read_stylesheet: Callable[[str], str]) -> str:
    """`html` with each inline `<style>` pruned (or removed, once empty).

    `read_stylesheet(href)` returns the text of a stylesheet the page links, so
    that a custom property it reads is kept.
    """
    page = _Page(html)
    sheets = [_kept_items(html[text:end], page) for _, text, end, _ in page.styles]
    mentioned = [*page.style_attributes, *(read_stylesheet(href) for href in page.stylesheets)]
    used = _used_properties([item for sheet in sheets for item in sheet], mentioned)
    pieces, position = [], 0
    for (tag, text, end, close), items in zip(page.styles, sheets, strict=True):
        css = _serialize(items, used)
        pieces.append(html[position:tag] if not css.strip() else html[position:text] + css + html[end:close])
        position = close
    return "".join(pieces) + html[position:]


@dataclass(frozen=True)
class _Statement:
    """A rule or at-rule of a stylesheet as written: its prelude and, unless it ends in ";", its block."""

    prelude: str
    block: str | None

    def text(self) -> str:
        return self.prelude.strip() + (";" if self.block is None else f"{{{self.block}}}")


@cache
def _scanned(css: str) -> tuple[tuple[_Statement, list[Node] | None], ...]:
    """Each statement of `css` with its prelude's simple tokens, once per build for a stylesheet that
    every notebook page inlines alike."""
    return tuple((statement, _simple_tokens(statement.prelude)) for statement in _statements(css))


def _kept_items(css: str, page: _Page) -> list[_Item]:
    kept: list[_Item] = []
    for statement, simple in _scanned(css):
        if simple is not None and statement.block is not None and not any(
                _may_match(selector, page) for selector in _selectors(simple)):
            continue  # most of JupyterLab's rules: dropped without tinycss2 (a third of the build's time here)
        tokens = tinycss2.parse_component_value_list(statement.prelude, skip_comments=True)
        prelude = [token for token in tokens if token.type != "whitespace"]
        if not prelude:
            continue
        if prelude[0].type == "at-keyword":
            if statement.block is not None and prelude[0].lower_value in _GROUPING_RULES:
                if inner := _kept_items(statement.block, page):
                    kept.append(_Group(statement.prelude.strip(), inner))
            else:
                kept.append(statement.text())
        elif statement.block is not None and any(_may_match(s, page) for s in _selectors(tokens)):
            kept.append(_rule(tinycss2.serialize(tokens).strip(), statement))
        # A selector without a block is a parse error, which browsers skip as well.
    return kept


@cache  # the same rules are kept on every notebook page
def _rule(selector: str, statement: _Statement) -> _Item:
    """A style rule whose custom properties may be pruned, or as written if it nests other rules."""
    contents = tinycss2.parse_blocks_contents(statement.block or "", skip_comments=True, skip_whitespace=True)
    if all(item.type == "declaration" for item in contents):
        return _Rule(selector, contents)
    return statement.text()


def _statements(css: str) -> Iterator[_Statement]:
    """The top-level rules and at-rules of a stylesheet, split where CSS's tokenizer splits them.

    Only braces, and semicolons outside blocks, delimit them when they are not
    inside a comment, a string, an escape or an unquoted url().
    """
    scan = _Scanner(css)
    start = depth = block_start = 0
    while (position := scan.next_structural()) < len(css):
        char = css[position]
        if char == "{":
            depth += 1
            if depth == 1:
                block_start = position + 1
        elif char == "}" and depth:
            depth -= 1
            if not depth:
                yield _Statement(css[start:block_start - 1], css[block_start:position])
                start = position + 1
        elif char == ";" and not depth:
            yield _Statement(css[start:position], None)
            start = position + 1
    if depth:  # an unclosed block runs to the end, as in a browser
        yield _Statement(css[start:block_start - 1], css[block_start:])
    elif css[start:].strip():
        yield _Statement(css[start:], None)


class _Scanner:
    """Walks a stylesheet from one brace or semicolon to the next, stepping over what hides them."""

    _MARKS = (b"{", b"}", b";", b'"', b"'", b"\\", b"/*", b"url(")

    def __init__(self, css: str) -> None:
        self.css = css
        # One byte per character, so offsets match; lowered, since url( may be written in any case.
        self.folded = css.encode("ascii", errors="replace").lower()
        self.position = 0
        self._next = {mark: self._find(mark, 0) for mark in self._MARKS}

    def _find(self, mark: bytes, start: int) -> int:
        found = self.folded.find(mark, start)
        return len(self.css) if found == -1 else found

    def next_structural(self) -> int:
        """The position of the next brace or semicolon that delimits blocks (len(css) at the end)."""
        while True:
            for mark, found in self._next.items():
                if found < self.position:
                    self._next[mark] = self._find(mark, self.position)
            mark = min(self._next, key=self._next.__getitem__)
            at = self._next[mark]
            if at >= len(self.css) or mark in (b"{", b"}", b";"):
                self.position = at + 1
                return at
            self.position = self._skip(mark, at)

    def _skip(self, mark: bytes, at: int) -> int:
        """Where the comment, string, escape or url() starting at `at` ends."""
        if mark == b"/*":
            return self._find(b"*/", at + 2) + 2
        if mark == b"\\":
            return at + 2
        if mark == b"url(":
            inside = at + 4
            while inside < len(self.css) and self.css[inside] in " \t\n\r\f":
                inside += 1
            if inside < len(self.css) and self.css[inside] in "\"'":
                return inside  # a quoted url is a function holding a string: scan on
            return self._past(inside, (b")",))
        return self._past(at + 1, (mark, b"\n"))  # a string ends at its quote, or a newline

    def _past(self, start: int, ends: tuple[bytes, ...]) -> int:
        """Just past the first of `ends` from `start`, stepping over backslash escapes."""
        while True:
            found = min(self._find(end, start) for end in (*ends, b"\\"))
            if found >= len(self.css) or self.css[found] != "\\":
                return found + 1
            start = found + 2


# What most selectors are made of: whitespace, names, `#id`, and the one-character `.`, `:`, `*`,
# combinators and `,`. A prelude of nothing else is tokenized here as tinycss2 tokenizes it.
_SIMPLE_TOKEN = re.compile(r"(?P<whitespace>\s+)|(?P<ident>-?[A-Za-z_][\w-]*|--[\w-]*)|#(?P<hash>[\w-]+)"
                           r"|(?P<literal>[.:*>+~,])", re.ASCII)
_IDENT_START = re.compile(r"-?[A-Za-z_]|--", re.ASCII)


def _simple_tokens(prelude: str) -> list[Node] | None:
    """The prelude's tokens if it is made only of _SIMPLE_TOKEN's, else None (tinycss2 then reads it)."""
    tokens: list[Node] = []
    position = 0
    while position < len(prelude):
        match = _SIMPLE_TOKEN.match(prelude, position)
        if match is None:
            return None
        kind, value = match.lastgroup, match[match.lastgroup or 0]
        if kind == "whitespace":
            tokens.append(WhitespaceToken(0, 0, value))
        elif kind == "ident":
            tokens.append(IdentToken(0, 0, value))
        elif kind == "hash":
            tokens.append(HashToken(0, 0, value, is_identifier=_IDENT_START.match(value) is not None))
        else:
            tokens.append(LiteralToken(0, 0, value))
        position = match.end()
    return tokens


def _selectors(prelude: list[Node]) -> Iterator[list[Node]]:
    """Each selector of a selector list, as tokens."""
    selector: list[Node] = []
    for token in prelude:
        if token.type == "literal" and token.value == ",":
            yield selector
            selector = []
        else:
            selector.append(token)
    yield selector


def _may_match(selector: list[Node], page: _Page) -> bool:
    """Whether the page has every class, id and element the selector names outside pseudo-classes."""
    previous: Node | None = None
    for token in selector:
        after_delimiter = previous is None or previous.type == "whitespace" or (
            previous.type == "literal" and previous.value in _COMBINATORS)
        if token.type == "ident" and previous is not None and previous.type == "literal" and previous.value == ".":
            if token.value not in page.classes:
                return False
        elif token.type == "ident" and after_delimiter and token.lower_value not in page.tags:
            return False
        elif token.type == "hash" and token.value not in page.ids:
            return False
        previous = token
    return True


def _used_properties(items: list[_Item], mentioned: list[str]) -> set[str]:
    """The custom properties something can read: a `var()` outside custom properties, or inside a read one."""
    used: set[str] = set()
    custom: dict[str, set[str]] = {}
    for item in _flattened(items):
        if isinstance(item, str):
            used |= _var_references(tinycss2.parse_component_value_list(item))
            continue
        for declaration in item.declarations:
            if declaration.name.startswith("--"):
                custom.setdefault(declaration.name, set()).update(_var_references(declaration.value))
            else:
                used |= _var_references(declaration.value)
    used |= {name for name in custom if any(name in text for text in mentioned)}
    pending = list(used)
    while pending:
        for name in custom.get(pending.pop(), ()):
            if name not in used:
                used.add(name)
                pending.append(name)
    return used


def _flattened(items: list[_Item]) -> Iterator[str | _Rule]:
    for item in items:
        if isinstance(item, _Group):
            yield from _flattened(item.items)
        else:
            yield item


def _var_references(tokens: Iterable[Node]) -> set[str]:
    names: set[str] = set()
    for token in tokens:
        if token.type == "function":
            arguments = [argument for argument in token.arguments if argument.type != "whitespace"]
            if token.lower_name == "var" and arguments and arguments[0].type == "ident":
                names.add(arguments[0].value)
            names |= _var_references(token.arguments)
        elif token.type in ("() block", "[] block", "{} block"):
            names |= _var_references(token.content)
    return names


def _serialize(items: list[_Item], used: set[str]) -> str:
    css = []
    for item in items:
        if isinstance(item, str):
            css.append(item)
        elif isinstance(item, _Group):
            if inner := _serialize(item.items, used):
                css.append(f"{item.head}{{{inner}}}")
        else:
            declarations = [declaration.serialize() for declaration in item.declarations
                            if not declaration.name.startswith("--") or declaration.name in used]
            if declarations:
                css.append(f"{item.selector}{{{';'.join(declarations)}}}")
    return "\n".join(css)

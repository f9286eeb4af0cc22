"""What each directive of a page becomes (`prepare`): the Markdown of its code blocks and the HTML of its outputs,
figures and tables, read from what was recorded. Engine-free: the state checks every page through it, and the
Markdown extension renders through it."""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from recorder.project.directives import (
    Block,
    Compatibility,
    Directive,
    Example,
    Figure,
    Listing,
    Origins,
    Parts,
    Provenance,
    Value,
)
from recorder.project.errors import PageError
from recorder.project.outputs import Outputs, check_include, fence
from recorder.project.provenance import counted, origins, provenance_table
from recorder.render import compat_page
from recorder.render.html import render_figure, render_output, visible


@dataclass
class PreparedPage:
    """A page's directives, each with what it becomes; the conversion records what it used."""

    part: str | None = None  # the part of its first code, example or figure
    fences: list[tuple[Block, list[str]]] = field(default_factory=list)  # lines replacing the directive's
    outputs: list[tuple[Block, str]] = field(default_factory=list)  # HTML for its own paragraph
    values: dict[str, str] = field(default_factory=dict)  # directive as written -> escaped text
    quoted: Counter[str] = field(default_factory=Counter)  # how often the page writes each value
    placed: set[Block] = field(default_factory=set)  # outputs the conversion put in
    replaced: Counter[str] = field(default_factory=Counter)
    errors: list[tuple[Directive, PageError]] = field(default_factory=list)  # the directives that cannot render

    def lost(self) -> list[PageError]:
        """Each directive the conversion did not use, of those the page was parsed into and that could render (one
        that could not is named by its own error)."""
        failed = {directive for directive, _ in self.errors}
        lost = [
            PageError(
                f"the output of `{directive.text}` was lost while rendering Markdown; "
                "keep block directives outside of HTML blocks and alone in their paragraph."
            )
            for directive, _ in self.outputs
            if directive not in self.placed and directive not in failed
        ]
        return lost + [
            PageError(
                f"`{text}` stands {counted(count, 'time')} outside code, but rendering Markdown "
                f"replaced it {counted(self.replaced[text], 'time')}. Keep values out of HTML "
                "blocks, HTML tags and link addresses."
            )
            for text, count in self.quoted.items()
            if self.replaced[text] != count
        ]

    def noted(self, note: Callable[[str], str], inline: Callable[[str, str], str]) -> None:
        """Each directive that cannot render shown as its problem instead: a block as `note(message)` in place of its
        output (and of its code, where the code cannot be shown either), a value as `inline(text, message)`."""
        fenced = {directive for directive, _ in self.fences}
        for directive, error in self.errors:
            if isinstance(directive, Value):
                self.values[directive.text] = inline(directive.text, str(error))
                self.quoted[directive.text] += 1
                continue
            if directive not in fenced:  # its paragraph, which the note takes
                self.fences.append((directive, [directive.indent + directive.text]))
            self.outputs.append((directive, note(str(error))))


# What a block directive becomes: Markdown in place of its line, or HTML in the paragraph it stands in.
# An example is both: its code block, then its directive's paragraph, which its output takes.
_BecomesMarkdown = Listing | Parts
_BecomesHtml = Example | Figure | Provenance | Compatibility | Origins


def prepare(directives: list[Directive], outputs: Outputs) -> PreparedPage:
    """What each directive of a page becomes; each that cannot is kept in `errors`, with the PageError naming its
    fix, so that one conversion names every problem of the page."""
    prepared = PreparedPage()
    for directive in directives:
        if isinstance(directive, Listing | Figure) and prepared.part is None:
            prepared.part = directive.file.partition("/")[0]
        try:
            _prepare(directive, outputs, prepared)
        except PageError as error:
            prepared.errors.append((directive, error))
    return prepared


def _prepare(directive: Directive, outputs: Outputs, prepared: PreparedPage) -> None:
    """Add what `directive` becomes to `prepared`, or raise PageError: an example's code is added before its output,
    which may fail alone."""
    if isinstance(directive, Value):
        prepared.values[directive.text] = visible(outputs.value(directive.name))
        prepared.quoted[directive.text] += 1
        return
    if isinstance(directive, _BecomesMarkdown):
        prepared.fences.append((directive, _markdown(directive, outputs)))
    if isinstance(directive, _BecomesHtml):
        prepared.outputs.append((directive, _html(directive, outputs)))


def _markdown(directive: _BecomesMarkdown, outputs: Outputs) -> list[str]:
    """The lines replacing the directive's, indented as it is."""
    if isinstance(directive, Parts):  # a link to each part's page under its title, with its page's description
        lines = [
            f"- [{title}]({part}.md): {outputs.descriptions.get(part, '').rstrip('.')}."
            for part, title in outputs.parts.items()
        ]
    else:
        lines = fence(outputs.root, directive.file, directive.section, directive.highlight)
        # An example's directive stays, after its fence, as the paragraph its output takes.
        lines += ["", directive.text] if isinstance(directive, Example) else []
    return [directive.indent + line if line else line for line in lines]


def _html(directive: _BecomesHtml, outputs: Outputs) -> str:
    if isinstance(directive, Example):
        return render_output(outputs, directive.name)
    if isinstance(directive, Provenance):
        return provenance_table(outputs.records, outputs.repository, outputs.parts)
    if isinstance(directive, Compatibility):
        if isinstance(outputs.compat, str):  # why the table cannot be read
            raise PageError(outputs.compat)
        return compat_page.render(outputs.compat, outputs.records, outputs.repository, outputs.parts)
    if isinstance(directive, Origins):
        if directive.part not in (None, *outputs.parts):
            raise PageError(f"`{directive.text}` names no part: the parts are {', '.join(outputs.parts)}.")
        return origins(outputs.records, outputs.parts, directive.part)
    check_include(outputs.root, directive.file, None)
    alt = "".join(part if isinstance(part, str) else outputs.value(part.name) for part in directive.alt)
    return render_figure(outputs, directive.name, alt)


def with_fences(lines: list[str], prepared: PreparedPage) -> list[str]:
    """The page's lines with each directive that becomes Markdown (code, an example's code, the parts) replaced by
    it."""
    # From the last, so that the lines before each directive keep their numbers.
    for directive, fence_lines in sorted(prepared.fences, key=lambda fence: fence[0].line, reverse=True):
        lines[directive.line : directive.line + 1] = fence_lines
    return lines

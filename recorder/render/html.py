"""Recorded outputs and figures as the HTML a page shows, each with its provenance line."""

import html
import re
from xml.etree import ElementTree

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as DefusedElementTree

from recorder.project import provenance
from recorder.project.config import SNIPPETS_DIR
from recorder.project.errors import PageError
from recorder.project.manifest import OUTPUTS_DIR
from recorder.project.outputs import Outputs

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
ALLOWED_ELEMENTS = frozenset(
    {
        "svg",
        "g",
        "rect",
        "text",
        "tspan",
        "line",
        "path",
        "polyline",
        "polygon",
        "circle",
        "title",
        "desc",
        "defs",
        "marker",
    }
)
ALLOWED_ATTRIBUTES = frozenset(
    {
        "id",
        "class",
        "viewBox",
        "width",
        "height",
        "preserveAspectRatio",
        "transform",
        "x",
        "y",
        "x1",
        "y1",
        "x2",
        "y2",
        "cx",
        "cy",
        "r",
        "rx",
        "ry",
        "dx",
        "dy",
        "d",
        "points",
        "fill",
        "fill-opacity",
        "stroke",
        "stroke-width",
        "stroke-opacity",
        "stroke-dasharray",
        "stroke-linecap",
        "stroke-linejoin",
        "opacity",
        "font-size",
        "font-weight",
        "font-style",
        "font-family",
        "text-anchor",
        "dominant-baseline",
        "marker-start",
        "marker-mid",
        "marker-end",
        "markerWidth",
        "markerHeight",
        "markerUnits",
        "refX",
        "refY",
        "orient",
    }
)
_LOCAL_REFERENCE = re.compile(r"url\(#[A-Za-z][-\w.]*\)")  # the one url() allowed: an element of the figure


def visible(text: str) -> str:
    """`text` as HTML, each control character but tab and newline as its `\\xNN` escape: what a snippet printed, and
    no STX and ETX, which delimit Markdown's placeholders, so that no value can name stashed HTML."""
    return html.escape(_CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text))


def render_output(recorded: Outputs, name: str) -> str:
    text = visible(recorded.output(name).rstrip("\n"))
    output = f'<div class="highlight"><span class="filename">Output</span><pre><code>{text}</code></pre></div>'
    return _block(recorded, name, output)


def render_figure(recorded: Outputs, name: str, alt: str) -> str:
    svg = accessible_svg(
        recorded.output(name),
        alt,
        figure_id=f"figure-{name.replace('/', '-')}",
        output=f"{OUTPUTS_DIR}/{name}.txt",
        source=f"{SNIPPETS_DIR}/{name}.py",
    )
    return _block(recorded, name, svg, figure=True)


def _block(recorded: Outputs, name: str, body: str, *, figure: bool = False) -> str:
    """`body` in its block, over its provenance line."""
    element, caption, kind = ("figure", "figcaption", "figure") if figure else ("div", "div", "output")
    line = provenance.caption(recorded.records[name], name, recorded.repository)
    return (
        f'<{element} class="recorded-{kind}" data-snippet="{html.escape(name)}">{body}'
        f'<{caption} class="provenance">{line}</{caption}></{element}>'
    )


def checked_svg(text: str, *, output: str, source: str) -> ElementTree.Element:
    """Parse `text` (the file `output`, printed by `source`) and allow only plain drawing: inline SVG can run script,
    load other hosts or restyle the page."""

    def refused(reason: str, fix: str = "print only plain SVG drawing") -> PageError:
        return PageError(f"{output} {reason}. In {source}, {fix}, then run `make record`.")

    try:
        root = DefusedElementTree.fromstring(text, forbid_dtd=True)
    except DefusedXmlException:
        raise refused("declares a DOCTYPE, which can define entities") from None
    except ElementTree.ParseError as error:
        raise refused(f"is not well-formed SVG ({error})") from None
    if root.tag != f"{{{SVG_NAMESPACE}}}svg":
        raise refused(f'must be one <svg xmlns="{SVG_NAMESPACE}"> element, not <{root.tag}>')
    for element in root.iter():
        if (reason := _not_inlined(element)) is not None:
            raise refused(reason)
    if root.find(f"{{{SVG_NAMESPACE}}}title") is None:
        raise refused("has no <title> as a child of <svg>", fix="give the figure a short title")
    return root


def _not_inlined(element: ElementTree.Element) -> str | None:
    """Why a page does not inline `element`, or None if it does: its tag, or the first attribute it refuses."""
    namespace, _, name = element.tag.rpartition("}")
    if namespace != f"{{{SVG_NAMESPACE}" or name not in ALLOWED_ELEMENTS:
        return (
            f"contains <{element.tag}>, which a page does not inline. Allowed elements: "
            f"{', '.join(sorted(ALLOWED_ELEMENTS))}"
        )
    for attribute, value in element.attrib.items():
        if attribute not in ALLOWED_ATTRIBUTES:
            return (
                f"gives <{name}> the attribute `{attribute}`, which a page does not inline "
                "(no event handlers, links, or style)"
            )
        if "url(" in value.replace(" ", "").lower() and not _LOCAL_REFERENCE.fullmatch(value):
            return (
                f"gives <{name}> {attribute}={value!r}; url() may only be `url(#id)`, an element of the figure itself"
            )
    return None


def accessible_svg(text: str, alt: str, *, figure_id: str, output: str, source: str) -> str:
    """The checked figure as markup, announced as one image named by its title and `alt`."""
    root = checked_svg(text, output=output, source=source)
    title = root.find(f"{{{SVG_NAMESPACE}}}title")
    title.set("id", f"{figure_id}-title")
    description = ElementTree.Element(f"{{{SVG_NAMESPACE}}}desc", {"id": f"{figure_id}-alt"})
    description.text = alt
    root.insert(list(root).index(title) + 1, description)
    root.attrib.update({"role": "img", "aria-labelledby": f"{figure_id}-title {figure_id}-alt"})
    for element in root.iter():  # HTML knows inline SVG by its plain tag names, without namespace prefixes
        element.tag = element.tag.rpartition("}")[2]
    root.set("xmlns", SVG_NAMESPACE)
    return ElementTree.tostring(root, encoding="unicode")


def problem_note(message: str) -> str:
    """What a preview shows in place of an output or code block it cannot show: the problem, with its fix."""
    return (
        '<div class="admonition failure recorded-problem"><p class="admonition-title">Not shown in this preview</p>'
        f"<p>{visible(message)}</p></div>"
    )


def problem_inline(text: str, message: str) -> str:
    """What a preview shows in place of a value it cannot read: the directive as written, marked, its problem on
    hover (the banner at the top of the page lists it too)."""
    return f'<mark class="recorded-problem" title="{visible(message)}">{visible(text)}</mark>'


def banner(problems: tuple[str, ...], note: str) -> str:
    """The top of every page of a preview whose state has problems: what the record step said (`note`), and
    each problem with its fix, as `make check` names them."""
    said = f"<p>The record step said:</p><pre><code>{visible(note)}</code></pre>" if note else ""
    listed = "".join(f"<li>{visible(problem)}</li>" for problem in problems)
    refused = f"<p>What <code>make check</code> refuses, each with its fix:</p><ul>{listed}</ul>" if problems else ""
    return (
        '<div class="admonition failure recorded-preview" role="alert"><p class="admonition-title">'
        "This preview cannot be built as the site</p>"
        f"{said}{refused}<p>It records and rebuilds when you save a change.</p>"
        "</div>"
    )

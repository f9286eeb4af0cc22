"""Check a recorded SVG figure before it is put into a page as inline markup.

A figure is a snippet's output, and inline SVG can run script, load other
hosts or restyle the page. Only drawing elements and presentation attributes
pass, references may only point inside the figure, and anything else stops the
build with the output file and the fix.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as DefusedElementTree

from recorder.errors import RecorderError

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
ALLOWED_ELEMENTS = frozenset({
    "svg", "g", "rect", "text", "tspan", "line", "path", "polyline", "polygon", "circle",
    "title", "desc", "defs", "marker",
})
ALLOWED_ATTRIBUTES = frozenset({
    "id", "class", "viewBox", "width", "height", "preserveAspectRatio", "transform",
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "dx", "dy", "d", "points",
    "fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray",
    "stroke-linecap", "stroke-linejoin", "opacity",
    "font-size", "font-weight", "font-style", "font-family", "text-anchor", "dominant-baseline",
    "marker-start", "marker-mid", "marker-end", "markerWidth", "markerHeight", "markerUnits",
    "refX", "refY", "orient",
})
# The one form of url() allowed: a reference to an element of the same figure.
_LOCAL_REFERENCE = re.compile(r"url\(#[A-Za-z][-\w.]*\)")


class UnsafeFigure(RecorderError):
    """The recorded figure is not plain SVG drawing; the message names the file and the fix."""


def _local_name(tag: str) -> tuple[str, str]:
    namespace, _, name = tag.rpartition("}")
    return namespace.removeprefix("{"), name


def checked_svg(text: str, *, output: str, source: str) -> ElementTree.Element:
    """Parse `text` (the file `output`, printed by `source`) and allow only plain drawing."""
    fix = f"Change {source} to print only plain SVG drawing, then run `make record`."
    try:
        root = DefusedElementTree.fromstring(text, forbid_dtd=True)
    except DefusedXmlException:
        raise UnsafeFigure(f"{output} declares a DOCTYPE, which can define entities. {fix}") from None
    except ElementTree.ParseError as error:
        raise UnsafeFigure(f"{output} is not well-formed SVG ({error}). {fix}") from None
    if root.tag != f"{{{SVG_NAMESPACE}}}svg":
        raise UnsafeFigure(f'{output} must be one <svg xmlns="{SVG_NAMESPACE}"> element, not <{root.tag}>. {fix}')
    for element in root.iter():
        namespace, name = _local_name(element.tag)
        if namespace != SVG_NAMESPACE or name not in ALLOWED_ELEMENTS:
            raise UnsafeFigure(
                f"{output} contains <{element.tag}>, which a page does not inline. Allowed elements: "
                f"{', '.join(sorted(ALLOWED_ELEMENTS))}. {fix}"
            )
        for attribute, value in element.attrib.items():
            if attribute not in ALLOWED_ATTRIBUTES:
                raise UnsafeFigure(
                    f"{output} gives <{name}> the attribute `{attribute}`, which a page does not inline "
                    f"(no event handlers, links, or style). {fix}"
                )
            if "url(" in value.replace(" ", "").lower() and not _LOCAL_REFERENCE.fullmatch(value):
                raise UnsafeFigure(
                    f"{output} gives <{name}> {attribute}={value!r}; url() may only be `url(#id)`, "
                    f"an element of the figure itself. {fix}"
                )
    if root.find(f"{{{SVG_NAMESPACE}}}title") is None:
        raise UnsafeFigure(f"{output} has no <title> as a child of <svg>. Give the figure a short title "
                           f"in {source}, then run `make record`.")
    return root


def accessible_svg(text: str, alt: str, *, figure_id: str, output: str, source: str) -> str:
    """The checked figure as markup, announced as one image named by its title and `alt`."""
    root = checked_svg(text, output=output, source=source)
    title = root.find(f"{{{SVG_NAMESPACE}}}title")
    assert title is not None, "checked_svg requires a title"
    title.set("id", f"{figure_id}-title")
    description = ElementTree.Element(f"{{{SVG_NAMESPACE}}}desc", {"id": f"{figure_id}-alt"})
    description.text = alt
    root.insert(list(root).index(title) + 1, description)
    root.set("role", "img")
    root.set("aria-labelledby", f"{figure_id}-title {figure_id}-alt")
    # HTML knows inline SVG by its plain tag names: drop the namespace prefixes the parser added.
    for element in root.iter():
        element.tag = _local_name(element.tag)[1]
    root.set("xmlns", SVG_NAMESPACE)
    return ElementTree.tostring(root, encoding="unicode")

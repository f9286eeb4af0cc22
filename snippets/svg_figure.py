"""A small SVG writer shared by the figure snippets.

Every shape is painted with `currentColor` by default and carries a class that
the site's stylesheet colours, so a figure reads in the light and the dark
palette alike. A figure snippet prints its SVG; the record step keeps it.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from xml.etree import ElementTree

SVG_NAMESPACE = "http://www.w3.org/2000/svg"

Number = int | float


class Figure:
    def __init__(self, name: str, title: str, width: int, height: int) -> None:
        self.svg = ElementTree.Element(
            "svg",
            {
                "xmlns": SVG_NAMESPACE,
                "class": f"figure {name}",
                "viewBox": f"0 0 {width} {height}",
                "width": str(width),
                "height": str(height),
                "font-size": "14",
            },
        )
        self.parent = self.svg  # where the next shape goes
        ElementTree.SubElement(self.svg, "title").text = title
        # One arrowhead per figure, named after it, so two figures on a page never share an id.
        self.arrowhead = f"{name}-arrowhead"
        marker = ElementTree.SubElement(
            ElementTree.SubElement(self.svg, "defs"),
            "marker",
            {
                "id": self.arrowhead,
                "viewBox": "0 0 10 10",
                "refX": "10",
                "refY": "5",
                "markerWidth": "7",
                "markerHeight": "7",
                "orient": "auto",
            },
        )
        ElementTree.SubElement(
            marker,
            "path",
            {
                "class": "figure-arrowhead",
                "d": "M 0 0 L 10 5 L 0 10 z",
                "fill": "currentColor",
            },
        )

    @contextmanager
    def group(self, css_class: str) -> Iterator[None]:
        """Put the shapes drawn inside the `with` block into one <g>, such as a table row."""
        outer = self.parent
        self.parent = ElementTree.SubElement(outer, "g", {"class": css_class})
        try:
            yield
        finally:
            self.parent = outer

    def box(self, x: Number, y: Number, width: Number, height: Number, css_class: str) -> None:
        self._add("rect", css_class, x=x, y=y, width=width, height=height, fill="none", stroke="currentColor")

    def label(self, x: Number, y: Number, text: str, css_class: str, anchor: str = "middle") -> None:
        self._add(
            "text", css_class, x=x, y=y, fill="currentColor", **{"text-anchor": anchor, "dominant-baseline": "central"}
        ).text = text

    def arrow(self, x1: Number, y1: Number, x2: Number, y2: Number) -> None:
        self._add(
            "line",
            "figure-arrow",
            x1=x1,
            y1=y1,
            x2=x2,
            y2=y2,
            stroke="currentColor",
            **{"marker-end": f"url(#{self.arrowhead})"},
        )

    def print(self) -> None:
        ElementTree.indent(self.svg)
        print(ElementTree.tostring(self.svg, encoding="unicode"))

    def _add(self, tag: str, css_class: str, **attributes: Number | str) -> ElementTree.Element:
        values = {name: f"{value:g}" if isinstance(value, Number) else value for name, value in attributes.items()}
        return ElementTree.SubElement(self.parent, tag, {"class": css_class, **values})

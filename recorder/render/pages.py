"""What the page directives show (`Recorded` is what a page may read): snippet sections, read as pymdownx.snippets
includes them, and recorded outputs and figures as HTML."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as DefusedElementTree
from pymdownx.snippets import SnippetPreprocessor

from recorder.errors import RecorderError
from recorder.pinned import MODEL_ID, OUTPUTS_DIR, REVISION, SNIPPETS_DIR
from recorder.record import store
from recorder.record.project import Project
from recorder.record.snippets import pins
from recorder.render import provenance
from recorder.render.repository import Repository
from recorder.render.values import VALUES_FILE, templates

# The marker pattern pymdownx.snippets itself uses, so line numbers count what it includes.
_SECTION_MARKER = SnippetPreprocessor.RE_SNIPPET_SECTION
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
ALLOWED_ELEMENTS = frozenset({"svg", "g", "rect", "text", "tspan", "line", "path", "polyline", "polygon", "circle",
                              "title", "desc", "defs", "marker"})
ALLOWED_ATTRIBUTES = frozenset({
    "id", "class", "viewBox", "width", "height", "preserveAspectRatio", "transform", "x", "y", "x1", "y1", "x2", "y2",
    "cx", "cy", "r", "rx", "ry", "dx", "dy", "d", "points", "fill", "fill-opacity", "stroke", "stroke-width",
    "stroke-opacity", "stroke-dasharray", "stroke-linecap", "stroke-linejoin", "opacity", "font-size", "font-weight",
    "font-style", "font-family", "text-anchor", "dominant-baseline", "marker-start", "marker-mid", "marker-end",
    "markerWidth", "markerHeight", "markerUnits", "refX", "refY", "orient",
})
_LOCAL_REFERENCE = re.compile(r"url\(#[A-Za-z][-\w.]*\)")  # the one url() allowed: an element of the figure


class PageError(RecorderError):
    """A directive the build cannot resolve; the message names the page and the fix."""


class UnsafeFigure(PageError):
    """A recorded figure that is not plain SVG drawing; the message names the file and the fix."""


@dataclass(frozen=True)
class Recorded:
    """What a page may read: the manifest, the outputs, the values, and where the repository is."""

    root: Path
    manifest: dict[str, dict[str, Any]]
    stale: Mapping[str, str] = field(default_factory=dict)  # snippet name -> why its output is stale (previewing)
    repository: Repository | None = None  # None: sources are linked to their copies inside the site
    values: Mapping[str, str] = field(default_factory=dict)  # "<part>/<name>" -> the text its template read
    unreadable: Mapping[str, str] = field(default_factory=dict)  # "<part>/<name>" -> why it could not be read
    builtins: Mapping[str, str] = field(default_factory=dict)  # values every page may quote
    parts: Mapping[str, str] = field(default_factory=dict)  # part -> its title, in the navigation's order

    def output(self, name: str) -> str:
        path = store.output_path(self.root, name)
        if name not in self.manifest or not path.exists():
            raise PageError(f"{SNIPPETS_DIR}/{name}.py has no recorded output. Run `make record`.")
        # A hand-edited output may not be UTF-8: the preview still renders it, beside its stale warning.
        return path.read_text(encoding="utf-8", errors="replace")

    def value(self, name: str) -> str:
        if name in self.builtins:
            return self.builtins[name]
        if name in self.unreadable:
            raise PageError(self.unreadable[name])
        if name not in self.values:
            part = name.partition("/")[0]
            known = ", ".join(sorted(known for known in self.values if known.startswith(f"{part}/"))) or "none"
            raise PageError(f"unknown value `{name}` (known in {part}: {known}; built in: "
                            f"{', '.join(self.builtins)}). Declare it in {SNIPPETS_DIR}/{part}/{VALUES_FILE}.")
        return self.values[name]


def in_prose_style(value: str) -> str:
    """A whole number as the prose writes every number, with thousands separators (50256 as 50,256), whatever
    the output printed; any other value as printed, a Python list of ids included."""
    return f"{int(value):,}" if re.fullmatch(r"[0-9]+", value) else value


def recorded(project: Project, repository: Repository | None = None,
             manifest: dict[str, dict[str, Any]] | None = None) -> Recorded:
    """What the pages of `project` may read; a record run passes the manifest it has read already."""
    manifest = store.read_manifest(project.root) if manifest is None else manifest
    transformers = pins(project.root).get("transformers", "transformers==?").partition("==")[2]
    builtins = {"pinned_model": MODEL_ID, "pinned_revision": REVISION, "pinned_transformers": transformers}
    parts = {part.name: part.title for part in project.parts()}
    found = Recorded(project.root, manifest, repository=repository, builtins=builtins, parts=parts)
    values, unreadable, read_from = {}, {}, {}
    for part in parts:
        for template in templates(project.root, part):
            try:
                read = template.read(found.output(f"{part}/{template.output}"))
            except RecorderError as error:
                unreadable |= {f"{part}/{name}": str(error) for name in template.names}
                continue
            output = f"{OUTPUTS_DIR}/{part}/{template.output}.txt"
            for name, value in read.items():
                key, shown = f"{part}/{name}", in_prose_style(value)
                if values.setdefault(key, shown) != shown:
                    unreadable[key] = (f"value `{key}` reads {values[key]!r} in {read_from[key]} but {shown!r} in "
                                       f"{output}: every output whose template in {SNIPPETS_DIR}/{part}/{VALUES_FILE} "
                                       "names it must print the same. Fix the snippet that prints it wrong, or, if "
                                       "they are not the same value, give each its own name.")
                read_from.setdefault(key, output)
    return replace(found, values=values, unreadable=unreadable)


def check_include(root: Path, file: str, section: str | None) -> list[tuple[str, str] | None]:
    """Per line of `file`, ("start" or "end", name) where pymdownx.snippets sees a section marker; a missing file or
    section is named here, with its fix, before pymdownx.snippets would."""
    path = root / SNIPPETS_DIR / file
    if not path.is_file():
        raise PageError(f"{SNIPPETS_DIR}/{file} does not exist. Fix the directive's file name.")
    matches = [_SECTION_MARKER.match(line) if "8<-" in line else None
               for line in path.read_text(encoding="utf-8").splitlines()]
    markers = [(match.group("type").lower(), match.group("name")) if match and not match.group("escape") else None
               for match in matches]
    for edge in ("start", "end"):
        if section and (edge, section) not in markers:
            raise PageError(f"{SNIPPETS_DIR}/{file} has no `# --8<-- [{edge}:{section}]` marker. Mark the lines the "
                            f"page shows with [start:{section}] and [end:{section}], or fix the section name.")
    return markers


def highlighted_lines(root: Path, file: str, section: str | None, subsection: str) -> list[int]:
    """Where the lines of `subsection` fall, from 1, in the block showing `section`, which has no marker lines."""
    inside, lit, shown = section is None, False, []  # whether each line the block shows is lit
    for marker in check_include(root, file, subsection):
        if marker is None:
            shown += [lit] if inside else []
        elif marker[1] == section:
            if marker[0] == "end":
                break
            inside = True
        elif marker[1] == subsection:
            lit = marker[0] == "start"
    if not (numbers := [number for number, highlighted in enumerate(shown, 1) if highlighted]):
        where = f"section `{section}`" if section else "the file"
        between = f", between [start:{section}] and [end:{section}]" if section else ""
        raise PageError(f"{SNIPPETS_DIR}/{file}: section `{subsection}` holds no line of {where}. Put "
                        f"[start:{subsection}] and [end:{subsection}] around the lines to highlight{between}.")
    return numbers


def fence(root: Path, file: str, section: str | None, highlight: str | None = None) -> list[str]:
    """The fenced block showing `section` of `file`, with section `highlight` marked, for pymdownx.snippets to fill."""
    check_include(root, file, section)
    numbers = " ".join(map(str, highlighted_lines(root, file, section, highlight))) if highlight else ""
    include = f"{file}:{section}" if section else file
    options = f' hl_lines="{numbers}"' if numbers else ""
    return [f'```python title="{SNIPPETS_DIR}/{file}"{options}', f'--8<-- "{include}"', "```"]


def visible(text: str) -> str:
    """`text` as HTML, each control character but tab and newline as its `\\xNN` escape: what a snippet printed, and
    no STX and ETX, which delimit Markdown's placeholders, so that no value can name stashed HTML."""
    return html.escape(_CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text))


def render_output(recorded: Recorded, name: str) -> str:
    text = visible(recorded.output(name).rstrip("\n"))
    output = f'<div class="highlight"><span class="filename">Output</span><pre><code>{text}</code></pre></div>'
    return _block(recorded, name, output)


def render_figure(recorded: Recorded, name: str, alt: str) -> str:
    svg = accessible_svg(recorded.output(name), alt, figure_id=f"figure-{name.replace('/', '-')}",
                         output=f"{OUTPUTS_DIR}/{name}.txt", source=f"{SNIPPETS_DIR}/{name}.py")
    return _block(recorded, name, svg, figure=True)


def _block(recorded: Recorded, name: str, body: str, *, figure: bool = False) -> str:
    """`body` in its block, after a warning if it is stale, over its provenance line."""
    element, caption, kind = ("figure", "figcaption", "figure") if figure else ("div", "div", "output")
    warning = (f'<p class="recorded-output__stale"><strong>Stale output.</strong> '
               f"{html.escape(recorded.stale[name])}</p>" if name in recorded.stale else "")
    line = provenance.caption(recorded.manifest[name], name, recorded.repository)
    return (f'<{element} class="recorded-{kind}" data-snippet="{html.escape(name)}">{warning}{body}'
            f'<{caption} class="provenance">{line}</{caption}></{element}>')


def checked_svg(text: str, *, output: str, source: str) -> ElementTree.Element:
    """Parse `text` (the file `output`, printed by `source`) and allow only plain drawing: inline SVG can run script,
    load other hosts or restyle the page."""
    def refused(reason: str, fix: str = "print only plain SVG drawing") -> UnsafeFigure:
        return UnsafeFigure(f"{output} {reason}. In {source}, {fix}, then run `make record`.")

    try:
        root = DefusedElementTree.fromstring(text, forbid_dtd=True)
    except DefusedXmlException:
        raise refused("declares a DOCTYPE, which can define entities") from None
    except ElementTree.ParseError as error:
        raise refused(f"is not well-formed SVG ({error})") from None
    if root.tag != f"{{{SVG_NAMESPACE}}}svg":
        raise refused(f'must be one <svg xmlns="{SVG_NAMESPACE}"> element, not <{root.tag}>')
    for element in root.iter():
        namespace, _, name = element.tag.rpartition("}")
        if namespace != f"{{{SVG_NAMESPACE}" or name not in ALLOWED_ELEMENTS:
            raise refused(f"contains <{element.tag}>, which a page does not inline. Allowed elements: "
                          f"{', '.join(sorted(ALLOWED_ELEMENTS))}")
        for attribute, value in element.attrib.items():
            if attribute not in ALLOWED_ATTRIBUTES:
                raise refused(f"gives <{name}> the attribute `{attribute}`, which a page does not inline "
                              "(no event handlers, links, or style)")
            if "url(" in value.replace(" ", "").lower() and not _LOCAL_REFERENCE.fullmatch(value):
                raise refused(f"gives <{name}> {attribute}={value!r}; url() may only be `url(#id)`, an element "
                              "of the figure itself")
    if root.find(f"{{{SVG_NAMESPACE}}}title") is None:
        raise refused("has no <title> as a child of <svg>", fix="give the figure a short title")
    return root


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

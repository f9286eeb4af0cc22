"""What a page may read (`Outputs`): the recorded outputs with their records and the values their templates read,
the pages themselves and how the engines convert them, and the snippet sections a page shows, read as
pymdownx.snippets includes them. Read once per state: the record step, the state and the Markdown extension all read
through it, and the build's checks (recorder/render/) read nothing else of the project."""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from pymdownx.snippets import SnippetPreprocessor

from recorder.project import manifest
from recorder.project.compat_table import View, view
from recorder.project.config import SNIPPETS_DIR, Project
from recorder.project.directives import Figure, Value, parse
from recorder.project.errors import PageError, RecorderError
from recorder.project.gpt2 import MODEL_ID, REVISION
from recorder.project.manifest import Record, output_path
from recorder.project.repository import Repository
from recorder.project.snippets import discover, pins
from recorder.project.values import VALUES_FILE, Template, templates

# The marker pattern pymdownx.snippets itself uses, so line numbers count what it includes.
_SECTION_MARKER = SnippetPreprocessor.RE_SNIPPET_SECTION


@dataclass(frozen=True)
class Outputs:
    """What a page may read: the recorded outputs and their records, the values, and where the repository is."""

    root: Path
    records: dict[str, Record]
    repository: Repository | None = None  # None: sources are linked to their copies inside the site
    values: Mapping[str, str] = field(default_factory=dict)  # "<part>/<name>" -> the text its template read
    unreadable: Mapping[str, str] = field(default_factory=dict)  # "<part>/<name>" -> why it could not be read
    builtins: Mapping[str, str] = field(default_factory=dict)  # values every page may quote
    parts: Mapping[str, str] = field(default_factory=dict)  # part -> its title, in the navigation's order
    descriptions: Mapping[str, str] = field(default_factory=dict)  # part -> its page's `description`
    templates: tuple[Template, ...] = ()  # every part's, as its values file declares them
    docs_dir: str = "docs"  # the docs folder, from the repository's top, where the notebooks are in the repository
    pages: Mapping[str, str] = field(default_factory=dict)  # each page of the docs folder, by file: its Markdown
    extensions: Mapping[str, dict[str, Any]] = field(default_factory=dict)  # as Project.markdown_extensions

    @cached_property
    def compat(self) -> View | str:
        """The version table as its page shows it, or why it cannot be read: worked out once, where a page asks."""
        return view(self.root, discover(self.root))

    def output(self, name: str) -> str:
        path = output_path(self.root, name)
        if name not in self.records or not path.exists():
            raise PageError(f"{SNIPPETS_DIR}/{name}.py has no recorded output. Run `make record`.")
        # A hand-edited output may not be UTF-8: the state's check names it, so any page may still read it.
        return path.read_text(encoding="utf-8", errors="replace")

    def value(self, name: str) -> str:
        if name in self.builtins:
            return self.builtins[name]
        if name in self.unreadable:
            raise PageError(self.unreadable[name])
        if name not in self.values:
            part = name.partition("/")[0]
            known = ", ".join(sorted(known for known in self.values if known.startswith(f"{part}/"))) or "none"
            raise PageError(
                f"unknown value `{name}` (known in {part}: {known}; built in: "
                f"{', '.join(self.builtins)}). Declare it in {SNIPPETS_DIR}/{part}/{VALUES_FILE}."
            )
        return self.values[name]


def in_prose_style(value: str) -> str:
    """A whole number as the prose writes every number, with thousands separators (50256 as 50,256), whatever
    the output printed; any other value as printed, a Python list of ids included."""
    return f"{int(value):,}" if re.fullmatch(r"[0-9]+", value) else value


def read_outputs(
    project: Project, repository: Repository | None = None, records: dict[str, Record] | None = None
) -> Outputs:
    """What the pages of `project` may read; a record run passes the records it has read already."""
    transformers = pins(project.root).get("transformers", "transformers==?").partition("==")[2]
    parts = project.parts()
    outputs = Outputs(
        project.root,
        manifest.read(project.root) if records is None else records,
        repository=repository,
        builtins={"pinned_model": MODEL_ID, "pinned_revision": REVISION, "pinned_transformers": transformers},
        parts={part.name: part.title for part in parts},
        descriptions={part.name: project.description(part) for part in parts},
        templates=tuple(template for part in parts for template in templates(project.root, part.name)),
        docs_dir=project.docs_path,
        pages={path.name: project.page(path.name)[0] for path in sorted(project.docs_dir.glob("*.md"))},
        extensions=project.markdown_extensions(),
    )
    values, unreadable = _values(outputs)
    return replace(outputs, values=values, unreadable=unreadable)


def _values(outputs: Outputs) -> tuple[dict[str, str], dict[str, str]]:
    """Each value the parts' templates read, in the prose's style, and why each one that cannot be read cannot."""
    values, unreadable, read_from = {}, {}, {}
    for template in outputs.templates:
        try:
            read = _read(outputs, template)
        except RecorderError as error:
            unreadable |= {f"{template.part}/{name}": str(error) for name in template.names}
            continue
        for name, value in read.items():
            key, text = f"{template.part}/{name}", in_prose_style(value)
            if values.setdefault(key, text) != text:
                unreadable[key] = (
                    f"value `{key}` reads {values[key]!r} in {read_from[key]} but {text!r} in "
                    f"{template.output_file}: every output whose template in {template.where} "
                    "names it must print the same. Fix the snippet that prints it wrong, or, if "
                    "they are not the same value, give each its own name."
                )
            read_from.setdefault(key, template.output_file)
    return values, unreadable


def _read(outputs: Outputs, template: Template) -> dict[str, str]:
    """The values `template` reads from its output; RecorderError, saying why, where it reads none."""
    if template.orphaned:
        raise RecorderError(template.orphaned)
    return template.read(outputs.output(f"{template.part}/{template.output}"))


def undescribed(outputs: Outputs) -> list[str]:
    """A problem for each part whose page has no `description`: the Series page would list it with none."""
    return [
        f"{outputs.docs_dir}/{part}.md has no `description` in its front matter, which the Series page, "
        f"llms.txt and search engines show for {title}. Add one at the top of the page: a line `---`, "
        "then `description: ONE SENTENCE ON WHAT THE PART SHOWS`, then `---`."
        for part, title in outputs.parts.items()
        if not outputs.descriptions[part]
    ]


def unused_values(outputs: Outputs) -> list[str]:
    """A declared value that no page quotes is a problem: the number it reads would go unchecked."""
    quoted = set()
    for markdown in outputs.pages.values():
        try:
            directives = parse(markdown)
        except PageError:
            return []  # the page's own check reports it, naming the fix; what it quotes is unknown
        for directive in directives:
            alt = directive.alt if isinstance(directive, Figure) else (directive,)
            quoted.update(part.name for part in alt if isinstance(part, Value))
    return [
        f"value `{name}` is declared in {SNIPPETS_DIR}/{name.partition('/')[0]}/{VALUES_FILE} but no page quotes "
        f"it. Quote it as `{{{{ value {name} }}}}`, or remove it from the template (write `{{}}` in its place)."
        for name in sorted({*outputs.values, *outputs.unreadable} - quoted)
    ]


def check_include(root: Path, file: str, section: str | None) -> list[tuple[str, str] | None]:
    """Per line of `file`, ("start" or "end", name) where pymdownx.snippets sees a section marker; a missing file or
    section is named here, with its fix, before pymdownx.snippets would."""
    path = root / SNIPPETS_DIR / file
    if not path.is_file():
        raise PageError(
            f"{SNIPPETS_DIR}/{file} does not exist. Fix the directive's file name, or remove the directive with its "
            "snippet."
        )
    markers = [
        (match["type"].lower(), match["name"])
        if "8<-" in line and (match := _SECTION_MARKER.match(line)) and not match["escape"]
        else None
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    for edge in ("start", "end"):
        if section and (edge, section) not in markers:
            raise PageError(
                f"{SNIPPETS_DIR}/{file} has no `# --8<-- [{edge}:{section}]` marker. Mark the lines the "
                f"page shows with [start:{section}] and [end:{section}], or fix the section name."
            )
    return markers


def highlighted_lines(root: Path, file: str, section: str | None, subsection: str) -> list[int]:
    """Where the lines of `subsection` fall, from 1, in the block showing `section`, which has no marker lines."""
    lines = _lit(check_include(root, file, subsection), section, subsection)
    if not (numbers := [number for number, highlighted in enumerate(lines, 1) if highlighted]):
        where = f"section `{section}`" if section else "the file"
        between = f", between [start:{section}] and [end:{section}]" if section else ""
        raise PageError(
            f"{SNIPPETS_DIR}/{file}: section `{subsection}` holds no line of {where}. Put "
            f"[start:{subsection}] and [end:{subsection}] around the lines to highlight{between}."
        )
    return numbers


def _lit(markers: list[tuple[str, str] | None], section: str | None, subsection: str) -> list[bool]:
    """Whether each line the block showing `section` shows lies in `subsection`, from the file's `markers`."""
    inside, lit = section is None, False
    lines: list[bool] = []
    for marker in markers:
        if marker is None:
            lines += [lit] if inside else []
        elif marker[1] == section:
            if marker[0] == "end":
                break
            inside = True
        elif marker[1] == subsection:
            lit = marker[0] == "start"
    return lines


def fence(root: Path, file: str, section: str | None, highlight: str | None = None) -> list[str]:
    """The fenced block showing `section` of `file`, with section `highlight` marked, for pymdownx.snippets to fill."""
    check_include(root, file, section)
    numbers = " ".join(map(str, highlighted_lines(root, file, section, highlight))) if highlight else ""
    include = f"{file}:{section}" if section else file
    options = f' hl_lines="{numbers}"' if numbers else ""
    return [f'```python title="{SNIPPETS_DIR}/{file}"{options}', f'--8<-- "{include}"', "```"]

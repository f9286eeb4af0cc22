"""`recorder.render.extension`, the Python-Markdown extension that renders the page directives, under any engine
that runs Python-Markdown extensions (MkDocs with Material, Zensical). It only reads: it records nothing, writes
nothing.

It knows neither the page's path nor its front matter: directives name their part (`PART/FILE.py`,
`PART/NAME`), values come from each part's `values.yml`, and links are written from the top of docs/, where
every page is (MkDocs' plugin and Zensical make them relative to the page). The state of the whole project,
what it may show and every way it lags behind the sources, is computed once per content of its files.

- a Preprocessor, before pymdownx.snippets (32), parses the page and turns each code and example directive
  into the fenced block a page would write by hand, whose `--8<--` include pymdownx.snippets fills in;
- a Treeprocessor, before inline processing, swaps each paragraph that is an example, figure or table
  directive for its HTML (only the tree shows that a directive has a paragraph of its own);
- an InlineProcessor replaces each `{{ value PART/NAME }}` with its escaped text;
- a last Treeprocessor checks that the conversion used every directive the page was parsed into.

All of it goes through Markdown's htmlStash, so an output holding `<script>`, Markdown or `--8<--` stays text.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from mkdocs.utils.meta import get_data

from recorder.pinned import OUTPUTS_DIR, SNIPPETS_DIR
from recorder.record import notebook, store
from recorder.record.project import CONFIG_FILE, NOTEBOOKS_DIR, Project
from recorder.render import compat_page, repository
from recorder.render.compat_page import COMPAT_DIR, CompatError
from recorder.render.directives import (Block, Compatibility, Directive, Example, Figure, Listing, Parts, Provenance,
                                        Value, parse)
from recorder.render.pages import (PageError, Recorded, check_include, fence, recorded, render_figure, render_output,
                                   visible)
from recorder.render.provenance import record_table
from recorder.render.values import VALUES_FILE


@dataclass(frozen=True)
class Site:
    """What every page may show, and every way the project lags behind its sources."""

    recorded: Recorded
    problems: list[store.Problem]


def inputs(root: Path) -> list[Path]:
    """Every file the rendered pages depend on, in a stable order."""
    docs = root / "docs"
    folders = [(root / SNIPPETS_DIR, ("*.py", f"*/{VALUES_FILE}", "*/*.py")), (root / OUTPUTS_DIR, ("**/*",)),
               (docs, ("*.md",)), (docs / NOTEBOOKS_DIR, ("*.ipynb",)), (root / COMPAT_DIR, ("*.json",))]
    found = [root / CONFIG_FILE, root / "requirements.txt"]
    for folder, patterns in folders:
        found += sorted(path for pattern in patterns for path in folder.glob(pattern) if path.is_file())
    return found


def fingerprint(root: Path) -> str:
    """The content of every file the rendered pages depend on, as one digest."""
    digest = hashlib.sha256()
    for path in inputs(root):
        digest.update(f"{path.relative_to(root)}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def state(root: Path, *, preview: bool = False, content: str = "") -> Site:
    """The project's state, computed once per content of its files (`content`, its fingerprint, when the caller
    has just taken it) and of the repository's variables."""
    found = repository.from_environment(os.environ)
    return _state(root, content or fingerprint(root), found, preview)


@lru_cache(maxsize=4)  # a preview computes a state per edit
def _state(root: Path, digest: str, found: repository.Repository | None, preview: bool) -> Site:
    project = Project.load(root)
    shown = recorded(project, found)
    problems = notebook.drift(project, shown) + unused_values(project, shown)
    stale = {problem.snippet: problem.message for problem in problems} if preview else {}
    return Site(replace(shown, stale=stale), problems)


def unused_values(project: Project, shown: Recorded) -> list[store.Problem]:
    """A declared value that no page quotes is a problem: the number it reads would go unchecked."""
    quoted = set()
    for path in sorted(project.docs_dir.glob("*.md")):
        try:
            directives = parse(get_data(path.read_text(encoding="utf-8"))[0])
        except PageError:
            return []  # its own conversion reports it, naming the fix; what it quotes is unknown
        for directive in directives:
            quoted.update(value.name for value in _values_of(directive))
    return [store.Problem("*", f"value `{name}` is declared in {SNIPPETS_DIR}/{name.partition('/')[0]}/"
                               f"{VALUES_FILE} but no page quotes it. Quote it as `{{{{ value {name} }}}}`, or "
                               "remove it from the template (write `{}` in its place).")
            for name in sorted({*shown.values, *shown.unreadable} - quoted)]


def _values_of(directive: Directive) -> list[Value]:
    if isinstance(directive, Value):
        return [directive]
    return [part for part in directive.alt if isinstance(part, Value)] if isinstance(directive, Figure) else []


def failure(site: Site) -> str | None:
    """The build's message when the project lags behind its sources, as `recorder check` lists it."""
    if not site.problems:
        return None
    return "recorded outputs are out of date:\n  " + "\n  ".join(problem.message for problem in site.problems)


@dataclass
class PreparedPage:
    """A page's directives, each with what it becomes; the conversion records what it used."""

    part: str | None = None  # the part of its first code, example or figure
    fences: list[tuple[Block, list[str]]] = field(default_factory=list)  # lines replacing the directive's
    outputs: list[tuple[Block, str]] = field(default_factory=list)  # HTML for its own paragraph
    values: dict[str, str] = field(default_factory=dict)  # directive as written -> escaped text
    quoted: Counter[str] = field(default_factory=Counter)  # how often the page writes each value
    shown: set[Block] = field(default_factory=set)  # outputs the conversion put in
    replaced: Counter[str] = field(default_factory=Counter)

    def check(self) -> None:
        """Fail unless the conversion used exactly the directives the page was parsed into."""
        for directive, _ in self.outputs:
            if directive not in self.shown:
                raise PageError(f"the output of `{directive.text}` was lost while rendering Markdown; "
                                "keep block directives outside of HTML blocks and alone in their paragraph.")
        for text, count in self.quoted.items():
            if self.replaced[text] != count:
                raise PageError(f"`{text}` stands {count} time(s) outside code, but rendering Markdown "
                                f"replaced it {self.replaced[text]} time(s). Keep values out of HTML "
                                "blocks, HTML tags and link addresses.")


def prepare(directives: list[Directive], shown: Recorded, nav: list[tuple[str, str]] | None = None) -> PreparedPage:
    """What each directive of a page becomes; raises PageError, naming the fix, on the first that cannot."""
    prepared = PreparedPage()
    for directive in directives:
        if isinstance(directive, Value):
            prepared.values[directive.text] = visible(shown.value(directive.name))
            prepared.quoted[directive.text] += 1
            continue
        if isinstance(directive, Listing | Figure) and prepared.part is None:
            prepared.part = directive.file.partition("/")[0]
        if isinstance(directive, Listing):
            lines = fence(shown.root, directive.file, directive.section, directive.highlight)
            # An example's directive stays, after its fence, as the paragraph its output takes.
            lines += ["", directive.text] if isinstance(directive, Example) else []
            prepared.fences.append((directive, [directive.indent + line if line else line for line in lines]))
            if isinstance(directive, Example):
                prepared.outputs.append((directive, render_output(shown, directive.name)))
        elif isinstance(directive, Provenance):
            prepared.outputs.append((directive, record_table(shown.manifest, shown.repository, shown.parts)))
        elif isinstance(directive, Compatibility):
            try:
                html = compat_page.render(shown.root, shown.repository, shown.parts, shown.manifest)
            except CompatError as error:
                raise PageError(str(error)) from None
            prepared.outputs.append((directive, html))
        elif isinstance(directive, Parts):
            prepared.fences.append((directive, [directive.indent + line for line in _part_list(shown)]))
        else:
            check_include(shown.root, directive.file, None)
            alt = "".join(part if isinstance(part, str) else shown.value(part.name) for part in directive.alt)
            prepared.outputs.append((directive, render_figure(shown, directive.name, alt)))
    return prepared


def with_fences(lines: list[str], prepared: PreparedPage) -> list[str]:
    """The page's lines with each directive that becomes Markdown (code, an example's code, the parts) replaced by it."""
    # From the last, so that the lines before each directive keep their numbers.
    for directive, fence_lines in reversed(prepared.fences):
        lines[directive.line:directive.line + 1] = fence_lines
    return lines


def _part_list(shown: Recorded) -> list[str]:
    """`{{ parts }}` as Markdown: a link to each part's page under its title, with its page's description."""
    lines = []
    for part, title in shown.parts.items():
        meta = get_data((shown.root / "docs" / f"{part}.md").read_text(encoding="utf-8"))[1]
        lines.append(f"- [{title}]({part}.md): {str(meta.get('description', '')).rstrip('.')}.")
    return lines


# A link to a snippet's copy inside the site, as the outputs' provenance writes it without a repository.
_COPY_LINK = re.compile(rf'<a href="{SNIPPETS_DIR}/[^"]+">(.*?)</a>')


class RecordedOutputs(Extension):
    """Options, under `markdown_extensions:` as `- recorder.render.extension:`."""

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "project": [".", "the project's folder, which holds mkdocs.yml (default: the working folder)"],
            "preview": [False, "show a stale output under a warning instead of failing the conversion"],
            "notebook_links": [True, "offer a part's companion notebook as a download under its page's title"],
            "source_copies": [False, "link a snippet to its copy inside the site, which the engine publishes (MkDocs' "
                                     "plugin does); otherwise, unless GITHUB_* name the repository, name it unlinked"],
            "content": ["", "the project's fingerprint for the whole build, taken when it started (MkDocs' plugin "
                            "does); empty: taken anew for each page"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:
        page = _Page(self.read, self.getConfig("notebook_links"), self.getConfig("source_copies"))
        # Priorities: before pymdownx.snippets (32); before inline processing (20); values after code
        # spans (190), links (160) and raw HTML (90), so a value in a link's address or a tag is left as
        # written, which `check` reports, and before emphasis (60), which could pair two names' underscores.
        md.preprocessors.register(_Fences(md, page), "recorded_fences", 33)
        md.treeprocessors.register(_Outputs(md, page), "recorded_outputs", 25)
        md.inlinePatterns.register(_Values(r"\{\{[^{}\n]*\}\}", md, page), "recorded_values", 75)
        md.treeprocessors.register(_Check(md, page), "recorded_check", 1)

    def read(self) -> Recorded:
        """What the page may show, once the project is found up to date (or while previewing); read when a page
        is converted, not when the extension is made: MkDocs makes one to check its options."""
        preview = self.getConfig("preview")
        site = state(Path(self.getConfig("project")).resolve(), preview=preview, content=self.getConfig("content"))
        if not preview and (message := failure(site)):
            raise PageError(message)
        return site.recorded


class _Page:
    """The page being converted, as each processor of one conversion sees it."""

    def __init__(self, read: Callable[[], Recorded], notebook_links: bool, source_copies: bool) -> None:
        self.read, self.notebook_links, self.source_copies = read, notebook_links, source_copies
        self.prepared = PreparedPage()

    def start(self, markdown: str) -> None:
        self.recorded = self.read()
        self.prepared = prepare(parse(markdown), self.recorded)


class _Fences(Preprocessor):
    def __init__(self, md: Markdown, page: _Page) -> None:
        super().__init__(md)
        self.page = page

    def run(self, lines: list[str]) -> list[str]:
        self.page.start("\n".join(lines))
        return with_fences(lines, self.page.prepared)


class _Outputs(Treeprocessor):
    """Each paragraph that is an output's directive becomes its stashed HTML; one in a raw HTML block or
    sharing its paragraph is found by no paragraph, which `check` reports. Under the page's title, a link
    to download its part's notebook, where the engine does not offer one."""

    def __init__(self, md: Markdown, page: _Page) -> None:
        super().__init__(md)
        self.page = page

    def run(self, root: Element) -> None:
        prepared = self.page.prepared
        waiting = list(prepared.outputs)
        for paragraph in root.iter("p"):
            text = (paragraph.text or "").strip()
            if found := next((entry for entry in waiting if entry[0].text == text), None):
                waiting.remove(found)
                html = found[1] if self.page.source_copies else _COPY_LINK.sub(r"<code>\1</code>", found[1])
                paragraph.text = self.md.htmlStash.store(html)
                prepared.shown.add(found[0])
        title = next(iter(root.iter("h1")), None)
        part = prepared.part
        if self.page.notebook_links and title is not None and part in self.page.recorded.parts:
            link = Element("p", {"class": "recorded-notebook"})
            anchor = SubElement(link, "a", {"href": f"{NOTEBOOKS_DIR}/{part}.ipynb", "download": ""})
            anchor.text = "Download this part's examples as a Jupyter notebook"
            root.insert(list(root).index(title) + 1, link)


class _Values(InlineProcessor):
    def __init__(self, pattern: str, md: Markdown, page: _Page) -> None:
        super().__init__(pattern, md)
        self.page = page

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str | None, int | None, int | None]:
        text = self.page.prepared.values.get(m.group(0))
        if text is None:
            return None, None, None  # not a value of this page: left as written
        self.page.prepared.replaced[m.group(0)] += 1
        return self.md.htmlStash.store(text), m.start(0), m.end(0)


class _Check(Treeprocessor):
    def __init__(self, md: Markdown, page: _Page) -> None:
        super().__init__(md)
        self.page = page

    def run(self, root: Element) -> None:
        self.page.prepared.check()


def makeExtension(**kwargs: Any) -> RecordedOutputs:  # noqa: N802 (Python-Markdown's name)
    return RecordedOutputs(**kwargs)


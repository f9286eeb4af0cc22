"""`recorder.render.extension`, the Python-Markdown extension that renders the page directives, under any engine
that runs Python-Markdown extensions (MkDocs with Material, Zensical). It only reads: it records nothing.

Its `state` option is the project's state as the configuration file computes it (`recorder.state.checked`, called
by a YAML tag), so a build whose state cannot be published stops before any page, and an engine's cache of
rendered pages holds as long as that state does. It knows neither the page's path nor its front matter: directives
name their part (`PART/FILE.py`, `PART/NAME`), values come from each part's `values.yml`, and links are written
from the top of the docs folder, where every page is (MkDocs' plugin and Zensical make them relative to the page).

- a Preprocessor, before pymdownx.snippets (32), parses the page and turns each code and example directive
  into the fenced block a page would write by hand, whose `--8<--` include pymdownx.snippets fills in;
- a Treeprocessor, before inline processing, swaps each paragraph that is an example, figure or table
  directive for its HTML (only the tree shows that a directive has a paragraph of its own), offers the part's
  notebook under the page's title, and hands the "Try it" box the digests of the tokenizer files;
- an InlineProcessor replaces each `{{ value PART/NAME }}` with its escaped text;
- a last Treeprocessor checks that the conversion used every directive the page was parsed into.

All of it goes through Markdown's htmlStash, so an output holding `<script>`, Markdown or `--8<--` stays text.
"""

from __future__ import annotations

import os
import re
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

from recorder import repository, state
from recorder.directives import parse
from recorder.errors import PageError
from recorder.pinned import FILE_SHA256
from recorder.record.project import NOTEBOOKS_DIR, Project
from recorder.recorded import Recorded, recorded
from recorder.render.page import PreparedPage, prepare, with_fences
from recorder.render.tokenizer_files import TRY_IT_FILES, integrity


@lru_cache(maxsize=4)  # a live reload makes a state per edit
def _recorded(config_file: Path, digest: str) -> Recorded:
    """What every page may show, once per state: the state's digest covers every file it is read from."""
    project = Project.load(config_file.parent, config_file)
    return recorded(project, repository.from_environment(os.environ))


class RecordedOutputs(Extension):
    """Options, under `markdown_extensions:` as `- recorder.render.extension:`."""

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "state": [
                "",
                "the project's state: `!!python/object/apply:recorder.state.checked []`, which the engine "
                "computes each time it reads its configuration; empty: worked out here",
            ],
            "project": [".", "the configuration file, or its folder, where `state` is empty"],
            "notebook_pages": [
                False,
                "the engine shows each notebook as a page (mkdocs-jupyter; MkDocs' plugin "
                "says so): link to it, rather than offer only the download",
            ],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:
        page = _Page(self.read, self.getConfig("notebook_pages"))
        # Priorities: before pymdownx.snippets (32); before inline processing (20); values after code
        # spans (190), links (160) and raw HTML (90), so a value in a link's address or a tag is left as
        # written, which `check` reports, and before emphasis (60), which could pair two names' underscores.
        md.preprocessors.register(_Fences(md, page), "recorded_fences", 33)
        md.treeprocessors.register(_Outputs(md, page), "recorded_outputs", 25)
        md.inlinePatterns.register(_Values(r"\{\{[^{}\n]*\}\}", md, page), "recorded_values", 75)
        md.treeprocessors.register(_TryIt(md), "recorded_try_it", 7)  # after attr_list (8) gave it its class
        md.treeprocessors.register(_Check(md, page), "recorded_check", 1)

    def read(self) -> Recorded:
        """What the page may show, in a publishable state; read when a page is converted, not when the extension is
        made: MkDocs makes one to check its options."""
        digest = self.getConfig("state")
        config_file = state.configuration_of(digest)
        if config_file is None:  # no engine computed it: work it out here, from the project's folder
            given = Path(self.getConfig("project")).resolve()
            config_file = given / "mkdocs.yml" if given.is_dir() else given
            digest = state.checked(str(config_file))
        return _recorded(config_file, digest)


class _Page:
    """The page being converted, as each processor of one conversion sees it."""

    def __init__(self, read: Callable[[], Recorded], notebook_pages: bool) -> None:
        self.read, self.notebook_pages = read, notebook_pages
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
    sharing its paragraph is found by no paragraph, which `check` reports. Under the page's title, its part's
    notebook."""

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
                paragraph.text = self.md.htmlStash.store(found[1])
                prepared.shown.add(found[0])
        title = next(iter(root.iter("h1")), None)
        if title is not None and prepared.part in self.page.recorded.parts:
            found = notebook_link(prepared.part, self.page.notebook_pages, self.page.recorded)
            root.insert(list(root).index(title) + 1, found)


def notebook_link(part: str, notebook_pages: bool, shown: Recorded) -> Element:
    """The part's notebook: its page where the engine shows one, else its file to download; and Colab, where
    the repository is known."""
    paragraph = Element("p", {"class": "recorded-notebook"})
    path = f"{NOTEBOOKS_DIR}/{part}.ipynb"
    if notebook_pages:
        anchor = SubElement(paragraph, "a", {"href": path})
        anchor.text = "Read this part's examples as a Jupyter notebook"
    else:
        anchor = SubElement(paragraph, "a", {"href": path, "download": ""})
        anchor.text = "Download this part's examples as a Jupyter notebook"
        anchor.tail = " (this build shows notebooks as files, not as pages)"
    if shown.repository and (colab := shown.repository.colab(f"{shown.docs_dir}/{path}")):
        separator = SubElement(paragraph, "span")
        separator.text = " · "
        link = SubElement(paragraph, "a", {"href": colab})
        link.text = "Open it in Colab"
    return paragraph


class _TryIt(Treeprocessor):
    """The "Try it" box's placeholder carries the digest of each file its tokenizer reads, which the browser checks
    each file against as it fetches it."""

    def run(self, root: Element) -> None:
        for paragraph in root.iter("p"):
            if "try-tokenizer" in (paragraph.get("class") or "").split():
                for name in TRY_IT_FILES:
                    paragraph.set(f"data-{name.partition('.')[0]}-integrity", integrity(FILE_SHA256[name]))


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


def makeExtension(**kwargs: Any) -> RecordedOutputs:
    return RecordedOutputs(**kwargs)


# What both engines add to the extensions a configuration lists.
_ENGINE_EXTENSIONS = ("toc", "tables", "fenced_code")
EXTENSION = __name__


def pages_problems(project: Project, shown: Recorded) -> list[str]:
    """Each page that cannot be rendered, named with the error's fix. Each is converted as the engines convert it,
    so that a directive the conversion would lose (a value in an HTML tag, say) fails here, before any engine."""
    found = []
    for path in sorted(project.docs_dir.glob("*.md")):
        try:
            _converter(project, shown).convert(project.page(path.name)[0])
        except PageError as error:
            found.append(f"{project.docs_path}/{path.name}: {error}")
    return found


def _converter(project: Project, shown: Recorded) -> Markdown:
    """Python-Markdown with the extensions the configuration lists, and their options, as an engine makes it; this
    extension reads `shown`, the state being worked out."""

    class Reading(RecordedOutputs):
        def read(self) -> Recorded:
            return shown

    extensions: list[str | Extension] = list(_ENGINE_EXTENSIONS)
    configs: dict[str, dict[str, Any]] = {}
    for entry in project.config.get("markdown_extensions") or []:
        name, options = (entry, None) if isinstance(entry, str) else next(iter(entry.items()))
        if name == EXTENSION:
            extensions.append(Reading())
        elif name not in extensions:
            extensions.append(name)
            configs[name] = options or {}
    if "pymdownx.snippets" in configs:
        configs["pymdownx.snippets"] = project.snippet_settings()
    return Markdown(extensions=extensions, extension_configs=configs)

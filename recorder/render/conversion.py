"""How a page's directives enter its conversion, and each page converted as the engines convert it.

`Directives`, the Python-Markdown extension both engines run (through `recorder.engines.extension`, which reads the
state), adds:

- a Preprocessor, before pymdownx.snippets (32), that parses the page and turns each code and example directive
  into the fenced block a page would write by hand, whose `--8<--` include pymdownx.snippets fills in;
- a Treeprocessor, before inline processing, that swaps each paragraph that is an example, figure or table
  directive for its HTML (only the tree shows that a directive has a paragraph of its own), offers the part's
  notebook under the page's title, and hands the "Try it" box the digests of the tokenizer files;
- an InlineProcessor that replaces each `{{ value PART/NAME }}` with its escaped text;
- a last Treeprocessor that checks that the conversion used every directive the page was parsed into.

All of it goes through Markdown's htmlStash, so an output holding `<script>`, Markdown or `--8<--` stays text.

`pages_problems` converts every page that way for the state's check (`recorder/check/state.py`): what only converting a
page shows fails there, before any engine reads a page, with the same message wherever it runs. That is a directive
the conversion would lose (a value in an HTML tag, say) and a link to no page, file or heading of the docs folder,
which MkDocs' validation and Zensical's would refuse.
"""

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import SplitResult, unquote, urlsplit
from xml.etree.ElementTree import Element, SubElement

from markdown import Markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.util import Processor
from pymdownx.snippets import SnippetMissingError

from recorder.project.config import NOTEBOOKS_DIR, SNIPPETS_DIR
from recorder.project.directives import parse
from recorder.project.errors import PageError
from recorder.project.gpt2 import FILE_SHA256
from recorder.project.outputs import Outputs
from recorder.render.page import PreparedPage, prepare, with_fences
from recorder.render.tokenizer_files import TRY_IT_FILES, integrity

EXTENSION = "recorder.engines.extension"  # as `markdown_extensions:` names it

# What both engines add to the extensions a configuration lists.
_ENGINE_EXTENSIONS = ("toc", "tables", "fenced_code")
_ANCHOR = re.compile(r"""\b(?:id|name)=["']([^"']+)["']""")


class Directives(Extension):
    """The processors that put a page's directives into its conversion, from what `read` returns; `prepared` and
    `converted` say what becomes of the directives that cannot render (a build stops at the first)."""

    def extendMarkdown(self, md: Markdown) -> None:
        page = _Page(md, self.read, self.prepared, bool(self.getConfig("notebook_pages", False)))
        # Priorities: before pymdownx.snippets (32); before inline processing (20); values after code
        # spans (190), links (160) and raw HTML (90), so a value in a link's address or a tag is left as
        # written, which `check` reports, and before emphasis (60), which could pair two names' underscores.
        md.preprocessors.register(Pass(md, page.fences), "recorded_fences", 33)
        md.treeprocessors.register(Pass(md, page.place_outputs), "recorded_outputs", 25)
        md.inlinePatterns.register(_Values(r"\{\{[^{}\n]*\}\}", md, page), "recorded_values", 75)
        md.treeprocessors.register(Pass(md, _try_it), "recorded_try_it", 7)  # after attr_list (8) gave it its class
        md.treeprocessors.register(Pass(md, lambda root: self.converted(page.prepared)), "recorded_check", 1)

    def read(self) -> Outputs:
        raise NotImplementedError("a subclass says where what the page may show comes from")

    def prepared(self, prepared: PreparedPage) -> None:
        """Called once the page's directives are prepared, before its conversion: a build stops at the first that
        cannot render."""
        if prepared.errors:
            raise prepared.errors[0][1]

    def converted(self, prepared: PreparedPage) -> None:
        """Called once the page is converted: a build stops at a directive the conversion lost."""
        if lost := prepared.lost():
            raise lost[0]


class Pass(Processor):
    """A pass of one conversion, as a preprocessor or a tree processor: `run`, of the page's lines or its tree."""

    def __init__(self, md: Markdown, run: Callable[[Any], Any]) -> None:
        super().__init__(md)
        self.run = run


class _Page:
    """The page being converted, as each processor of one conversion sees it."""

    def __init__(
        self,
        md: Markdown,
        read: Callable[[], Outputs],
        prepared: Callable[[PreparedPage], None],
        notebook_pages: bool,
    ) -> None:
        self.md, self.read, self.on_prepared, self.notebook_pages = md, read, prepared, notebook_pages
        self.prepared = PreparedPage()

    def fences(self, lines: list[str]) -> list[str]:
        """The page's directives prepared, and each that becomes Markdown in place of its line."""
        self.recorded = self.read()
        self.prepared = prepare(parse("\n".join(lines)), self.recorded)
        self.on_prepared(self.prepared)
        return with_fences(lines, self.prepared)

    def place_outputs(self, root: Element) -> None:
        """Each paragraph that is an output's directive becomes its stashed HTML; one in a raw HTML block or
        sharing its paragraph is found by no paragraph, which `check` reports. Under the page's title, its part's
        notebook."""
        prepared = self.prepared
        waiting = list(prepared.outputs)
        for paragraph in root.iter("p"):
            text = (paragraph.text or "").strip()
            if output := next((entry for entry in waiting if entry[0].text == text), None):
                waiting.remove(output)
                paragraph.text = self.md.htmlStash.store(output[1])
                prepared.placed.add(output[0])
        title = next(iter(root.iter("h1")), None)
        if title is not None and prepared.part in self.recorded.parts:
            root.insert(list(root).index(title) + 1, notebook_link(prepared.part, self.notebook_pages, self.recorded))


def notebook_link(part: str, notebook_pages: bool, outputs: Outputs) -> Element:
    """The part's notebook: its page where the engine shows one, else its file to download; and Colab, where
    the repository is known."""
    paragraph, path = Element("p", {"class": "recorded-notebook"}), f"{NOTEBOOKS_DIR}/{part}.ipynb"
    anchor = SubElement(paragraph, "a", {"href": path} if notebook_pages else {"href": path, "download": ""})
    anchor.text = f"{'Read' if notebook_pages else 'Download'} this part's examples as a Jupyter notebook"
    if not notebook_pages:
        anchor.tail = " (this build shows notebooks as files, not as pages)"
    if outputs.repository and (colab := outputs.repository.colab(f"{outputs.docs_dir}/{path}")):
        separator = SubElement(paragraph, "span")
        separator.text = " · "
        link = SubElement(paragraph, "a", {"href": colab})
        link.text = "Open it in Colab"
    return paragraph


def _try_it(root: Element) -> None:
    """The "Try it" box's placeholder carries the digest of each file its tokenizer reads, which the browser checks
    each file against as it fetches it."""
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


@dataclass
class Converted:
    """A page's links and anchors, as the tree holds them once converted: HTML a page writes or a directive puts in
    is checked by neither engine, and only its anchors count."""

    links: list[str] = field(default_factory=list)
    anchors: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)  # each directive that cannot render, with its fix

    def read(self, md: Markdown, root: Element) -> None:
        """The links and anchors of the tree `root` and of the HTML `md` stashed; last of the tree's processors,
        after the table of contents has given each heading its anchor."""
        for element in root.iter():
            if element.tag == "a" and element.get("href") is not None:
                self.links.append(element.get("href", ""))
            self.anchors.update(value for name in ("id", "name") if (value := element.get(name)))
        for block in md.htmlStash.rawHtmlBlocks:
            self.anchors.update(_ANCHOR.findall(str(block)))


def pages_problems(outputs: Outputs, copies: set[str], known: set[str]) -> list[str]:
    """Each directive of each page that cannot be rendered, and each link to nothing, named with the fix; not one
    whose message is `known` already (a value a broken template reads), nor the same twice. `copies` are the files
    the state writes into the docs folder (from it), which a page may link to before they are written."""
    problems, pages = [], {}
    for name, markdown in outputs.pages.items():
        try:
            pages[name] = convert(outputs, markdown)
        except PageError as error:  # the page's directives cannot even be read
            problems.append(f"{outputs.docs_dir}/{name}: {error}")
        except SnippetMissingError as error:  # an include the page writes by hand
            problems.append(
                f"{outputs.docs_dir}/{name}: {error}. Include a file of {SNIPPETS_DIR}/ by its path from there "
                "(`PART/FILE.py`), or show a snippet with `{{ code PART/FILE.py }}`."
            )
    docs = outputs.root / outputs.docs_dir

    def exists(path: str) -> bool:  # a page, a file of the docs folder, or a copy the state writes there
        return path in pages or path in copies or (docs / path).is_file()

    for name, converted in pages.items():
        errors = [error for error in dict.fromkeys(converted.errors) if error not in known]
        problems += [
            f"{outputs.docs_dir}/{name}: {problem}"
            for problem in errors
            + [_link_problem(outputs.docs_dir, name, href, pages, exists) for href in converted.links]
            if problem
        ]
    return problems


def convert(outputs: Outputs, markdown: str) -> Converted:
    """`markdown` converted with the extensions the configuration lists, and their options, as an engine makes them;
    the recorder extension reads `outputs`, the state being worked out, and keeps each directive it cannot render in
    `errors`. Raises PageError where the page's directives cannot be read."""
    page = Converted()

    class Reading(Directives):
        def read(self) -> Outputs:
            return outputs

        def prepared(self, prepared: PreparedPage) -> None:
            """Every directive that cannot render is named, not only the first. Each stands aside in the conversion,
            as in a preview, so that its own text is not read as the page's: the values a figure's text quotes, say,
            would count as values out of place."""
            prepared.noted(lambda message: "", lambda text, message: "")

        def converted(self, prepared: PreparedPage) -> None:
            page.errors += [str(error) for _, error in prepared.errors] + list(map(str, prepared.lost()))

    listed = [name for name in outputs.extensions if name not in _ENGINE_EXTENSIONS]
    md = Markdown(
        extensions=[*_ENGINE_EXTENSIONS, *(Reading() if name == EXTENSION else name for name in listed)],
        extension_configs={name: outputs.extensions[name] for name in listed},
    )
    md.treeprocessors.register(Pass(md, partial(page.read, md)), "recorded_links", 0)
    md.convert(markdown)
    return page


def _link_problem(
    docs: str, page: str, href: str, pages: dict[str, Converted], exists: Callable[[str], bool]
) -> str | None:
    """What is wrong with a link of `page` that stays inside the site, as MkDocs' validation finds it: it must name a
    page or a file of the docs folder `docs` (from the project's folder), and a heading or anchor of a page."""
    address = urlsplit(href)
    if _elsewhere(address):
        return None
    path = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(address.path))) if address.path else page
    if address.path.endswith("/") or not posixpath.splitext(path)[1]:
        return f"the link `{href}` names a folder, which the build cannot check. Link to its page's file."
    if not exists(path):
        return (
            f"the link `{href}` leads to no page or file of {docs}/. Link to a page by its file "
            "(`page.md#heading`) or to a file of the folder."
        )
    if address.fragment and path in pages and unquote(address.fragment) not in pages[path].anchors:
        return (
            f"the link `{href}`: {docs}/{path} has no heading or anchor `#{address.fragment}`. Link to "
            "one of its headings, by the anchor its permalink shows."
        )
    return None


def _elsewhere(address: SplitResult) -> bool:
    """Another site's, or from the site's root: neither engine checks it."""
    return bool(address.scheme or address.netloc or address.path.startswith("/"))

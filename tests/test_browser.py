"""The built site in headless Chromium: what a reader sees and uses, offline and accessible."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import regex
from mkdocs.utils.meta import get_data
from playwright.sync_api import (
    Browser,
    BrowserContext,
    CDPSession,
    ConsoleMessage,
    Locator,
    Page,
    Request,
    expect,
    sync_playwright,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from recorder.project import compat_table, manifest
from recorder.project.config import Part, Project
from recorder.project.directives import Compatibility, Directive, Example, Listing, Provenance, parse
from recorder.project.provenance import SHORT_HASH
from recorder.project.snippets import discover
from support import ROOT, gpt2_tokenizer
from test_llms import shown_code
from tools.chromium import NoChromium, chromium
from tools.local_site import served
from tools.tokenizer_classes import SCRIPT, parsed, written_block

pytestmark = pytest.mark.browser

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# The rules of axe-core's category "color" that run by default (color-contrast-enhanced is AAA, off).
COLOUR_RULES = {"type": "rule", "values": ["color-contrast", "link-in-text-block"]}
ARTIFACTS = ROOT / "test-artifacts"
# The search index each engine writes, which its search fetches.
SEARCH_INDEX = {"mkdocs": "/search/search_index.json", "zensical": "/search.json"}
DOCS = ROOT / "docs"
PHONE = {"width": 390, "height": 844}
MANIFEST = manifest.read(ROOT)
PARTS = Project.load(ROOT).parts()


def built_path(source: str) -> str:
    """Where MkDocs publishes `docs/source`, from the site's root: "" for the home page, else a folder."""
    stem = source.rsplit(".", 1)[0]
    return "" if stem == "index" else f"{stem.removesuffix('/index')}/"


# Every page of the site, by its source in docs/; test_the_pages_visited_... checks that the build wrote no other.
PAGES = sorted(
    built_path(path.relative_to(DOCS).as_posix())
    for path in DOCS.rglob("*")
    if path.suffix in (".md", ".ipynb") and not any(name.startswith(".") for name in path.parts)
)


def page_body(source: str) -> str:
    """The Markdown of `docs/source` without its front matter, as MkDocs converts it."""
    return get_data((DOCS / source).read_text(encoding="utf-8"))[0]


def directives(source: str) -> list[Directive]:
    return parse(page_body(source))


def pages_showing(kind: type) -> list[str]:
    """The built pages that hold a directive of `kind` (the provenance table, say), found by their sources."""
    return [
        built_path(path.name)
        for path in sorted(DOCS.glob("*.md"))
        if any(isinstance(directive, kind) for directive in directives(path.name))
    ]


def tokenizer_boxes() -> list[tuple[str, dict[str, str]]]:
    """Each page's "Try it" box, as (the page's built path, its placeholder's attributes): `data-cases` names the
    output that holds the pinned tokenizer's ids for the texts the box must tokenize alike, one JSON object a line;
    `data-merges`, the output that lists the merges building a word, which the box must show for that word."""
    return [
        (built_path(source), dict(re.findall(r'([-\w]+)="([^"]*)"', attributes)))
        for source in sorted(path.name for path in DOCS.glob("*.md"))
        for attributes in re.findall(r"^\{: \.try-tokenizer (.*)\}$", page_body(source), re.M)
    ]


BOXES = tokenizer_boxes()


def notebook_path(part: Part) -> str:
    return built_path(part.notebook)


def part_id(part: Part) -> str:
    return part.name


by_part = pytest.mark.parametrize("part", PARTS, ids=part_id)


@pytest.fixture(scope="module")
def base_url(built_site: Path) -> Iterator[str]:
    with served(built_site) as url:
        yield url


@pytest.fixture(scope="module")
def zensical_base_url(zensical_site: Path) -> Iterator[str]:
    with served(zensical_site) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    try:
        executable = chromium()
    except NoChromium as error:
        pytest.fail(str(error))
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@dataclass
class Visit:
    """A browser tab on the local site that keeps every request URL and every error it saw."""

    page: Page
    devtools: CDPSession  # the tab's
    base_url: str
    search_index: str  # SEARCH_INDEX's, of the engine that built the site
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def open(self, path: str, *, settled: bool = False) -> Page:
        """Go to `path`, once loaded; `settled` also waits out every request the page's scripts make after
        the load. The last is the search index, which Material's search worker fetches: on a busy machine,
        later than the half second of quiet that Playwright's "networkidle" waits for."""
        if not settled:
            return self._go(path, "load")
        with self.page.expect_request_finished(lambda request: request.url.endswith(self.search_index)):
            return self._go(path, "networkidle")

    def _go(self, path: str, until: str) -> Page:
        response = self.page.goto(self.base_url + path, wait_until=until)
        assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"
        return self.page

    def remote_requests(self) -> list[str]:
        return [url for url in self.requests if not url.startswith((self.base_url, "data:", "blob:"))]

    def forget_the_site(self) -> None:
        """Leave the site and clear what it stored, as for a reader who has never been there: the theme keeps
        the palette it first chose, say. Cleared from outside, after the site's scripts stopped."""
        self.page.goto("about:blank")
        self.devtools.send(
            "Storage.clearDataForOrigin",
            {"origin": self.base_url.rstrip("/"), "storageTypes": "local_storage,session_storage"},
        )


VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def tab(browser: Browser) -> Iterator[tuple[Page, CDPSession]]:
    """One tab for the module's tests: opening a tab costs Chromium more than loading a page of the site.
    With its cache off, as a new tab's is empty, each test sees every request its pages make."""
    context: BrowserContext = browser.new_context(
        color_scheme="light", viewport=VIEWPORT, permissions=["clipboard-read", "clipboard-write"]
    )
    page = context.new_page()
    devtools = context.new_cdp_session(page)
    devtools.send("Network.setCacheDisabled", {"cacheDisabled": True})
    yield page, devtools
    context.close()


@contextmanager
def visiting(tab: tuple[Page, CDPSession], base_url: str, engine: str) -> Iterator[Visit]:
    """The tab as a new one: light, its size, no listener of an earlier test, nothing the site stored."""
    page, devtools = tab
    page.set_viewport_size(VIEWPORT)
    page.emulate_media(color_scheme="light")
    visit = Visit(page, devtools, base_url, SEARCH_INDEX[engine])
    listeners = {
        "request": lambda request: visit.requests.append(request.url),
        "console": lambda message: _console_error(visit, message),
        "pageerror": lambda error: visit.errors.append(f"uncaught: {error}"),
        "requestfailed": lambda request: _failed(visit, request),
    }
    for event, listener in listeners.items():
        page.on(event, listener)
    try:
        yield visit
    finally:
        for event, listener in listeners.items():
            page.remove_listener(event, listener)
        visit.forget_the_site()


@pytest.fixture
def visit(tab: tuple[Page, CDPSession], base_url: str) -> Iterator[Visit]:
    """A visit of the site MkDocs built."""
    with visiting(tab, base_url, "mkdocs") as visit:
        yield visit


@pytest.fixture
def zensical_visit(tab: tuple[Page, CDPSession], zensical_base_url: str) -> Iterator[Visit]:
    """A visit of the site Zensical built."""
    with visiting(tab, zensical_base_url, "zensical") as visit:
        yield visit


def _console_error(tab: Visit, message: ConsoleMessage) -> None:
    if message.type == "error":
        tab.errors.append(f"console: {message.text} ({message.location.get('url')})")


def _failed(tab: Visit, request: Request) -> None:
    tab.errors.append(f"request failed: {request.url} ({request.failure})")


def markdown_headings(markdown: str) -> list[str]:
    """Headings of a page's Markdown, outside fences, as plain text."""
    unfenced = re.sub(r"(?ms)^```.*?^```[ \t]*$", "", markdown)
    return [re.sub(r"[`*_]", "", text).strip() for text in re.findall(r"^#{1,6} (.+)$", unfenced, re.M)]


@by_part
def test_a_part_s_page_renders_its_headings_code_and_outputs(visit: Visit, part: Part) -> None:
    page = visit.open(built_path(part.page))
    draw_whole_page(page)
    shown = [
        text.replace("¶", "").strip()
        for text in page.locator("article").locator("h1, h2, h3, h4, h5, h6").all_inner_texts()
    ]
    assert shown == markdown_headings(page_body(part.page))
    listings = [directive for directive in directives(part.page) if isinstance(directive, Listing)]
    code = page.locator("article .language-python.highlight")
    assert code.count() == len(listings)
    assert all(visible(code)) and all(text.strip() for text in code.locator("code").all_inner_texts())
    outputs = page.locator("article .recorded-output")
    examples = [listing.name for listing in listings if isinstance(listing, Example)]
    assert outputs.evaluate_all("outputs => outputs.map(output => output.dataset.snippet)") == examples
    for text, name in zip(outputs.locator("pre").all_inner_texts(), examples, strict=True):
        recorded = (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8")
        assert text.strip() == recorded.strip(), name
    lines = outputs.locator(".provenance")
    assert lines.count() == len(examples) and all(visible(lines)), "each output says where it came from"
    screenshot_whole_page(page, ARTIFACTS / f"{part.name}.png")


# What a reader who came to learn GPT-2 should not meet before the subject: the machinery behind the outputs, which
# the line under each output and the Provenance page explain.
MACHINERY_WORDS = re.compile(r"record step|hash|manifest|stand-in|page build|\borigins?\b", re.IGNORECASE)
FIRST_SCREEN = {"width": 1280, "height": 800}


@pytest.mark.parametrize("path", ["", *(built_path(part.page) for part in PARTS)])
def test_the_first_screen_of_the_series_and_each_part_is_about_gpt2(visit: Visit, path: str) -> None:
    """At 1280 by 800 pixels, the text of the article above the fold names GPT-2 and none of the machinery's words."""
    visit.page.set_viewport_size(FIRST_SCREEN)
    page = visit.open(path)
    text = page.locator("article").evaluate("""article => {
        const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
        const seen = [];
        while (walker.nextNode()) {
            const range = document.createRange();
            range.selectNodeContents(walker.currentNode);
            const box = range.getBoundingClientRect();
            if (box.height > 0 && box.top < innerHeight) seen.push(walker.currentNode.textContent);
        }
        return seen.join(" ");
    }""")
    assert "GPT-2" in text, text
    assert not MACHINERY_WORDS.search(text), f"{path or 'Series'}: {MACHINERY_WORDS.findall(text)} in {text!r}"


def visible(elements: Locator) -> list[bool]:
    """Whether each element takes room on the page and is not hidden, as Playwright's is_visible, at once."""
    return elements.evaluate_all("""elements => elements.map(element => {
        const box = element.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== "hidden";
    })""")


def next_frames(page: Page) -> None:
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def draw_whole_page(page: Page) -> None:
    """Have every block drawn, as it is once the reader reaches it: blocks far below the window wait
    to be drawn (docs/stylesheets/performance.css), and code blocks get their buttons, and a code block
    wider than the page its keyboard focus, only in view (`content.lazy`). So the window grows to the page."""
    for _ in range(2):  # the page's height changes as its blocks are drawn at their real size
        page.set_viewport_size(
            {"width": page.viewport_size["width"], "height": page.evaluate("document.documentElement.scrollHeight")}
        )
        next_frames(page)


def screenshot_whole_page(page: Page, path: Path) -> None:
    draw_whole_page(page)
    path.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(path), full_page=True)


def site_pages(site: Path) -> list[str]:
    """Every page the build wrote, by its path from the site's root."""
    return sorted(built_path(path.relative_to(site).as_posix()) for path in site.rglob("index.html"))


def test_the_pages_visited_are_the_pages_of_the_built_site(built_site: Path) -> None:
    assert site_pages(built_site) == PAGES


@pytest.mark.parametrize("path", pages_showing(Compatibility))
def test_compatibility_table_shows_each_difference_on_a_click(visit: Visit, path: str) -> None:
    """A row per snippet, grouped by part; each verdict other than "same" links to its lines or its error."""
    table = compat_table.read(ROOT)
    snippets = discover(ROOT)
    checked = set(snippets) - set(compat_table.unchecked(ROOT, table, snippets))
    differing = [
        cell for name in checked for cell in table["snippets"][name]["results"].values() if cell["verdict"] != "same"
    ]
    page = visit.open(path)
    results = page.locator("article .compatibility table")
    assert results.locator("tbody tr:not(.compat-part)").count() == len(snippets)  # under a header per part
    assert results.locator("tbody tr.compat-part").count() == len({snippet.part for snippet in snippets.values()})
    links = results.locator("td a")
    assert links.count() == len(differing)
    for link in links.all():
        link.click()
        expect(page.locator(f"[id='{link.get_attribute('href').removeprefix('#')}'] pre")).to_be_in_viewport()


@by_part
def test_a_part_s_page_opens_its_notebook_which_renders_its_cells_and_offers_the_file(visit: Visit, part: Part) -> None:
    notebook = json.loads((DOCS / part.notebook).read_text(encoding="utf-8"))
    code_cells = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    page = visit.open(built_path(part.page))
    page.get_by_role("link", name="Read this part's examples as a Jupyter notebook").click()
    page.wait_for_load_state("networkidle")
    assert page.url == visit.base_url + notebook_path(part)
    draw_whole_page(page)
    inputs = page.locator(".jp-CodeCell .jp-InputArea-editor")  # two nested .jp-CodeCell per cell
    shown = [text.strip() for text in inputs.all_inner_texts()]
    assert shown == ["".join(cell["source"]).strip() for cell in code_cells]
    download = page.get_by_role("link", name=re.compile("Download the notebook"))
    href = download.get_attribute("href")
    assert href and href.endswith(".ipynb")
    response = page.request.get(visit.base_url + notebook_path(part) + href)
    assert response.ok and response.json() == notebook


@by_part
def test_copy_button_copies_the_code(visit: Visit, part: Part) -> None:
    first = next(directive for directive in directives(part.page) if isinstance(directive, Listing))
    page = visit.open(built_path(part.page))
    block = page.locator("article .language-python.highlight").first
    block.hover()
    block.get_by_title("Copy to clipboard").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == block.locator("code").inner_text().strip()
    assert copied.strip() == shown_code(first.file, first.section), "the snippet's section, as the page shows it"


# The notebook's copy button writes the clipboard asynchronously, then fires "clipboard-copy", on which the
# page shows the cell's notice for a second: read both then, not at once after the click (the clipboard,
# shared by the browser's tabs, may still hold an earlier test's copy). A copy that never comes, or a read
# the browser refuses, rejects the promise: page.evaluate has no timeout of its own, and would wait forever.
AWAIT_COPY = """() => { window.copied = new Promise((done, failed) => {
    setTimeout(() => failed(new Error("no clipboard-copy event within 10 s of the click")), 10000);
    document.addEventListener("clipboard-copy", event => {
        const notice = !event.target.querySelector(".notice").hidden;
        navigator.clipboard.readText().then(text => done({notice, text}), failed);
    }, {once: true});
}); }"""


@by_part
def test_notebook_copy_button_copies_the_cell_and_says_so(visit: Visit, part: Part) -> None:
    notebook = json.loads((DOCS / part.notebook).read_text(encoding="utf-8"))
    last = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"][-1]
    page = visit.open(notebook_path(part))
    draw_whole_page(page)  # no cell drawn late, at its real size, moving the button under the click
    cell = page.locator(".jp-Cell", has=page.locator("clipboard-copy")).last
    page.evaluate(AWAIT_COPY)
    cell.locator("clipboard-copy").click()
    copied = page.evaluate("window.copied")
    assert copied["text"].strip() == "".join(last["source"]).strip()
    assert copied["text"].strip() == cell.locator(".highlight-ipynb pre").inner_text().strip()
    assert copied["notice"], "the cell says it was copied"


def test_palette_toggle_switches_to_dark_and_back(visit: Visit) -> None:
    page = visit.open("")
    scheme = "body[data-md-color-scheme='{}']"
    assert page.locator(scheme.format("default")).count() == 1
    page.get_by_title("Switch to dark mode").click()
    page.wait_for_selector(scheme.format("slate"))
    page.get_by_title("Switch to light mode").click()
    page.wait_for_selector(scheme.format("default"))


AXE_RUN = "async ([context, options]) => (await axe.run(context, options)).violations"

# The paths the search's results link to: Material's in its result list; Zensical's in its dialog's shadow root.
RESULTS = """() => [...document.querySelectorAll(".md-search-result__item > a"), ...[...document.querySelectorAll("*")]
    .filter(element => element.shadowRoot).flatMap(host => [...host.shadowRoot.querySelectorAll("a")])]
    .map(link => new URL(link.href).pathname)"""


def search_each_part(page: Page, search: Locator) -> None:
    """Type each part's title into `search`; fail unless the results link to the part's page."""
    for part in PARTS:
        title = markdown_headings(page_body(part.page))[0]
        search.click()
        search.fill("")
        page.keyboard.type(title)
        # Results show as the reader types: wait until they hold the part's page, or fail naming them.
        path = f"/{built_path(part.page)}"
        try:
            page.wait_for_function(f"path => ({RESULTS})().includes(path)", arg=path, timeout=10_000)
        except PlaywrightTimeoutError:
            pytest.fail(f"searching {title!r} finds {page.evaluate(RESULTS)}, not {part.page}")


def test_search_finds_each_part_offline(visit: Visit) -> None:
    """A part's title, typed in the search box, finds its page: the index is the site's own."""
    page = visit.open("")
    search_each_part(page, page.get_by_role("textbox", name="Search"))
    assert visit.remote_requests() == []


@by_part
def test_a_provenance_line_opens_onto_its_whole_record_on_a_phone(visit: Visit, part: Part) -> None:
    visit.page.set_viewport_size(PHONE)
    page = visit.open(built_path(part.page))
    draw_whole_page(page)  # no block drawn late, at its real size, under the click
    blocks = page.locator("article [data-snippet]").all()
    assert blocks, "the page shows recorded outputs"
    for block in blocks:
        name = block.get_attribute("data-snippet")
        digest = MANIFEST[name].output_sha256
        record = block.locator("details.provenance-record dl")
        assert not record.is_visible(), f"{name}: the record starts closed"
        block.locator("summary").click()
        expect(record).to_be_visible()  # once the browser has laid it out, on a busy machine too
        assert digest in record.inner_text(), name
    assert visit.page.url.endswith(built_path(part.page)), "opening a record follows no link"
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], "an open record never widens the page"


@pytest.mark.parametrize("path", pages_showing(Provenance))
def test_the_provenance_table_scrolls_inside_the_page_on_a_phone(visit: Visit, path: str) -> None:
    visit.page.set_viewport_size(PHONE)
    page = visit.open(path)
    wrapper = page.locator("article .md-typeset__scrollwrap")
    assert wrapper.locator("table tbody tr:has(th[scope=row])").count() == len(MANIFEST), "a row per output"
    assert wrapper.locator("table tbody th[scope=rowgroup]").count() == len(PARTS), "grouped by part"
    scrolled, shown = wrapper.evaluate("element => [element.scrollWidth, element.clientWidth]")
    assert scrolled > shown, "the table is wider than a phone and scrolls"
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], "the page itself does not scroll sideways"
    # A long hash shows its start, about SHORT_HASH characters wide, and the whole of it once focused.
    shortened = wrapper.locator("code.provenance-hash--short").first
    shortened.scroll_into_view_if_needed()
    shown, whole, character = shortened.evaluate(WIDTHS)
    assert SHORT_HASH * character < shown < (SHORT_HASH + 3) * character < whole
    shortened.focus()
    focused, _, _ = shortened.evaluate(WIDTHS)
    assert focused >= whole - 1, "focused, the whole hash shows"


# The width an element's boxes take on screen (its lines, where it wraps), the width of its whole content, and the
# width of one character of its font.
WIDTHS = """code => {
  const probe = Object.assign(document.createElement("code"), {textContent: "0000000000"});
  probe.style.padding = "0";
  code.parentElement.append(probe);
  const character = probe.getBoundingClientRect().width / 10;
  probe.remove();
  const shown = [...code.getClientRects()].reduce((sum, rect) => sum + rect.width, 0);
  return [shown, code.scrollWidth, character];
}"""


@pytest.mark.parametrize("path", PAGES)
def test_each_page_loads_cleanly_with_no_serious_accessibility_violation_in_light_or_dark(
    visit: Visit, path: str
) -> None:
    """No error, nothing from another host (the search index's requests included), and axe finds nothing serious."""
    loads_cleanly_and_accessibly(visit, path)


def test_zensical_s_pages_load_cleanly_with_no_serious_accessibility_violation_in_light_or_dark(
    zensical_visit: Visit,
) -> None:
    """Zensical draws the pages' header and navigation with a theme of its own: checked on the Series page, as the
    pages above, whose content Zensical renders alike (tests/test_zensical.py)."""
    loads_cleanly_and_accessibly(zensical_visit, "")


def loads_cleanly_and_accessibly(visit: Visit, path: str) -> None:
    if not AXE.is_file():
        pytest.fail(f"{AXE.relative_to(ROOT)} not found: run `npm ci` (`make test` does it).")
    serious = []
    for scheme, palette in (("light", "default"), ("dark", "slate")):
        if scheme == "dark":  # as a reader who prefers it arrives
            visit.forget_the_site()
        visit.page.emulate_media(color_scheme=scheme)
        page = visit.open(path, settled=scheme == "light")
        assert page.evaluate("document.body.dataset.mdColorScheme") == palette, f"{scheme}: the {palette} palette"
        page.evaluate("document.querySelectorAll('details').forEach(details => details.open = true)")  # records too
        draw_whole_page(page)  # what a reader reaches, not the place-holders of what is not drawn yet
        page.add_script_tag(path=str(AXE))
        # The palette changes colours and nothing else: dark mode runs only the rules that weigh colours.
        options = {"resultTypes": ["violations"]} | ({} if scheme == "light" else {"runOnly": COLOUR_RULES})
        violations = []
        if page.locator(".try-tokenizer, .try-tokenizer__box").count():  # the "Try it" box before use, then in use
            violations += page.evaluate(AXE_RUN, [".try-tokenizer__box", options])
            use_the_tokenizer_box(page)
            page.locator(".try-tokenizer__token").nth(1).click()
        violations += page.evaluate(AXE_RUN, ["html", options])
        serious += [
            f"{scheme}: {v['id']} ({v['impact']}): {v['help']} at {[node['target'] for node in v['nodes']]}"
            for v in violations
            if v["impact"] in ("serious", "critical")
        ]
    assert any(url.endswith(visit.search_index) for url in visit.requests), "the search index was requested"
    assert visit.remote_requests() == []
    assert visit.errors == []
    assert not serious, "\n".join(serious)


def use_the_tokenizer_box(page: Page) -> Locator:
    """Start the "Try it" box as a reader does, by scrolling to it and moving into its text: the box's text, once
    it shows tokens. The box is built when the reader comes near its place, a hidden placeholder."""
    page.locator(".try-tokenizer, .try-tokenizer__box").evaluate(
        "place => (place.hidden ? place.previousElementSibling : place).scrollIntoView()"
    )
    expect(page.locator(".try-tokenizer__box")).to_be_visible()
    text = page.get_by_role("textbox", name=re.compile("GPT-2's tokenizer"))
    text.focus()
    # The first ids come within a second on an idle machine (`python -m tools.first_ids` times it): this is no
    # timed test, so a machine busy with other tests is given its time.
    expect(page.locator(".try-tokenizer__token").first).to_be_visible(timeout=30_000)
    return text


def counted(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


# Put each text into the box's text area as a reader's edit does, through an input event, and read the ids it
# shows then (null when it shows none). The texts travel to the page as JSON with escapes: Playwright's own
# transfer replaces a lone surrogate, which the box must receive to refuse it.
ENTER_TEXTS = """texts => JSON.parse(texts).map(text => {
  const box = document.querySelector(".try-tokenizer__box textarea");
  const ids = document.querySelector(".try-tokenizer__ids");
  box.value = text;
  box.dispatchEvent(new Event("input", {bubbles: true}));
  return ids.closest("[hidden]") ? null : JSON.parse(ids.textContent); // read without laying the page out
})"""
REFUSED = "No tokens: GPT-2's tokenizer refuses this text."


def enter(page: Page, texts: list[str]) -> list[list[int] | None]:
    """The ids the box shows for each text, entered one after the other (None where it shows none)."""
    return page.evaluate(ENTER_TEXTS, json.dumps(texts))


def told(page: Page) -> str:
    """What the box's note says about the text, by the words that name its case: "" when it shows no note."""
    note = page.locator(".try-tokenizer__note")
    said = note.inner_text() if note.is_visible() else ""
    return next((words for words in ("encode raises TypeError", "carriage return") if words in said), said)


def expected_note(text: str, refused: bool) -> str:
    return "encode raises TypeError" if refused else "carriage return" if "\n" in text else ""


def recorded_output(name: str) -> str:
    """The recorded output of `snippets/<name>.py`, which a page's markup names."""
    assert name in MANIFEST, f"the page names {name}, which has no recorded output"
    return (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8")


def test_every_try_it_box_names_the_outputs_it_is_checked_against() -> None:
    assert BOXES, 'no page has a "Try it" box: the tests of the box check nothing'
    for path, attributes in BOXES:
        assert {"data-cases", "data-merges"} <= set(attributes), f"{path}: {attributes}"


@pytest.mark.parametrize(("path", "attributes"), BOXES, ids=[path for path, _ in BOXES])
def test_the_try_it_box_gives_the_pinned_tokenizer_s_ids_for_every_case_its_page_names(
    visit: Visit, path: str, attributes: dict[str, str]
) -> None:
    """Each recorded case, typed into the box, shows the very ids the pinned tokenizer gave, counted alike."""
    cases = [json.loads(line) for line in recorded_output(attributes["data-cases"]).split("\n") if line]
    page = visit.open(path)
    assert not [url for url in visit.requests if "/tokenizer/" in url], "the files load only once the box is used"
    start = page.locator(".try-tokenizer").text_content().strip()
    text = use_the_tokenizer_box(page)
    ids, counts, tokens = (page.locator(f".try-tokenizer__{part}") for part in ("ids", "counts", "token"))
    first = next((case for case in cases if case["text"] == start), None)
    assert first, f"no case is the text the box starts with, {start!r}"
    # Read as ENTER_TEXTS does: a `pre` below the window is not drawn yet, and its innerText is then empty.
    assert [text.input_value(), json.loads(ids.text_content())] == [start, first["ids"]], (
        "the box starts with its placeholder's text, tokenized"
    )
    assert any("refused" in case for case in cases) and any("\n" in case["text"] for case in cases), (
        "the corpus holds a text the tokenizer refuses and one with a line break, whose notes are checked"
    )
    disagreements = []
    for case in cases:
        shown = {
            "ids": enter(page, [case["text"]])[0],
            "pieces": tokens.count(),
            "counts": counts.inner_text(),
            "note": told(page),
        }
        refused = "refused" in case
        expected = (
            {"ids": None, "pieces": 0, "counts": REFUSED}
            if refused
            else {
                "ids": case["ids"],
                "pieces": len(case["ids"]),
                "counts": f"{counted(len(case['ids']), 'token')} "
                f"from {counted(len(case['text'].encode('utf-8')), 'UTF-8 byte')}",
            }
        )
        expected["note"] = expected_note(case["text"], refused)
        if shown != expected:
            disagreements.append(f"{case['text']!r}:\n  the box    {shown}\n  the pinned {expected}")
    assert not disagreements, "\n".join(disagreements)
    enter(page, ["a\r\nb\rc"])  # as a paste from Windows would bring it
    assert [text.input_value(), told(page)] == ["a\nb\nc", "carriage return"], (
        "the text area keeps no CR, and the box says so"
    )
    assert visit.errors == [] and visit.remote_requests() == []
    visit.page.set_viewport_size(PHONE)
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], "a long text's tokens wrap inside a phone's width"


# What the sweep's random texts are made of: pieces of each kind that the pre-tokenizer cuts in its own way.
SWEEP_PIECES = {
    "spaces": [" ", "  ", "   ", "\t", "\t\t", "\n", "\n\n", " \n ", "\u00a0", "\u3000", "\u2028"],
    "contractions": ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'", "''"],
    "special token": ["<|endoftext|>", "<|endoftext", "endoftext|>"],
    "emoji": ["🚀", "👍🏽", "👩\u200d💻", "🏳\ufe0f\u200d🌈", "\u200d", "\ufe0f"],
    "CJK": ["日本語", "中文", "한국어", "テキスト", "。"],
    "combining marks": ["e\u0301", "\u0301", "n\u0303", "\u0308\u0304"],
    "digits": ["7", "42", "2019", "3.14", "1,234", "½", "٣", "²"],
    "words": ["a", "the", "Hello", "don", "café", "GPT", "x"],
    "symbols": [".", ",", "!?", "--", "(", ")", "#", '"', "..."],
    "U+FEFF": ["\ufeff"],
    "U+0085": ["\x85"],
}
SWEEP_SIZE, SWEEP_SEED = 3000, 2019
# Each character's class as the browser's own regular expressions have it.
BROWSER_CLASSES = """points => points.map(point => {
  const character = String.fromCodePoint(point);
  return /\\p{L}/u.test(character) ? "letters" : /\\p{N}/u.test(character) ? "numbers"
       : /\\s/u.test(character) ? "spaces" : null;
})"""


def tokenizer_class_of() -> dict[int, str]:
    """The class of every letter, number and space of the tokenizer, as the box's script holds them."""
    classes = parsed(written_block(SCRIPT.read_text(encoding="utf-8")))
    return {point: name for name, runs in classes.items() for first, last in runs for point in range(first, last + 1)}


def sweep_texts(count: int, seed: int) -> list[str]:
    """Seeded random texts joined from SWEEP_PIECES and from letters and numbers that newer Unicode tables know
    and the tokenizer's do not (as the pinned `regex` has them, in the four planes that hold letters and
    numbers), one text in fifty with a lone surrogate."""
    rng = random.Random(seed)
    known = tokenizer_class_of()
    planes = "".join(map(chr, itertools.chain(range(0xD800), range(0xE000, 0x40000))))
    newer = [ord(character) for character in regex.findall(r"[\p{L}\p{N}]", planes) if ord(character) not in known]
    kinds = [*SWEEP_PIECES.values(), [chr(point) for point in newer]]
    texts = []
    for _ in range(count):
        pieces = [rng.choice(rng.choice(kinds)) for _ in range(rng.randint(1, 8))]
        if rng.random() < 0.02:
            pieces.insert(rng.randint(0, len(pieces)), chr(rng.randrange(0xD800, 0xE000)))
        texts.append("".join(pieces))
    return texts


@pytest.mark.parametrize(("path", "attributes"), BOXES, ids=[path for path, _ in BOXES])
def test_the_try_it_box_gives_the_pinned_tokenizer_s_ids_for_a_seeded_sweep_of_random_texts(
    visit: Visit, path: str, attributes: dict[str, str]
) -> None:
    """Thousands of random texts of spaces, line feeds, contractions, the special token, emoji, CJK, combining
    marks, digits, U+FEFF, U+0085 and letters newer than the tokenizer's tables: the box shows the ids the pinned
    tokenizer gives each, and no ids where it refuses the text. All of them in one evaluation of the page."""
    tokenizer = gpt2_tokenizer()

    def ids(text: str) -> list[int] | None:
        try:
            return tokenizer.encode(text).ids
        except TypeError:  # a lone surrogate
            return None

    # The tokenizer built here is the pinned one if it gives what the pinned one recorded for every hard case.
    cases = [json.loads(line) for line in recorded_output(attributes["data-cases"]).split("\n") if line]
    assert [ids(case["text"]) for case in cases] == [case.get("ids") for case in cases]
    texts = sweep_texts(SWEEP_SIZE, SWEEP_SEED)
    expected = [ids(text) for text in texts]
    page = visit.open(path)
    use_the_tokenizer_box(page)
    shown = enter(page, texts)
    mismatches = [
        f"{text!r}:\n  the box    {box}\n  the pinned {pinned}"
        for text, box, pinned in zip(texts, shown, expected, strict=True)
        if box != pinned
    ]
    assert not mismatches, f"{len(mismatches)} of {len(texts)} texts:\n" + "\n".join(mismatches[:20])
    assert None in expected, "the sweep holds texts the tokenizer refuses"
    # The sweep is worth its time only if it holds what the browser's own classes would get wrong.
    points = sorted({ord(character) for text in texts for character in text} - set(range(0xD800, 0xE000)))
    known = tokenizer_class_of()
    apart = {
        (browser, known.get(point))
        for point, browser in zip(points, page.evaluate(BROWSER_CLASSES, points), strict=True)
        if browser != known.get(point)
    }
    assert {("spaces", None), (None, "spaces")} <= apart and apart & {("letters", None), ("numbers", None)}, apart
    assert visit.errors == []


@pytest.mark.parametrize(("path", "attributes"), BOXES, ids=[path for path, _ in BOXES])
def test_the_try_it_box_works_by_keyboard_and_shows_the_merges_that_built_a_token(
    visit: Visit, path: str, attributes: dict[str, str]
) -> None:
    """Tab reaches the tokens, arrows move between them with each id shown, Enter picks one and shows its merges:
    for the word of the output its page names, the steps that output recorded. A screen reader hears the count."""
    recorded = recorded_output(attributes["data-merges"])
    steps = re.findall(r"^(rank \d+: \S+ \+ \S+)", recorded, re.M)
    # The output's first line lists the word's bytes, each as the byte-level alphabet writes it (Ġ for the space).
    # Imported here, by the one test that reads it: importing transformers took every worker 1.3 s as it collected.
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    to_byte = {character: byte for byte, character in bytes_to_unicode().items()}
    pieces = "".join(re.findall(r"'([^']*)'", recorded.splitlines()[0]))
    word = bytes(to_byte[character] for character in pieces).decode()
    assert steps and word.strip(), f"{attributes['data-merges']} lists no merge of a word"
    page = visit.open(path)
    text = use_the_tokenizer_box(page)
    text.fill(word)
    page.keyboard.press("Tab")
    tokens = page.locator(".try-tokenizer__token")
    expect(tokens.first).to_be_focused()
    shown = []
    for keys in (["Enter"], ["End", "Enter"]):  # the first token, then the last
        for key in keys:
            page.keyboard.press(key)
            focused = page.locator(".try-tokenizer__token:focus")
            assert focused.locator(".try-tokenizer__id").bounding_box()["width"] > 2, "its id shows on focus"
        shown += page.locator(".try-tokenizer__merges li").all_inner_texts()
    picked = sorted(shown, key=lambda step: int(re.search(r"rank ([\d,]+)", step)[1].replace(",", "")))
    assert [step.split(" → ")[0].replace(",", "") for step in picked] == steps
    expect(page.get_by_role("status")).to_have_text(
        f"{counted(tokens.count(), 'token')} from {counted(len(word.encode()), 'UTF-8 byte')}"
    )


def test_the_try_it_box_refuses_a_tokenizer_file_unlike_the_pinned_one(visit: Visit) -> None:
    """The browser checks each file against its pinned sha256: a changed vocab.json gives no tokens, and says so."""
    page = visit.page
    page.route(
        "**/tokenizer/vocab.json",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=route.fetch().text().replace('"the": ', '"teh": ')
        ),
    )
    try:
        visit.open(BOXES[0][0])
        page.locator(".try-tokenizer").evaluate("place => place.previousElementSibling.scrollIntoView()")
        page.get_by_role("textbox", name=re.compile("GPT-2's tokenizer")).focus()
        expect(page.locator(".try-tokenizer__counts")).to_contain_text("could not be loaded")
        assert page.locator(".try-tokenizer__token").count() == 0
    finally:
        page.unroute("**/tokenizer/vocab.json")
    visit.errors.clear()  # the browser reports the refused file as a console error, as it should


def test_zensical_s_own_search_finds_each_part_offline(zensical_visit: Visit) -> None:
    """Zensical's header holds its own search, a button that opens it (overrides/partials/search.html gives
    Material's to MkDocs alone), and its index is the site's own."""
    page = zensical_visit.open("")
    page.get_by_role("button", name="Search").click()
    search_each_part(page, page.get_by_placeholder("Search"))
    assert zensical_visit.remote_requests() == []
    assert zensical_visit.errors == []


@pytest.mark.parametrize(("path", "attributes"), BOXES, ids=[path for path, _ in BOXES])
def test_the_try_it_box_gives_the_same_ids_under_zensical(
    zensical_visit: Visit, path: str, attributes: dict[str, str]
) -> None:
    """Zensical publishes the tokenizer's files as MkDocs does, from the generated folder, and the page hands the box
    their digests: each recorded case gets the pinned tokenizer's ids there too."""
    cases = [json.loads(line) for line in recorded_output(attributes["data-cases"]).split("\n") if line]
    page = zensical_visit.open(path)
    use_the_tokenizer_box(page)
    shown = enter(page, [case["text"] for case in cases])
    disagreements = [
        f"{case['text']!r}: {ids} instead of {case.get('ids')}"
        for case, ids in zip(cases, shown, strict=True)
        if ids != case.get("ids")
    ]
    assert cases and not disagreements, "\n".join(disagreements)
    assert zensical_visit.errors == []

"""The built site in headless Chromium: what a reader sees and uses, offline and accessible."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Locator, Page, Request, expect, sync_playwright

from recorder import compat_table
from recorder.snippets import discover
from support import ROOT
from tools.local_site import served

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "test-artifacts"
ARTICLE = "token-embeddings/"
NOTEBOOK_PAGE = "notebooks/token-embeddings/"
PROVENANCE_PAGE = "provenance/"
COMPATIBILITY_PAGE = "compatibility/"
PAGES = ("", ARTICLE, NOTEBOOK_PAGE, PROVENANCE_PAGE, COMPATIBILITY_PAGE)
PHONE = {"width": 390, "height": 844}
MARKDOWN = (ROOT / "docs" / "token-embeddings.md").read_text(encoding="utf-8")
MANIFEST = json.loads((ROOT / "outputs" / "manifest.json").read_text(encoding="utf-8"))["snippets"]
BLOCKS = re.findall(r"^[ \t]*\{\{ (code|example) (\w+)\.py\b[^}]*\}\}[ \t]*$", MARKDOWN, re.M)


@pytest.fixture(scope="module")
def base_url(built_site: Path) -> Iterator[str]:
    with served(built_site) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} not found: the browser tests drive Debian's Chromium. "
                    "Install it with `apt-get install chromium` (.ci/run does).")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@dataclass
class Visit:
    """A browser tab on the local site that keeps every request URL and every error it saw."""

    page: Page
    base_url: str
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def open(self, path: str) -> Page:
        response = self.page.goto(self.base_url + path, wait_until="networkidle")
        assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"
        return self.page

    def remote_requests(self) -> list[str]:
        return [url for url in self.requests if not url.startswith((self.base_url, "data:", "blob:"))]


@pytest.fixture
def visit(browser: Browser, base_url: str) -> Iterator[Visit]:
    context: BrowserContext = browser.new_context(
        color_scheme="light", viewport={"width": 1280, "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
    )
    tab = Visit(context.new_page(), base_url)
    tab.page.on("request", lambda request: tab.requests.append(request.url))
    tab.page.on("console", lambda message: _console_error(tab, message))
    tab.page.on("pageerror", lambda error: tab.errors.append(f"uncaught: {error}"))
    tab.page.on("requestfailed", lambda request: _failed(tab, request))
    yield tab
    context.close()


def _console_error(tab: Visit, message: ConsoleMessage) -> None:
    if message.type == "error":
        tab.errors.append(f"console: {message.text} ({message.location.get('url')})")


def _failed(tab: Visit, request: Request) -> None:
    tab.errors.append(f"request failed: {request.url} ({request.failure})")


def markdown_headings(markdown: str) -> list[str]:
    """Headings of a page's Markdown, outside fences, as plain text."""
    unfenced = re.sub(r"(?ms)^```.*?^```[ \t]*$", "", markdown)
    return [re.sub(r"[`*_]", "", text).strip() for text in re.findall(r"^#{1,6} (.+)$", unfenced, re.M)]


def test_article_renders_its_headings_code_and_outputs(visit: Visit) -> None:
    page = visit.open(ARTICLE)
    shown = [text.replace("¶", "").strip()
             for text in page.locator("article").locator("h1, h2, h3, h4, h5, h6").all_inner_texts()]
    assert shown == markdown_headings(MARKDOWN)
    code = page.locator("article .language-python.highlight")
    assert code.count() == len(BLOCKS)
    for block in code.all():
        assert block.is_visible() and text_on_screen(block.locator("code")).strip()
    outputs = page.locator("article .recorded-output")
    examples = [name for kind, name in BLOCKS if kind == "example"]
    assert outputs.count() == len(examples)
    for output, name in zip(outputs.all(), examples, strict=True):
        assert output.get_attribute("data-snippet") == name
        recorded = (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8")
        assert text_on_screen(output.locator("pre")).strip() == recorded.strip()
        assert output.locator(".provenance").is_visible()
    screenshot_whole_page(page, ARTIFACTS / "article.png")


def next_frames(page: Page) -> None:
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def text_on_screen(element: Locator) -> str:
    """An element's text as a reader sees it, scrolled to: blocks far below the window are drawn only
    as the reader nears them (docs/stylesheets/performance.css), and have no rendered text until then."""
    element.scroll_into_view_if_needed()
    next_frames(element.page)
    return element.inner_text()


def screenshot_whole_page(page: Page, path: Path) -> None:
    """The page with every block drawn: blocks far below the window wait to be drawn until the
    reader nears them (docs/stylesheets/performance.css), so the window first grows to the page."""
    for _ in range(2):  # the page's height changes as its blocks are drawn at their real size
        page.set_viewport_size({"width": page.viewport_size["width"],
                                "height": page.evaluate("document.documentElement.scrollHeight")})
        next_frames(page)
    path.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(path), full_page=True)


def test_pages_load_with_no_error_and_nothing_from_another_host(visit: Visit) -> None:
    for path in PAGES:
        visit.open(path)
    assert visit.requests, "no request was recorded"
    assert visit.remote_requests() == []
    assert visit.errors == []


def test_compatibility_table_shows_each_difference_on_a_click(visit: Visit) -> None:
    """A row per snippet; each verdict other than "same" links to its lines or its error."""
    table = compat_table.read(ROOT)
    snippets = discover(ROOT)
    checked = set(snippets) - set(compat_table.unchecked(ROOT, table, snippets))
    differing = [cell for name in checked for cell in table["snippets"][name]["results"].values()
                 if cell["verdict"] != "same"]
    page = visit.open(COMPATIBILITY_PAGE)
    results = page.locator("article .compatibility table")
    assert results.locator("tbody tr").count() == len(snippets)
    links = results.locator("td a")
    assert links.count() == len(differing)
    for link in links.all():
        link.click()
        expect(page.locator(f"[id='{link.get_attribute('href').removeprefix('#')}'] pre")).to_be_in_viewport()


def test_notebook_page_renders_its_cells_and_offers_the_file(visit: Visit) -> None:
    notebook = json.loads((ROOT / "docs" / "notebooks" / "token-embeddings.ipynb").read_text(encoding="utf-8"))
    code_cells = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    page = visit.open(NOTEBOOK_PAGE)
    inputs = page.locator(".jp-CodeCell .jp-InputArea-editor")  # two nested .jp-CodeCell per cell
    assert inputs.count() == len(code_cells)
    for shown, cell in zip(inputs.all(), code_cells, strict=True):
        assert text_on_screen(shown).strip() == "".join(cell["source"]).strip()
    download = page.get_by_role("link", name=re.compile("Download the notebook"))
    href = download.get_attribute("href")
    assert href and href.endswith(".ipynb")
    response = page.request.get(visit.base_url + NOTEBOOK_PAGE + href)
    assert response.ok and response.json() == notebook


def test_copy_button_copies_the_code(visit: Visit) -> None:
    page = visit.open(ARTICLE)
    block = page.locator("article .language-python.highlight").first
    block.hover()
    block.get_by_title("Copy to clipboard").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == block.locator("code").inner_text().strip()
    assert "from_pretrained" in copied


def test_notebook_copy_button_copies_the_cell_and_says_so(visit: Visit) -> None:
    """Its scripts run last on the page (recorder/notebook.py moves them): the buttons still work."""
    page = visit.open(NOTEBOOK_PAGE)
    cell = page.locator(".jp-Cell", has=page.locator("clipboard-copy")).filter(has_text="from_pretrained").last
    cell.locator("clipboard-copy").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "from_pretrained" in copied
    assert copied.strip() == cell.locator(".highlight-ipynb pre").inner_text().strip()
    assert cell.locator(".notice").is_visible()


def test_palette_toggle_switches_to_dark_and_back(visit: Visit) -> None:
    page = visit.open(ARTICLE)
    scheme = "body[data-md-color-scheme='{}']"
    assert page.locator(scheme.format("default")).count() == 1
    page.get_by_title("Switch to dark mode").click()
    page.wait_for_selector(scheme.format("slate"))
    page.get_by_title("Switch to light mode").click()
    page.wait_for_selector(scheme.format("default"))


def test_search_finds_a_word_offline(visit: Visit) -> None:
    page = visit.open(ARTICLE)
    page.get_by_role("textbox", name="Search").click()
    page.keyboard.type("backpropagation")
    result = page.locator(".md-search-result__item").first
    result.wait_for(state="visible", timeout=10_000)
    assert "token-embeddings" in (result.locator("a").first.get_attribute("href") or "")
    assert visit.remote_requests() == []


def test_a_provenance_line_opens_onto_its_whole_record_on_a_phone(visit: Visit) -> None:
    visit.page.set_viewport_size(PHONE)
    page = visit.open(ARTICLE)
    for block in page.locator("article [data-snippet]").all():
        name = block.get_attribute("data-snippet")
        digest = MANIFEST[name]["output_sha256"]
        record = block.locator("details.provenance-record dl")
        assert not record.is_visible(), f"{name}: the record starts closed"
        block.locator("summary").click()
        assert record.is_visible() and digest in record.inner_text(), name
    assert visit.page.url.endswith(ARTICLE), "opening a record follows no link"
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], "an open record never widens the page"


def test_the_provenance_table_scrolls_inside_the_page_on_a_phone(visit: Visit) -> None:
    visit.page.set_viewport_size(PHONE)
    page = visit.open(PROVENANCE_PAGE)
    wrapper = page.locator("article .md-typeset__scrollwrap")
    assert wrapper.locator("table tbody tr").count() == len(MANIFEST)
    scrolled, shown = wrapper.evaluate("element => [element.scrollWidth, element.clientWidth]")
    assert scrolled > shown, "the table is wider than a phone and scrolls"
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], "the page itself does not scroll sideways"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", [ARTICLE, NOTEBOOK_PAGE, PROVENANCE_PAGE, COMPATIBILITY_PAGE])
def test_no_serious_accessibility_violations(visit: Visit, path: str, scheme: str) -> None:
    if not AXE.is_file():
        pytest.fail(f"{AXE.relative_to(ROOT)} not found: run `npm ci` (`make test` does it).")
    visit.page.emulate_media(color_scheme=scheme)
    page = visit.open(path)
    page.evaluate("document.querySelectorAll('details').forEach(details => details.open = true)")  # check records too
    page.add_script_tag(path=str(AXE))
    violations = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    serious = [f"{v['id']} ({v['impact']}): {v['help']} at {[node['target'] for node in v['nodes']]}"
               for v in violations if v["impact"] in ("serious", "critical")]
    assert not serious, "\n".join(serious)

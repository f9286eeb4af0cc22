"""The built site is inert and self-contained: a recorded output is literal text wherever it
enters a page, and no page makes a browser fetch anything from another host."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from recorder.project.config import Part, Project
from support import build, snapshot

# What a snippet could print to attack the page its output is shown on.
HOSTILE_LINES = [
    "<script>alert(1)</script>",
    "**bold** [x](http://evil.example/)",
    '--8<-- "/etc/passwd"',
    "\x1b[31mred\x1b[0m",
]

# A URL with a host: it would be fetched from wherever that host is.
EXTERNAL = re.compile(r"\s*(?:[a-z][a-z0-9+.-]*:)?//", re.I)
CSS_URL = re.compile(r"""url\(\s*(["']?)(?P<url>.*?)\1\s*\)|@import\s+(["'])(?P<imported>.*?)\3""", re.I)
JS_COMMENT = re.compile(r"/\*.*?\*/|^[ \t]*//[^\n]*", re.S | re.M)
JS_URL = re.compile(r"https?://[^\s\"'`()<>\\]+")

# Followed only when a reader clicks, or never fetched at all.
CLICKED = {("a", "href"), ("area", "href")}
TEXT_ATTRIBUTES = {"alt", "title", "aria-label", "content", "placeholder", "value"}
LINKS_NOT_FETCHED = {"canonical", "alternate", "prev", "next", "author", "license", "help", "me"}

# Every absolute URL in the theme's JavaScript, reviewed: the page element that makes the
# theme fetch it (the test checks no page has one), or None where the theme never fetches it
# here. An unreviewed URL fails the test.
THEME_URLS = {
    "https://unpkg.com/mermaid@11/dist/mermaid.min.js": ".mermaid",  # for Mermaid diagrams
    # Repository facts, fetched for the element the theme mounts as its "source" component
    # (overrides/partials/source.html links to the repository without being one).
    "https://api.github.com/": "[data-md-component=source]",
    "https://${": "[data-md-component=source]",  # the same for GitLab
    "https://unpkg.com/resize-observer-polyfill": None,  # only in browsers without ResizeObserver
    "https://github.com/isaacs/node-glob/issues/": None,  # text of an error message
    "https://bit.ly/2s3ChXG": None,  # text of a search warning
}


def css_fetches(css: str) -> Iterator[str]:
    for match in CSS_URL.finditer(css):
        yield match.group("url") or match.group("imported")


def js_urls(script: str) -> Iterator[str]:
    yield from JS_URL.findall(JS_COMMENT.sub("", script))


def attribute_fetches(tag: str, attribute: str, value: str | list[str], rel: set[str]) -> Iterator[str]:
    """URLs a browser fetches by itself because of one attribute."""
    if isinstance(value, list):  # class, rel and other token lists name no URL
        return
    if (tag, attribute) in CLICKED or attribute.startswith("xmlns"):
        return
    if tag == "link" and attribute == "href" and rel and rel <= LINKS_NOT_FETCHED:
        return
    if attribute == "style":
        yield from css_fetches(value)
    elif attribute == "srcset":
        yield from (candidate.split()[0] for candidate in value.split(",") if candidate.strip())
    elif attribute not in TEXT_ATTRIBUTES:
        yield value


def page_fetches(markup: str) -> Iterator[str]:
    """Every URL an HTML or SVG document makes a browser fetch on its own, scripts' included."""
    document = BeautifulSoup(markup, "html.parser")
    for element in document.find_all(True):
        rel = set(element.get("rel") or [])
        for attribute, value in element.attrs.items():
            yield from attribute_fetches(element.name, attribute, value, rel)
        if element.name == "meta" and str(element.get("http-equiv", "")).lower() == "refresh":
            yield str(element.get("content", "")).partition("=")[2]
        if element.name == "style":
            yield from css_fetches(element.get_text())
        if element.name == "script" and not element.get("src"):
            yield from js_urls(element.get_text())


def external_fetches(site: Path) -> list[str]:
    """What the built site would make a browser fetch from another host, file by file."""
    pages = {path: path.read_text(encoding="utf-8") for path in site.rglob("*.html")}
    parsed = [BeautifulSoup(markup, "html.parser") for markup in pages.values()]
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix in (".html", ".svg"):
            urls = page_fetches(path.read_text(encoding="utf-8"))
        elif path.suffix == ".css":
            urls = css_fetches(path.read_text(encoding="utf-8"))
        else:
            urls = iter(())
        found += [f"{path.relative_to(site)}: {url}" for url in urls if EXTERNAL.match(url)]
        if path.suffix == ".js":
            for url in js_urls(path.read_text(encoding="utf-8")):
                reviewed = [prefix for prefix in THEME_URLS if url.startswith(prefix)]
                if not reviewed:
                    found.append(f"{path.relative_to(site)}: {url} (not reviewed in THEME_URLS)")
                elif (trigger := THEME_URLS[reviewed[0]]) and any(page.select(trigger) for page in parsed):
                    found.append(f"{path.relative_to(site)}: {url} (a page has {trigger})")
    return found


def test_page_fetches_only_what_it_must() -> None:
    """The scanner itself: every automatic fetch is found, clicks and text are not."""
    page = """<html><head>
      <link rel="stylesheet" href="https://cdn.example/a.css"><link rel="canonical" href="https://site.example/">
      <style>@import "https://fonts.example/b.css"; p { background: url(//img.example/c.png) }</style>
      <meta http-equiv="refresh" content="0; url=https://away.example/">
      <script>fetch("https://api.example/d")</script><script src="https://cdn.example/e.js"></script>
    </head><body>
      <a href="https://docs.example/">docs</a><img src="f.png" srcset="g.png 1x, https://img.example/h.png 2x"
      alt="https://not.fetched/" style="background-image: url('https://img.example/i.png')">
      <svg xmlns="http://www.w3.org/2000/svg"><image href="https://img.example/j.svg"/></svg>
      <p>https://just.text/</p>
    </body></html>"""
    assert [url for url in page_fetches(page) if EXTERNAL.match(url)] == [
        "https://cdn.example/a.css",
        "https://fonts.example/b.css",
        "//img.example/c.png",
        "https://away.example/",
        "https://api.example/d",
        "https://cdn.example/e.js",
        "https://img.example/h.png",
        "https://img.example/i.png",
        "https://img.example/j.svg",
    ]


@pytest.mark.slow
def test_the_built_site_fetches_nothing_from_other_hosts(built_site: Path) -> None:
    assert list(built_site.rglob("*.js")), "the scan must see the site's scripts"
    assert external_fetches(built_site) == []


def plant_hostile_output(project: Path) -> Part:
    """A snippet printing HOSTILE_LINES in the first part's folder, its output shown on the part's page,
    and two of its lines quoted there as values."""
    part = Project.load(project).parts()[0]
    snippet = project / "snippets" / part.name / "hostile.py"
    snippet.write_text("".join(f"print({line!r})\n" for line in HOSTILE_LINES))
    template = ["{hostile_script}", "{hostile_markdown}", *["{}"] * (len(HOSTILE_LINES) - 2)]
    with (project / "snippets" / part.name / "values.yml").open("a", encoding="utf-8") as values:
        values.write("hostile: |\n" + "".join(f"  {line}\n" for line in template))
    with (project / "docs" / part.page).open("a", encoding="utf-8") as page:
        page.write(
            f"\n\n{{{{ example {part.name}/hostile.py }}}}\n\n"
            f"Inline, {{{{ value {part.name}/hostile_script }}}} and {{{{ value {part.name}/hostile_markdown }}}}.\n"
        )
    return part


@pytest.mark.slow
def test_hostile_output_is_shown_as_literal_inert_text(run, project: Path) -> None:
    part = plant_hostile_output(project)
    recorded = run("python", "-m", "recorder", "record", cwd=project)
    assert recorded.returncode == 0, recorded.stderr
    outputs = snapshot(project / "outputs")
    result = build(project)
    assert result.returncode == 0, result.stderr
    assert snapshot(project / "outputs") == outputs

    markup = (project / "site" / part.name / "index.html").read_text(encoding="utf-8")
    page = BeautifulSoup(markup, "html.parser")
    shown = page.select_one(f'div.recorded-output[data-snippet="{part.name}/hostile"] pre').get_text()
    assert shown == "\n".join(HOSTILE_LINES).replace("\x1b", "\\x1b")
    inline = next(p for p in page.find_all("p") if p.get_text().startswith("Inline,"))
    assert inline.get_text() == f"Inline, {HOSTILE_LINES[0]} and {HOSTILE_LINES[1]}."
    assert "\x1b" not in markup
    for path in (project / "site").rglob("*.html"):
        document = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        assert not [script for script in document.find_all("script") if "alert(1)" in script.get_text()], path
        assert not document.select('a[href^="http://evil"]'), path
        assert not [strong for strong in document.find_all(["strong", "b"]) if strong.get_text() == "bold"], path
        assert "root:x:0:0" not in document.get_text(), path

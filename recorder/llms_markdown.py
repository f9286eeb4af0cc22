"""Prepare a built page for mkdocs-llmstxt, which converts it into the page's Markdown version.

mkdocs.yml names this file as the plugin's `preprocess` module. The plugin's own
clean-up (`autoclean`) deletes every <svg> before this would run, and with it a
figure's text alternative, so it is turned off and the clean-up is done here:
a figure becomes its title and text alternative, an output's record a list
after its provenance line, a notebook cell plain Python, and what only a
browser uses (permalinks, copy buttons, icons, styles) is dropped.

Elements are found with find_all rather than CSS selectors: compiling selectors
costs more than converting a page.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, Tag

# Only a browser uses these: heading permalinks (the site's and the notebook's), the notebook's
# copy buttons and the hidden copies of its cells' source.
_BROWSER_ONLY_CLASSES = {"headerlink", "anchor-link", "zeroclipboard-container", "clipboard-copy-txt"}
_BROWSER_ONLY_TAGS = {"svg", "img", "style", "script"}


def preprocess(soup: BeautifulSoup, output: str) -> None:
    """The plugin's entry point; `output` is the path of the Markdown file being written."""
    for figure in soup.find_all("figure", class_="recorded-figure"):
        figure_as_text(soup, figure)
    for record in soup.find_all("details", class_="provenance-record"):
        record_as_list(soup, record)
    for cell in soup.find_all("div", class_="highlight-ipynb"):
        if "hl-python" in cell["class"]:
            cell["class"].append("language-python")  # the plugin labels a fence by this class
    for element in soup.find_all(browser_only):
        element.decompose()


def browser_only(element: Tag) -> bool:
    return element.name in _BROWSER_ONLY_TAGS or not _BROWSER_ONLY_CLASSES.isdisjoint(element.get("class") or ())


def figure_as_text(soup: BeautifulSoup, figure: Tag) -> None:
    """Put the figure's title and text alternative (the page's ALT) where its drawing was."""
    svg = figure.find("svg")
    if svg is None:
        return
    described = [part.get_text(" ", strip=True).rstrip(".") for part in (svg.find("title"), svg.find("desc"))
                 if part]
    text = soup.new_tag("p")
    label = soup.new_tag("strong")
    label.string = "Figure:"
    text.append(label)
    text.append(f" {'. '.join(described)}.")
    svg.replace_with(text)


def record_as_list(soup: BeautifulSoup, record: Tag) -> None:
    """Show the record as a list of `label: value` after its provenance line, which stays one line."""
    fields = soup.new_tag("ul")
    terms = record.find("dl")
    for term in terms.find_all("dt", recursive=False):
        item = soup.new_tag("li")
        label = soup.new_tag("strong")
        label.string = f"{term.get_text()}:"
        item.append(label)
        item.append(" ")
        value = term.find_next_sibling("dd")
        item.extend(list(value.contents) if value else [])
        fields.append(item)
    terms.decompose()
    line = record.find_parent(class_="provenance") or record
    line.insert_after(fields)
    record.summary.unwrap()
    record.unwrap()

"""mkdocs-llmstxt's `preprocess` module, in place of its `autoclean`, which deletes figures' text alternatives with
their <svg>. It uses find_all: compiling CSS selectors costs more than converting a page."""

from bs4 import BeautifulSoup, PageElement, Tag

# Heading permalinks (the site's and the notebook's), the notebook's copy buttons and hidden copies of cells,
# and the hidden place of the "Try it" box, which a script fills.
_BROWSER_ONLY_CLASSES = {"headerlink", "anchor-link", "zeroclipboard-container", "clipboard-copy-txt", "try-tokenizer"}
_BROWSER_ONLY_TAGS = {"svg", "img", "style", "script"}


def preprocess(soup: BeautifulSoup, output: str) -> None:
    """Figures as text, records and the Provenance table as lists, notebook cells as Python; what only a browser
    uses goes."""
    _figures_as_text(soup)
    _records_as_lists(soup)
    _provenance_table_as_lists(soup)
    for cell in soup.find_all("div", class_="highlight-ipynb"):
        if "hl-python" in cell["class"]:
            cell["class"].append("language-python")  # the plugin labels a fence by this class
    for code in soup.find_all("pre"):
        code.string = code.get_text()  # the same fence, without a tag per highlighted token to convert
    for element in soup.find_all(browser_only):
        element.decompose()


def browser_only(element: Tag) -> bool:
    return element.name in _BROWSER_ONLY_TAGS or not _BROWSER_ONLY_CLASSES.isdisjoint(element.get("class") or ())


def _figures_as_text(soup: BeautifulSoup) -> None:
    """The figure's title and text alternative (the page's ALT) where its drawing was."""
    for svg in (figure.find("svg") for figure in soup.find_all("figure", class_="recorded-figure")):
        if svg:
            described = [
                part.get_text(" ", strip=True).rstrip(".") for part in (svg.find("title"), svg.find("desc")) if part
            ]
            svg.replace_with(_labelled(soup, "p", "Figure:", f"{'. '.join(described)}."))


def _records_as_lists(soup: BeautifulSoup) -> None:
    """Each record as a list of `label: value` after its provenance line, which stays one line; its hash whole,
    its files on one line."""
    for record in soup.find_all("details", class_="provenance-record"):
        terms = record.find("dl").extract()
        fields = soup.new_tag("ul")
        fields.extend(
            [
                _labelled(soup, "li", f"{term.get_text()}:", *term.find_next_sibling("dd").contents)
                for term in terms.find_all("dt", recursive=False)
            ]
        )
        (record.find_parent(class_="provenance") or record).insert_after(fields)
        record.summary.unwrap()
        record.unwrap()
    for files in soup.find_all("ul", class_="provenance-files"):
        files.replace_with(*_joined([item.contents for item in files.find_all("li")], "; "))  # a list in a list costs


def _provenance_table_as_lists(soup: BeautifulSoup) -> None:
    """A row per output, a column per field, is a table too wide for text: a list of records by part instead."""
    for table in soup.find_all("table", class_="provenance-table"):
        labels = [heading.get_text() for heading in table.thead.find_all("th")][1:]
        listed: list[Tag] = []
        for row in table.find_all("tr")[1:]:
            if "provenance-table__part" in (row.get("class") or ()):
                listed += [_labelled(soup, "p", row.get_text(strip=True)), soup.new_tag("ul")]
            else:
                listed[-1].append(_record_item(soup, labels, row))
        table.replace_with(*listed)


def _record_item(soup: BeautifulSoup, labels: list[str], row: Tag) -> Tag:
    """The row's output, then `label: value` for each field it has a value for."""
    fields = [
        [f"{label}: ", *cell.contents]
        for label, cell in zip(labels, row.find_all("td"), strict=True)
        if cell.get_text() != "—"
    ]
    item = soup.new_tag("li")
    item.extend([*row.th.contents, ": ", *_joined(fields, ". ")])
    return item


def _joined(pieces: list[list[PageElement | str]], separator: str) -> list[PageElement | str]:
    return [element for number, piece in enumerate(pieces) for element in ([separator] if number else []) + piece]


def _labelled(soup: BeautifulSoup, name: str, label: str, *contents: PageElement | str) -> Tag:
    element, strong = soup.new_tag(name), soup.new_tag("strong")
    strong.string = label
    element.extend([strong, " ", *contents])
    return element

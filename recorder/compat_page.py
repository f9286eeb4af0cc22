"""The `{{ compatibility }}` directive: compat/results.json as an HTML table and what it links to.

A row per snippet, a column per transformers release; a cell says "same", or links to a section
below holding the lines that differ (full width, so long lines stay readable) or the error raised.
The rows are grouped by part, like the Provenance table: a `<tbody>` per part, under a header row
that names it as the navigation does, in the navigation's order.
A snippet changed since the table was made shows "not yet checked" instead of its old verdicts.
Under the table, a line per release names the versions it ran with, and when. All text from the
file is escaped: it holds what snippets printed. The table carries no class, so the theme styles it
as its own and wraps it to scroll when it is too wide.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mkdocs.utils import get_relative_url

from recorder import compat_table
from recorder.pinned import SNIPPETS_DIR
from recorder.repository import Repository
from recorder.snippets import discover

# The versions each release ran with besides its own, in the order its line names them.
_VERSION_LABELS = {"tokenizers": "tokenizers", "huggingface_hub": "huggingface_hub", "safetensors": "safetensors",
                   "torch": "torch", "python": "Python"}


def _escaped(text: str) -> str:
    """Escaped for HTML, with control characters shown as escapes rather than passed to the page."""
    return html.escape("".join(char if char.isprintable() or char == "\n" else char.encode("unicode_escape").decode()
                               for char in text))


def _detail(result: dict[str, Any]) -> str:
    """The error raised, or the lines that differ as a reader compares them: number, how, recorded and printed."""
    if result["verdict"] == "error":
        return result["error"]
    parts = []
    for line in result["lines"]:
        how = "weight values, compared by form" if line["compared"] == "by form" else "compared exactly"
        recorded, printed = ("(no such line)" if text is None else text for text in (line["recorded"], line["printed"]))
        parts.append(f"line {line['line']}, {how}\n  site:    {recorded}\n  printed: {printed}")
    return "\n".join(parts)


def _versions(table: dict[str, Any]) -> str:
    """A line per release naming what it ran with, like an output's provenance line; it wraps, never scrolls."""
    lines = []
    for release, about in table["releases"].items():
        named = " · ".join(f"{title} {_escaped(str(about['versions'][package]))}"
                           for package, title in _VERSION_LABELS.items() if about["versions"].get(package))
        day = html.escape(about["checked_at"][:10])
        lines.append(f"<li><strong>transformers {html.escape(release)}</strong> · {named} · "
                     f'checked on <time datetime="{day}">{day}</time></li>')
    return "".join(lines)


def anchor(name: str, release: str) -> str:
    """The id of the section a cell links to: no "/" in it, which a fragment would read as a path."""
    return f"compat-{name.replace('/', '-')}-{release}"


def render(root: Path, page_url: str, repository: Repository | None = None,
           parts: Mapping[str, str] | None = None) -> str:
    """The table, its versions and its sections; `parts` titles each part's group (part -> title), in
    the order shown; a part it leaves out follows, under its folder's name."""
    table = compat_table.read(root)
    snippets = discover(root)
    stale = compat_table.unchecked(root, table, snippets)
    releases = list(table["releases"])
    heads = "".join(f'<th scope="col">{html.escape(release)}'
                    + (" <small>(pinned)</small>" if release == table["reference"] else "") + "</th>"
                    for release in releases)
    groups: dict[str, list[str]] = {part: [] for part in parts or {}}
    for name, snippet in snippets.items():
        groups.setdefault(snippet.part, []).append(name)
    bodies, sections = [], []
    for part, names in groups.items():
        if not names:
            continue
        title = html.escape((parts or {}).get(part) or part)
        rows = [f'<tr class="compat-part"><th scope="rowgroup" colspan="{1 + len(releases)}">{title}</th></tr>']
        for name in names:
            snippet = snippets[name]
            path = snippet.relative(root)
            label = html.escape(snippet.path.relative_to(root / SNIPPETS_DIR).as_posix())
            href = repository.at_commit(path) if repository else get_relative_url(path, page_url)
            row = f'<tr><th scope="row"><a href="{html.escape(href)}">{label}</a></th>'
            if name in stale:
                rows.append(f'{row}<td class="compat-unchecked" colspan="{len(releases)}">not yet checked: '
                            f"{_escaped(stale[name])}</td></tr>")
                continue
            for release in releases:
                result = table["snippets"][name]["results"][release]
                if result["verdict"] == "same":
                    row += "<td>same</td>"
                    continue
                count = len(result.get("lines", []))
                target = html.escape(anchor(name, release))
                text = ("error" if result["verdict"] == "error"
                        else f"differs: {count} line{'s' if count != 1 else ''}")
                row += f'<td><a href="#{target}">{text}</a></td>'
                sections.append(f'<section id="{target}"><h3>{label} with transformers {html.escape(release)}: '
                                f"{result['verdict']}</h3><pre><code>{_escaped(_detail(result))}</code></pre>"
                                "</section>")
            rows.append(f"{row}</tr>")
        bodies.append(f"<tbody>{''.join(rows)}</tbody>")
    return ('<div class="compatibility"><table><caption>Each example run with each Transformers release, compared '
            f'with the output this site shows</caption><thead><tr><th scope="col">Example</th>{heads}</tr></thead>'
            f'{"".join(bodies)}</table><p>What each release ran with:</p>'
            f'<ul class="compat-versions">{_versions(table)}</ul>{"".join(sections)}</div>')

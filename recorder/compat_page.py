"""The `{{ compatibility }}` directive: compat/results.json as an HTML table and what it links to.

The table has a row per snippet and a column per transformers release; a
cell says "same", or links to a section below holding the lines that differ
(full width, so long lines stay readable) or the error raised. A snippet
changed since the table was made shows "not yet checked" instead of its old
verdicts. Under the table, a line per release names the versions it ran
with, and when. All text from the file is escaped: it holds what snippets
printed. The table carries no class, so the theme styles it as its own and
wraps it to scroll when it is too wide.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from mkdocs.utils import get_relative_url

from recorder import compat_table
from recorder.compat_table import BY_FORM, DIFFERS, ERROR, SAME
from recorder.pinned import SNIPPETS_DIR
from recorder.repository import Repository
from recorder.snippets import discover

# The versions each release ran with besides its own, in the order its line names them.
_VERSION_LABELS = {"tokenizers": "tokenizers", "huggingface_hub": "huggingface_hub", "safetensors": "safetensors",
                   "torch": "torch", "python": "Python"}


def _escaped(text: str) -> str:
    """Escaped for HTML, with control characters shown as escapes rather than passed to the page."""
    visible = "".join(char if char.isprintable() or char == "\n" else char.encode("unicode_escape").decode()
                      for char in text)
    return html.escape(visible)


def _differing_lines(lines: list[dict[str, Any]]) -> str:
    """The lines that differ, as a reader compares them: number, how compared, recorded and printed."""
    parts = []
    for line in lines:
        how = "weight values, compared by form" if line["compared"] == BY_FORM else "compared exactly"
        recorded = "(no such line)" if line["recorded"] is None else line["recorded"]
        printed = "(no such line)" if line["printed"] is None else line["printed"]
        parts.append(f"line {line['line']}, {how}\n  site:    {recorded}\n  printed: {printed}")
    return "\n".join(parts)


def _anchor(name: str, release: str) -> str:
    return f"compat-{name}-{release}"


def _cell(name: str, release: str, result: dict[str, Any]) -> str:
    kind = result["verdict"]
    if kind == SAME:
        return "<td>same</td>"
    if kind == DIFFERS:
        count = len(result["lines"])
        label = f"differs: {count} line{'s' if count != 1 else ''}"
    elif kind == ERROR:
        label = "error"
    else:
        raise compat_table.CompatError(f"{compat_table.RESULTS} holds an unknown verdict {kind!r} for {name}. "
                                       f"{compat_table.FIX}")
    return f'<td><a href="#{html.escape(_anchor(name, release))}">{label}</a></td>'


def _difference(name: str, release: str, result: dict[str, Any]) -> str:
    """The section a cell links to: the lines that differ, or the error raised."""
    detail = _differing_lines(result["lines"]) if result["verdict"] == DIFFERS else result["error"]
    return (f'<section id="{html.escape(_anchor(name, release))}"><h3>{html.escape(name)}.py with '
            f"transformers {html.escape(release)}: {result['verdict']}</h3>"
            f"<pre><code>{_escaped(detail)}</code></pre></section>")


def _source_link(name: str, page_url: str, repository: Repository | None) -> str:
    path = f"{SNIPPETS_DIR}/{name}.py"
    href = repository.at_commit(path) if repository else get_relative_url(path, page_url)
    return f'<a href="{html.escape(href)}">{html.escape(name)}.py</a>'


def _checked_results(root: Path, table: dict[str, Any]) -> dict[str, dict[str, Any] | str]:
    """Each snippet's results by release, or why it is not yet checked."""
    snippets = discover(root)
    stale = compat_table.unchecked(root, table, snippets)
    checked: dict[str, dict[str, Any] | str] = {}
    for name in snippets:
        if name in stale:
            checked[name] = stale[name]
            continue
        results = table["snippets"][name]["results"]
        if missing := [release for release in table["releases"] if release not in results]:
            raise compat_table.CompatError(f"{compat_table.RESULTS} has no result for {name} with "
                                           f"transformers {missing[0]}. {compat_table.FIX}")
        checked[name] = results
    return checked


def _results_table(table: dict[str, Any], checked: dict[str, dict[str, Any] | str], page_url: str,
                   repository: Repository | None) -> str:
    releases = list(table["releases"])
    heads = "".join(f'<th scope="col">{html.escape(release)}'
                    + (" <small>(pinned)</small>" if release == table["reference"] else "") + "</th>"
                    for release in releases)
    rows = []
    for name, results in checked.items():
        if isinstance(results, str):
            cells = (f'<td class="compat-unchecked" colspan="{len(releases)}">not yet checked: '
                     f"{_escaped(results)}</td>")
        else:
            cells = "".join(_cell(name, release, results[release]) for release in releases)
        rows.append(f'<tr><th scope="row">{_source_link(name, page_url, repository)}</th>{cells}</tr>')
    return ("<table><caption>Each example run with each Transformers release, compared with the output "
            f'this site shows</caption><thead><tr><th scope="col">Example</th>{heads}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _versions(table: dict[str, Any]) -> str:
    """One line per release naming what it ran with, like an output's provenance line; it wraps, never scrolls."""
    lines = []
    for release, about in table["releases"].items():
        named = " · ".join(f"{label} {_escaped(str(about['versions'][package]))}"
                           for package, label in _VERSION_LABELS.items() if about["versions"].get(package))
        day = html.escape(about["checked_at"][:10])
        lines.append(f"<li><strong>transformers {html.escape(release)}</strong> · {named} · "
                     f'checked on <time datetime="{day}">{day}</time></li>')
    return f'<p>What each release ran with:</p><ul class="compat-versions">{"".join(lines)}</ul>'


def render(root: Path, page_url: str, repository: Repository | None = None) -> str:
    table = compat_table.read(root)
    checked = _checked_results(root, table)
    results_table = _results_table(table, checked, page_url, repository)  # refuses an unknown verdict
    differences = [_difference(name, release, results[release])
                   for name, results in checked.items() if not isinstance(results, str)
                   for release in table["releases"] if results[release]["verdict"] != SAME]
    return f'<div class="compatibility">{results_table}{_versions(table)}{"".join(differences)}</div>'

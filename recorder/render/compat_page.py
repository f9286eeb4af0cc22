"""compat/results.json, the version table `make compat` writes: reading it, its stale rows, and its page.

A row whose snippet or recorded output changed since shows "not yet checked", never a verdict about code that is
gone. Every text from the file is escaped (`visible`): it holds what snippets printed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from recorder.errors import RecorderError
from recorder.provenance import NAMES, counted, grouped_rows, line_count, source_link
from recorder.record import store
from recorder.record.snippets import Snippet, discover, sha256_file, source_hashes
from recorder.render.pages import visible
from recorder.repository import Repository

COMPAT_DIR = "compat"
RESULTS = f"{COMPAT_DIR}/results.json"
FIX = f"Run `make compat` and commit {RESULTS}."
# What each release ran with besides itself, in the order its line names them.
_RAN_WITH = ("tokenizers", "huggingface_hub", "safetensors", "torch", "python")


class CompatError(RecorderError):
    """Something `make compat` or the page cannot do; the message names the file and the fix."""


def read(root: Path) -> dict[str, Any]:
    """The table, with a verdict in every row for every release."""
    if not (root / RESULTS).exists():
        raise CompatError(f"{RESULTS} does not exist. {FIX}")
    try:
        table = json.loads((root / RESULTS).read_text(encoding="utf-8"))
        if table["reference"] not in table["releases"] or not all(
            row["results"][release]["verdict"] in ("same", "differs", "error")
            for row in table["snippets"].values()
            for release in table["releases"]
        ):
            raise ValueError("no reference release, or a verdict that is none of same, differs, error")
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise CompatError(
            f"{RESULTS} is not a valid version table ({type(error).__name__}: {error}). Restore "
            f"it with `git checkout -- {RESULTS}`, or run `make compat` and commit it."
        ) from None
    return table


def checked_against(root: Path, snippet: Snippet) -> dict[str, Any]:
    """What a row's verdicts are about: the snippet's sources and the output it was compared with."""
    output = store.output_path(root, snippet.name)
    return {"sources": source_hashes(snippet, root), "output_sha256": sha256_file(output) if output.exists() else None}


def unchecked(root: Path, table: dict[str, Any], snippets: dict[str, Snippet]) -> dict[str, str]:
    """Snippets whose verdicts the table cannot give, by name, each with the reason."""
    why = {}
    for name, snippet in snippets.items():
        row, now = table["snippets"].get(name), checked_against(root, snippet)
        if row is None:
            why[name] = f"{snippet.relative(root)} is not in {RESULTS}"
        elif row.get("sources") != now["sources"]:
            why[name] = f"{snippet.relative(root)} (or a snippet it imports) changed since {RESULTS} was made"
        elif row.get("output_sha256") != now["output_sha256"]:
            why[name] = f"{store.output_path(root, name).relative_to(root)} changed since {RESULTS} was made"
    return why


def notices(root: Path) -> list[str]:
    """What `python -m recorder check` says of the table, in a line: how many rows it shows as not yet checked."""
    try:
        table = read(root)
    except CompatError as error:
        return [str(error)]
    if not (stale := unchecked(root, table, discover(root))):
        return []
    return [
        f"{counted(len(stale), 'row')} of the version table {'is' if len(stale) == 1 else 'are'} not yet checked "
        f"since {RESULTS} was made (a snippet or its output changed): run `make compat`, which checks only those, "
        f"and commit {RESULTS}."
    ]


def same(entry: Mapping[str, Any] | None) -> str:
    """What a "same" cell says was compared, from the output's record: a line that depends on weight values (the
    published check counted them) is compared by form only, since the stand-in's random weights print other values."""
    entry = entry or {}
    by_form, exact = _published_counts(entry)
    if by_form and not exact:
        return "same form"
    if by_form:
        return f"same, {by_form} line{'s' if by_form != 1 else ''} by form"
    if _ran_on_weights(entry):
        return "same, weight-dependent lines by form"
    return "same"


def _published_counts(entry: Mapping[str, Any]) -> tuple[int, int]:
    """The published check's lines compared by form, then exactly; 0 where the record holds no count."""
    published = entry.get("published") or {}
    return line_count(published, "weight_dependent_lines") or 0, line_count(published, "exact_lines") or 0


def _ran_on_weights(entry: Mapping[str, Any]) -> bool:
    """Whether the record step ran the snippet on GPT-2's weights, whose values random stand-ins do not print."""
    return entry.get("origin") == "executed" and (entry.get("model") or {}).get("loaded") == "weights"


def _cell(name: str, release: str, result: dict[str, Any], sections: list[str], entry: Mapping[str, Any] | None) -> str:
    """ "same" (as `same` words it), or a link to a section (added to `sections`) holding the error or each line
    that differs."""
    if result["verdict"] == "same":
        return f"<td>{same(entry)}</td>"
    target = visible(f"compat-{name.replace('/', '-')}-{release}")  # no "/": a fragment would read it as a path
    detail = [result["error"]] if result["verdict"] == "error" else []
    for line in result.get("lines", []):
        how = "weight values, compared by form" if line["compared"] == "by form" else "compared exactly"
        recorded, printed = ("(no such line)" if text is None else text for text in (line["recorded"], line["printed"]))
        detail.append(f"line {line['line']}, {how}\n  site:    {recorded}\n  printed: {printed}")
    shown = visible("\n".join(detail))
    sections.append(
        f'<section id="{target}"><h3>{visible(name)}.py with transformers {visible(release)}: '
        f"{result['verdict']}</h3><pre><code>{shown}</code></pre></section>"
    )
    count = len(result.get("lines", []))
    text = "error" if result["verdict"] == "error" else f"differs: {count} line{'s' if count != 1 else ''}"
    return f'<td><a href="#{target}">{text}</a></td>'


def render(
    root: Path,
    repository: Repository | None = None,
    parts: Mapping[str, str] | None = None,
    manifest: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """The `{{ compatibility }}` table: a column per release, a row per snippet grouped by part, then a line
    per release naming what it ran with, then a section per cell that is not "same"."""
    table, snippets = read(root), discover(root)
    stale = unchecked(root, table, snippets)
    releases, span = list(table["releases"]), len(table["releases"])
    heads = "".join(
        f'<th scope="col">{visible(release)}'
        + (" <small>(pinned)</small>" if release == table["reference"] else "")
        + "</th>"
        for release in releases
    )
    sections: list[str] = []

    def row(name: str) -> str:
        if name in stale:
            cells = f'<td class="compat-unchecked" colspan="{span}">not yet checked: {visible(stale[name])}</td>'
        else:
            cells = "".join(
                _cell(name, release, table["snippets"][name]["results"][release], sections, (manifest or {}).get(name))
                for release in releases
            )
        return f'<tr><th scope="row">{source_link(name, repository, f"{name}.py")}</th>{cells}</tr>'

    bodies = grouped_rows(snippets, parts or {}, "compat-part", 1 + span, row)
    versions = []
    for release, about in table["releases"].items():
        named = "".join(
            f"{NAMES.get(package, package)} {visible(str(about['versions'][package]))} · "
            for package in _RAN_WITH
            if about["versions"].get(package)
        )
        day = visible(about["checked_at"][:10])
        versions.append(
            f"<li><strong>transformers {visible(release)}</strong> · {named}"
            f'checked on <time datetime="{day}">{day}</time></li>'
        )
    return (
        '<div class="compatibility"><table><caption>Each example run with each Transformers release, compared '
        f'with the output this site shows</caption><thead><tr><th scope="col">Example</th>{heads}</tr></thead>'
        f"{bodies}</table><p>What each release ran with:</p>"
        f'<ul class="compat-versions">{"".join(versions)}</ul>{"".join(sections)}</div>'
    )

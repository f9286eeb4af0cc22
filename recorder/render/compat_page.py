"""The page of compat/results.json, the version table `make compat` writes (recorder/project/compat_table.py).

A row whose snippet or recorded output changed since shows "not yet checked", never a verdict about code that is
gone. Every text from the file is escaped (`visible`): it holds what snippets printed.
"""

from collections.abc import Mapping
from typing import Any

from recorder.project.compat_table import View, in_words
from recorder.project.manifest import Origin, Record
from recorder.project.provenance import NAMES, counted, grouped_rows, source_link
from recorder.project.repository import Repository
from recorder.render.html import visible

# What each release ran with besides itself, in the order its line names them.
_RAN_WITH = ("tokenizers", "huggingface_hub", "safetensors", "torch", "python")


def same(record: Record | None) -> str:
    """What a "same" cell says was compared, from the output's record: a line that depends on weight values (the
    article's check counted them) is compared by form only, since the stand-in's random weights print other values."""
    article = record.article if record else None
    by_form, exact = (article.weight_dependent_lines, article.exact_lines) if article else (0, 0)
    if by_form and not exact:
        return "same form"
    if by_form:
        return f"same, {counted(by_form, 'line')} by form"
    if record is not None and record.origin is Origin.WEIGHTS:  # GPT-2's weights, which random stand-ins lack
        return "same, weight-dependent lines by form"
    return "same"


def _cell(name: str, release: str, result: dict[str, Any], sections: list[str], record: Record | None) -> str:
    """ "same" (as `same` words it), or a link to a section (added to `sections`) holding the error or each line
    that differs."""
    if result["verdict"] == "same":
        return f"<td>{same(record)}</td>"
    target = visible(f"compat-{name.replace('/', '-')}-{release}")  # no "/": a fragment would read it as a path
    detail = [result["error"]] if result["verdict"] == "error" else []
    for line in result.get("lines", []):
        how = "weight values, compared by form" if line["compared"] == "by form" else "compared exactly"
        recorded, printed = ("(no such line)" if text is None else text for text in (line["recorded"], line["printed"]))
        detail.append(f"line {line['line']}, {how}\n  site:    {recorded}\n  printed: {printed}")
    text = visible("\n".join(detail))
    sections.append(
        f'<section id="{target}"><h3>{visible(name)}.py with transformers {visible(release)}: '
        f"{result['verdict']}</h3><pre><code>{text}</code></pre></section>"
    )
    return f'<td><a href="#{target}">{in_words(result)}</a></td>'


def render(view: View, records: Mapping[str, Record], repository: Repository | None, parts: Mapping[str, str]) -> str:
    """The `{{ compatibility }}` table: a column per release, a row per snippet grouped by part, then a line
    per release naming what it ran with, then a section per cell that is not "same"."""
    table, stale = view.table, view.unchecked
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
                _cell(name, release, table["snippets"][name]["results"][release], sections, records.get(name))
                for release in releases
            )
        return f'<tr><th scope="row">{source_link(name, repository, f"{name}.py")}</th>{cells}</tr>'

    bodies = grouped_rows(view.snippets, parts, "compat-part", 1 + span, row)
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

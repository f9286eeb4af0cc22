"""The whole record behind a recorded output, as HTML, read from its manifest entry.

Each output's one-line summary opens onto this record (`record_details`), and the
Provenance page lists every output's record as a row of one table (`record_table`),
grouped by part. Both show the same fields; the table, many records wide, shows each
hash by its first characters, the whole of it one click away. Every value comes from
`outputs/manifest.json`, which a hand edit can fill with anything, so every value is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mkdocs.utils import get_relative_url

from recorder.pinned import SNIPPETS_DIR
from recorder.repository import Repository

# Display names of the versions' keys; any other key is shown as it is.
_PACKAGE_LABELS = {"python": "Python"}
_NOT_APPLICABLE = "—"
# How many characters of a hash the Provenance table shows before its disclosure opens onto the rest.
SHORT_HASH = 12


@dataclass(frozen=True)
class Field:
    label: str
    value: str | None  # HTML; None where the field does not apply to this output


def source_href(name: str, page_url: str, repository: Repository | None) -> str:
    """Where `snippets/NAME.py` is: in the repository at the built commit, or else its copy in the site."""
    path = f"{SNIPPETS_DIR}/{name}.py"
    return repository.at_commit(path) if repository else get_relative_url(path, page_url)


LABELS = ("Origin", "Snippet and its imports", "Recorded output", "Model", "Published run",
          "Library versions", "Recorded")


def fields(entry: Mapping[str, Any], *, short_hashes: bool = False) -> list[Field]:
    """Every field of one output's record: always LABELS, in that order.

    With `short_hashes`, each hash shows its first SHORT_HASH characters and opens onto the whole.
    """
    published = entry.get("published")
    hash_ = _short_hash if short_hashes else _hash
    values = [
        _origin(entry),
        _hashes(entry.get("sources") or {}, hash_),
        _hashes({entry.get("output", ""): entry.get("output_sha256", "")}, hash_),
        _model(entry.get("model"), hash_),
        _published(published, entry) if published else None,
        _versions(entry.get("versions") or {}, checked=bool(published)),
        _recorded(entry),
    ]
    return [Field(label, value) for label, value in zip(LABELS, values, strict=True)]


def record_details(summary: str, entry: Mapping[str, Any]) -> str:
    """`summary` (HTML, with no link or other control in it) as a disclosure that opens onto the whole record."""
    rows = "".join(f"<dt>{field.label}</dt><dd>{field.value}</dd>"
                   for field in fields(entry) if field.value is not None)
    return (f'<details class="provenance-record"><summary>{summary}</summary>'
            f'<dl class="provenance-record__fields">{rows}</dl></details>')


def record_table(manifest: Mapping[str, Mapping[str, Any]], page_url: str,
                 repository: Repository | None, parts: Mapping[str, str]) -> str:
    """Every output's record, one row each, linked to the snippet's source: grouped by part, each
    group under a header row that names it as `parts` does (part -> title, in the order shown), and
    by snippet name within it.

    The page carries the scrolling container that MkDocs Material's script would otherwise
    build around a table without a class after load: moving this table into it made the
    browser lay the whole table out again, about 400 ms of blocking time on a phone.
    docs/stylesheets/outputs.css gives the table the look Material gives such tables.
    """
    head = "".join(f'<th scope="col">{label}</th>' for label in ("Snippet", *LABELS))
    groups: dict[str, list[str]] = {part: [] for part in parts}
    for name in sorted(manifest):
        groups.setdefault(name.rpartition("/")[0], []).append(name)
    bodies = []
    for part, names in groups.items():
        if not names:
            continue
        title = html.escape(parts.get(part) or part or SNIPPETS_DIR)
        rows = [f'<tr class="provenance-table__part"><th scope="rowgroup" colspan="{1 + len(LABELS)}">'
                f"{title}</th></tr>"]
        for name in names:
            href = html.escape(source_href(name, page_url, repository))
            cells = "".join(f"<td>{_NOT_APPLICABLE if field.value is None else field.value}</td>"
                            for field in fields(manifest[name], short_hashes=True))
            rows.append(f'<tr><th scope="row"><a href="{href}">{SNIPPETS_DIR}/{html.escape(name)}.py</a></th>'
                        f"{cells}</tr>")
        bodies.append(f"<tbody>{''.join(rows)}</tbody>")
    return (f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
            f'<table class="provenance-table"><thead><tr>{head}</tr></thead>'
            f"{''.join(bodies)}</table></div></div>")


def _code(value: Any) -> str:
    return f"<code>{html.escape(str(value))}</code>"


def _hash(digest: Any) -> str:
    # Breaks anywhere: a sha256 is one 64-character word, wider than a phone.
    return f'<code class="provenance-hash">{html.escape(str(digest))}</code>'


def _short_hash(digest: Any) -> str:
    """The hash's first SHORT_HASH characters, a disclosure that opens onto the whole of it."""
    text = str(digest)
    if len(text) <= SHORT_HASH:
        return _hash(text)
    return (f'<details class="provenance-digest"><summary><code>{html.escape(text[:SHORT_HASH])}…</code>'
            f"</summary>{_hash(text)}</details>")


def _hashes(files: Mapping[str, Any], hash_: Callable[[Any], str] = _hash) -> str:
    items = "".join(f"<li>{_code(path)} sha256 {hash_(digest)}</li>" for path, digest in files.items())
    return f'<ul class="provenance-files">{items}</ul>'


def _origin(entry: Mapping[str, Any]) -> str:
    if entry.get("origin") == "published":
        return "Article author's recorded run, not re-run by the build"
    return "Executed by the build step"


def _model(model: Mapping[str, Any] | None, hash_: Callable[[Any], str] = _hash) -> str:
    if not model:
        return "None"
    described = f"{_code(model.get('id'))} at revision {hash_(model.get('revision'))}"
    files = model.get("files")
    if not files:
        return described + ", not loaded by the build"
    if model.get("loaded") == "tokenizer":
        return f"{described}, its tokenizer only (no weights), loaded from these files: {_hashes(files, hash_)}"
    return f"{described}, loaded from these files: {_hashes(files, hash_)}"


def _published(published: Mapping[str, Any], entry: Mapping[str, Any]) -> str:
    reported = _listed(published.get("reported_with") or {})
    return (
        f"Reported with {reported}. Checked on {_time(entry.get('recorded_at'))} against stand-in checkpoints "
        f"with GPT-2's tokenizer: {html.escape(str(published.get('exact_lines')))} line(s) that do not depend "
        f"on weight values printed exactly, {html.escape(str(published.get('weight_dependent_lines')))} "
        "weight-dependent line(s) printed in the same form"
    )


def _versions(versions: Mapping[str, Any], *, checked: bool) -> str:
    listed = _listed(versions) if versions else "none recorded"
    return f"Of the check against stand-ins: {listed}" if checked else listed


def _listed(versions: Mapping[str, Any]) -> str:
    return ", ".join(f"{html.escape(_PACKAGE_LABELS.get(package, package))} {_code(version)}"
                     for package, version in versions.items())


def _recorded(entry: Mapping[str, Any]) -> str:
    when = _time(entry.get("recorded_at"))
    if entry.get("origin") == "published":
        return when
    return f"{when}, in {html.escape(str(entry.get('seconds')))} s"


def _time(moment: Any) -> str:
    text = html.escape(str(moment))
    return f'<time datetime="{text}">{text}</time>'

"""An output's provenance, worded once (`Origin`) for its line and record, the Provenance table, the notebooks and
`make diff`. A hand edit can fill `outputs/manifest.json` with anything: every value is escaped, none assumed there."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from recorder.pinned import GENERATED, SNIPPETS_DIR, WEIGHTS_FILE, short
from recorder.repository import Repository

NOT_RERUN = "not run against GPT-2 by the record step"
# What the published outputs are checked against (`recorder.record.published.create_stand_ins`), as every page words it.
STAND_IN = "GPT-2's configuration with one layer, its real tokenizer, random weights"
STAND_INS = f"two stand-in models ({STAND_IN})"
# What a snippet that builds its own models runs on (`Loads` "configuration"), as every page words it.
RANDOM_MODELS = "models built from GPT-2's configuration, without its trained weights"
# The versions a reader needs to reproduce an output, in the order its line names them; its record names all.
_LINE_VERSIONS = ("transformers", "torch", "python")
NAMES = {"python": "Python"}  # how a package is named where it is not by its own name
SHORT_HASH = 12  # the characters of a hash the Provenance table shows until a reader focuses it
LABELS = ("Origin", "Snippet and its imports", "Recorded output", "Model", "Published run", "Library versions", "When")


def _time(moment: Any) -> str:
    text = html.escape(str(moment))
    return f'<time datetime="{text}">{text}</time>'


def _cite(title: str) -> str:
    return f"<cite>{html.escape(title)}</cite>"


def _code(text: Any) -> str:
    return f"<code>{html.escape(str(text))}</code>"


def emphasis(title: str) -> str:
    """A title in Markdown, as the notebook and `make diff` write what a page puts in <cite>."""
    return f"*{title}*"


def backticks(text: Any) -> str:
    """A name or hash as Markdown code: how the notebook and `make diff` write what a page puts in <code>."""
    return f"`{text}`"


@dataclass(frozen=True)
class Origin:
    """Who produced an output, on what of GPT-2, with which versions, when: its manifest entry, read once."""

    # "published" (the article's run), "weights", "configuration" (models built from GPT-2's configuration, with
    # random weights), "tokenizer", or None: no model
    kind: str | None
    model: Mapping[str, Any]  # id, revision and files (name -> sha256); empty without a model
    versions: Mapping[str, Any]  # what it ran with; for the published run, what the article states, if anything
    recorded_at: str  # for the published run: when it was checked here against the stand-ins
    published: Mapping[str, Any]  # the article's title, what it states, the check against stand-ins; else empty

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Origin:
        model, recorded_at = entry.get("model") or {}, str(entry.get("recorded_at"))
        if entry.get("origin") == "published":
            published = entry.get("published") or {}
            stated = {what: version for what, version in (published.get("stated") or {}).items() if what != "revision"}
            return cls("published", model, stated, recorded_at, published)
        return cls(
            model.get("loaded", "weights") if model else None, model, entry.get("versions") or {}, recorded_at, {}
        )

    def who(self, cite: Callable[[str], str] = _cite) -> str:
        if self.kind != "published":
            return "Executed by the record step"
        shown = "Stated in the prose of the article" if self.prose else "Published in the article"
        return f"{shown} {cite(str(self.published.get('article')))}"

    @property
    def prose(self) -> str | None:
        """The sentence the article states the output in, where it does not print it."""
        return self.published.get("prose") or None

    @property
    def stated_revision(self) -> str | None:
        """The revision the article states for this output, if it states one."""
        return (self.published.get("stated") or {}).get("revision")

    @property
    def stand_ins_showed(self) -> str:
        """What running the snippet against the stand-ins showed of the published output: every line, or only
        the form of the lines that depend on weight values, which random weights cannot reproduce."""
        exact, by_form = (line_count(self.published, key) for key in ("exact_lines", "weight_dependent_lines"))
        if exact is None or by_form is None:
            return "checked against the stand-ins, with counts this record does not hold"
        if not by_form:
            return "every line reproduced by the stand-ins"
        if not exact:
            return "form only: every line depends on weight values, so the stand-ins reproduced none of them"
        return (
            f"{counted(exact, 'line')} reproduced by the stand-ins, "
            f"and the form only of {counted(by_form, 'weight-dependent line')}"
        )

    def gpt2(self, code: Callable[[Any], str] = _code) -> str:
        """What of GPT-2 it ran on, names and hashes written by `code`; only what the build checked is verified."""
        if not self.model:
            return "no model"
        if self.kind == "published":  # the revision the article states, if any: the build loaded nothing
            model_id, revision = self.model.get("id"), self.stated_revision
            return f"GPT-2 {code(model_id if revision is None else f'{model_id}@{short(str(revision))}')}"
        pinned = code(f"{self.model.get('id')}@{short(str(self.model.get('revision')))}")
        files = self.model.get("files") or {}
        if self.kind == "tokenizer":
            return f"GPT-2's tokenizer {pinned}, {' and '.join(map(code, files))} sha256 verified"
        if self.kind == "configuration":
            tokenizer = f", and GPT-2's tokenizer {pinned}, {' and '.join(map(code, files))} sha256 verified"
            return f"{RANDOM_MODELS}{tokenizer if files else ''}"
        if self.kind == "weights":
            return f"GPT-2 {pinned}, weights sha256 {code(str(files.get(WEIGHTS_FILE))[:SHORT_HASH] + '…')} verified"
        return f"GPT-2 {pinned}"

    def line(self, *, markdown: bool = False) -> str:
        """Who · on what · versions; in Markdown (the notebook's) without the day, so the notebook holds still."""
        text, code, day = (str, backticks, "") if markdown else (html.escape, _code, _time(self.recorded_at[:10]))
        named = self._line_versions(text)
        shown = [self._line_who(markdown, day), self.gpt2(code), *named]
        if self.kind != "published":
            return " · ".join(shown)
        if named or self.stated_revision:  # what the article states for this output, and only for it
            shown[-1] += ", as the article states"
        return " · ".join([*shown, f"{NOT_RERUN}; checked here{f' on {day}' if day else ''}: {self.stand_ins_showed}"])

    def _line_who(self, markdown: bool, day: str) -> str:
        """Who; in HTML, in bold, then the day, but for a published output: its line ends on the day it was checked."""
        if markdown:
            return self.who(emphasis)
        return f"<strong>{self.who(_cite)}</strong>" + ("" if self.kind == "published" else f" on {day}")

    def _line_versions(self, text: Callable[[str], str]) -> list[str]:
        """Each of the versions the line names that the output has, as `text` writes it."""
        return [
            f"{NAMES.get(package, package)} {text(str(self.versions[package]))}"
            for package in _LINE_VERSIONS
            if self.versions.get(package)
        ]


def origins(manifest: Mapping[str, Mapping[str, Any]], parts: Mapping[str, str], part: str | None) -> str:
    """Where the recorded outputs of `part` (of every part, if None) come from, as their records say, as a
    paragraph: what a page says of its outputs' origins follows the manifest the build reads, never a typed claim."""
    names = [name for name in manifest if part is None or name.rpartition("/")[0] == part]
    clauses = _origin_clauses([Origin.of(manifest[name]) for name in names])
    listed = clauses[0] if len(clauses) == 1 else f"{'; '.join(clauses[:-1])}; and {clauses[-1]}"
    where = f"for {html.escape(parts.get(part, part))}" if part else "on this site"
    outputs = "output" if len(names) == 1 else "outputs"
    return (
        f'<p class="recorded-origins">Of the {len(names)} {outputs} recorded {where}, {listed}. The line under '
        "each output says which, and opens onto its record.</p>"
    )


def _origin_clauses(found: list[Origin]) -> list[str]:
    """For each kind of origin that some of `found` have, how many have it, and what that means."""
    kinds = Counter(origin.kind for origin in found)
    article = next((str(origin.published.get("article")) for origin in found if origin.kind == "published"), "")
    in_prose = _in_prose(sum(1 for origin in found if origin.prose), kinds["published"])
    return [
        f"{kinds[kind]} {one if kinds[kind] == 1 else several}"
        for kind, (one, several) in _origin_kinds(article, in_prose).items()
        if kinds[kind]
    ]


def _in_prose(count: int, published: int) -> str:
    """How many of the `published` outputs the article states in a sentence instead of printing them."""
    if not count:
        return ""
    if published == 1:
        return " (stated in the article's prose rather than printed, and written out as its snippet prints it)"
    written = "its snippet prints it" if count == 1 else "their snippets print them"
    return f" ({count} of them stated in the article's prose rather than printed, and written out as {written})"


def _origin_kinds(article: str, in_prose: str) -> dict[str | None, tuple[str, str]]:
    """What the outputs of each kind of origin are, as (one, several), in the order a paragraph names them."""
    return {
        None: (
            "comes from a snippet the record step ran with no model",
            "come from snippets the record step ran with no model",
        ),
        "tokenizer": (
            "comes from a snippet the record step ran with GPT-2's tokenizer alone",
            "come from snippets the record step ran with GPT-2's tokenizer alone",
        ),
        "configuration": (
            f"comes from a snippet the record step ran on {RANDOM_MODELS} (no trained weights)",
            f"come from snippets the record step ran on {RANDOM_MODELS} (no trained weights)",
        ),
        "weights": (
            "comes from a snippet the record step ran against GPT-2's weights, their sha256 verified",
            "come from snippets the record step ran against GPT-2's weights, their sha256 verified",
        ),
        "published": (
            f"was published in the article {_cite(article)}{in_prose}: the record step did not run its snippet "
            f"against GPT-2, and checked it against {STAND_INS} instead",
            f"were published in the article {_cite(article)}{in_prose}: the record step did not run their snippets "
            f"against GPT-2, and checked them against {STAND_INS} instead",
        ),
    }


def counted(number: int, noun: str) -> str:
    """The number and the noun, plural unless the number is one."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def line_count(published: Mapping[str, Any], key: str) -> int | None:
    """A count of the published check's lines, or None where a hand edit left something else."""
    value = published.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def source_link(name: str, repository: Repository | None, label: str | None = None) -> str:
    """A link to `snippets/NAME.py`: in the repository at the built commit, or else to its copy in the site."""
    path = f"{SNIPPETS_DIR}/{name}.py"
    href = repository.at_commit(path) if repository else f"{GENERATED}/{path}"
    return f'<a href="{html.escape(href)}">{html.escape(label or path)}</a>'


def caption(entry: Mapping[str, Any], name: str, repository: Repository | None) -> str:
    """The line under an output, which opens onto its whole record, then its source: outside the <summary>, as
    screen readers cannot reach a control nested in a control."""
    rows = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in fields(entry) if value is not None)
    return (
        f'<details class="provenance-record"><summary>{Origin.of(entry).line()}</summary>'
        f'<dl class="provenance-record__fields">{rows}</dl></details> · '
        f"Source: {source_link(name, repository)}"
    )


def grouped_rows(
    names: Iterable[str], parts: Mapping[str, str], group_class: str, columns: int, row: Callable[[str], str]
) -> str:
    """A <tbody> per part, in the order of `parts` (part -> title), then any other's folder: its title across
    `columns`, then `row(name)` for each of its snippets. The Provenance and compatibility tables group so."""
    groups: dict[str, list[str]] = {part: [] for part in parts}
    for name in names:
        groups.setdefault(name.rpartition("/")[0], []).append(name)
    return "".join(
        f'<tbody><tr class="{group_class}"><th scope="rowgroup" colspan="{columns}">'
        f"{html.escape(parts.get(part) or part or SNIPPETS_DIR)}</th></tr>{''.join(map(row, found))}</tbody>"
        for part, found in groups.items()
        if found
    )


def record_table(
    manifest: Mapping[str, Mapping[str, Any]], repository: Repository | None, parts: Mapping[str, str]
) -> str:
    """Every output's record, a row each, grouped by part, in the scrolling container Material's script would
    build around it after load, at the cost of laying the table out again (400 ms of blocking time on a phone)."""

    def row(name: str) -> str:
        cells = "".join(
            f"<td>{'—' if value is None else value}</td>" for _, value in fields(manifest[name], short_hashes=True)
        )
        return f'<tr><th scope="row">{source_link(name, repository)}</th>{cells}</tr>'

    head = "".join(f'<th scope="col">{label}</th>' for label in ("Snippet", *LABELS))
    bodies = grouped_rows(sorted(manifest), parts, "provenance-table__part", 1 + len(LABELS), row)
    return (
        f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
        f'<table class="provenance-table"><thead><tr>{head}</tr></thead>{bodies}</table></div></div>'
    )


def fields(entry: Mapping[str, Any], *, short_hashes: bool = False) -> list[tuple[str, str | None]]:
    """Each of LABELS with its field of the record as HTML, or None where it does not apply."""
    origin, published = Origin.of(entry), entry.get("published")
    versions = _versions(entry.get("versions") or {}) or "none recorded"
    recorded = _time(entry.get("recorded_at"))
    run = _published_run(published, origin, recorded, short_hashes) if published else None
    values = [
        f"{origin.who()}, {NOT_RERUN}" if origin.kind == "published" else origin.who(),
        _hashes(entry.get("sources") or {}, short_hashes),
        _hashes({entry.get("output", ""): entry.get("output_sha256", "")}, short_hashes),
        _model(origin, short_hashes),
        run,
        f"Of the check against stand-ins: {versions}" if run else versions,
        f"Checked here on {recorded}"
        if origin.kind == "published"
        else f"Recorded on {recorded}, in {html.escape(str(entry.get('seconds')))} s",
    ]
    return list(zip(LABELS, values, strict=True))


def _published_run(published: Mapping[str, Any], origin: Origin, recorded: str, short: bool) -> str:
    """How the article shows the output (printed, or stated in a sentence), what it states for it, where it was
    copied to, and what checking it showed."""
    article, text = _cite(str(published.get("article"))), _code(published.get("text"))
    stated = _versions(published.get("stated") or {}, short) or "no revision or version"
    if origin.prose:
        shown = (
            f"Stated in the prose of the article {article} (“{html.escape(str(origin.prose))}”), which states {stated} "
            f"for it; written out as the snippet prints it in {text}"
        )
    else:
        shown = f"Printed in the article {article}, which states {stated} for it; copied to {text}"
    return (
        f"{shown}. Checked here on {recorded} against {STAND_INS}: {origin.stand_ins_showed}{_line_counts(published)}"
    )


def _line_counts(published: Mapping[str, Any]) -> str:
    """The published check's counts, in brackets, where the record holds both."""
    exact, by_form = (line_count(published, key) for key in ("exact_lines", "weight_dependent_lines"))
    if exact is None or by_form is None:
        return ""
    return f" ({counted(exact, 'line')} equal, {counted(by_form, 'line')} compared by form)"


def _hash(digest: Any, short: bool) -> str:
    """The hash, which breaks anywhere (a sha256 is wider than a phone); `short`, shown by its start until a reader
    focuses it (docs/stylesheets/outputs.css), the whole of it in its text and its tooltip."""
    text = html.escape(str(digest))
    if not short or len(str(digest)) <= SHORT_HASH:
        return f'<code class="provenance-hash">{text}</code>'
    return f'<code class="provenance-hash provenance-hash--short" tabindex="0" title="{text}">{text}</code>'


def _hashes(files: Mapping[str, Any], short: bool) -> str:
    items = "".join(f"<li>{_code(path)} sha256 {_hash(digest, short)}</li>" for path, digest in files.items())
    return f'<ul class="provenance-files">{items}</ul>'


def _model(origin: Origin, short: bool) -> str:
    if not origin.model:
        return origin.gpt2()
    described = f"{_code(origin.model.get('id'))} at revision {_hash(origin.model.get('revision'), short)}"
    files = origin.model.get("files")
    if origin.kind == "published":
        stated = origin.stated_revision
        return f"{described} in the snippet, not loaded by the record step; the article states " + (
            "no revision for this output" if stated is None else f"revision {_hash(stated, short)}"
        )
    if origin.kind == "configuration":  # none of GPT-2's weights: its tokenizer's files at most
        if not files:
            return f"{RANDOM_MODELS}; no file of {described} loaded"
        return f"{RANDOM_MODELS}; {described}, its tokenizer only, loaded from these files: {_hashes(files, short)}"
    if not files:
        return f"{described}, not loaded by the record step"
    only = "its tokenizer only (no weights), " if origin.kind == "tokenizer" else ""
    return f"{described}, {only}loaded from these files: {_hashes(files, short)}"


def _versions(versions: Mapping[str, Any], short: bool = False) -> str:
    """Each package with its version; a revision (which the article may state) as a hash."""
    return ", ".join(
        f"revision {_hash(version, short)}"
        if what == "revision"
        else f"{html.escape(NAMES.get(what, what))} {_code(version)}"
        for what, version in versions.items()
    )

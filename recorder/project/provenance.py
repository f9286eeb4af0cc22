"""An output's provenance, worded once from its `Record`: the line under it and the whole record it opens onto, the
Provenance table, the count of origins, the notebooks and `make diff`. Every value is escaped where it is HTML."""

import html
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from recorder.project.config import GENERATED, SNIPPETS_DIR
from recorder.project.gpt2 import WEIGHTS_FILE, short
from recorder.project.manifest import Article, Origin, Record
from recorder.project.repository import Repository

NOT_RERUN = "not run against GPT-2 by the record step"
# What the published outputs are checked against (`recorder.record.article.create_stand_ins`), as every page words it.
STAND_IN = "GPT-2's configuration with one layer, its real tokenizer, random weights"
STAND_INS = f"two stand-in models ({STAND_IN})"
# What a snippet that builds its own models runs on (Origin.CONFIGURATION), as every page words it.
RANDOM_MODELS = "models built from GPT-2's configuration, without its trained weights"
# The versions a reader needs to reproduce an output, in the order its line names them; its record names all.
_LINE_VERSIONS = ("transformers", "torch", "python")
NAMES = {"python": "Python"}  # how a package is named where it is not by its own name
SHORT_HASH = 12  # the characters of a hash the Provenance table shows until a reader focuses it
LABELS = ("Origin", "Snippet and its imports", "Recorded output", "Model", "Published run", "Library versions", "When")
# What the record step ran each kind of executed output on, in the order a paragraph counting them names them.
_ORIGINS = {
    Origin.NO_MODEL: "ran with no model",
    Origin.TOKENIZER: "ran with GPT-2's tokenizer alone",
    Origin.CONFIGURATION: f"ran on {RANDOM_MODELS} (no trained weights)",
    Origin.WEIGHTS: "ran against GPT-2's weights, their sha256 verified",
}


def _time(moment: str) -> str:
    text = html.escape(moment)
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


def counted(number: int, noun: str) -> str:
    """The number and the noun, plural unless the number is one."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def who(record: Record, cite: Callable[[str], str] = _cite) -> str:
    if record.article is None:
        return "Executed by the record step"
    said = "Stated in the prose of the article" if record.article.prose else "Published in the article"
    return f"{said} {cite(record.article.title)}"


def stand_ins_showed(article: Article) -> str:
    """What running the snippet against the stand-ins showed of the article's output: every line, or only the form
    of the lines that depend on weight values, which random weights cannot reproduce."""
    exact, by_form = article.exact_lines, article.weight_dependent_lines
    if not by_form:
        return "every line reproduced by the stand-ins"
    if not exact:
        return "form only: every line depends on weight values, so the stand-ins reproduced none of them"
    return (
        f"{counted(exact, 'line')} reproduced by the stand-ins, "
        f"and the form only of {counted(by_form, 'weight-dependent line')}"
    )


def on_what(record: Record, code: Callable[[Any], str] = _code) -> str:
    """What of GPT-2 it ran on, names and hashes written by `code`; only what the record step checked is verified."""
    model = record.model
    if model is None:
        return "no model"
    if record.article is not None:  # the revision the article states, if any: the record step loaded nothing
        revision = record.article.revision
        return f"GPT-2 {code(model.id if revision is None else f'{model.id}@{short(revision)}')}"
    pinned, files = code(f"{model.id}@{short(model.revision)}"), " and ".join(map(code, model.files))
    if record.origin is Origin.TOKENIZER:
        return f"GPT-2's tokenizer {pinned}, {files} sha256 verified"
    if record.origin is Origin.CONFIGURATION:
        return RANDOM_MODELS + (f", and GPT-2's tokenizer {pinned}, {files} sha256 verified" if model.files else "")
    return f"GPT-2 {pinned}, weights sha256 {code(model.files.get(WEIGHTS_FILE, '')[:SHORT_HASH] + '…')} verified"


def line(record: Record, *, markdown: bool = False) -> str:
    """Who · on what · versions; in Markdown (the notebook's) without the day, so the notebook holds still."""
    text, code, day = (str, backticks, "") if markdown else (html.escape, _code, _time(record.recorded_at[:10]))
    versions = record.article.stated if record.article else record.versions  # the article's statement, or the run's
    named = [
        f"{NAMES.get(package, package)} {text(version)}"
        for package in _LINE_VERSIONS
        if (version := versions.get(package))
    ]
    said = who(record, emphasis) if markdown else f"<strong>{who(record)}</strong>"
    if record.article is None:
        return " · ".join([said + ("" if markdown else f" on {day}"), on_what(record, code), *named])
    return _article_line(record.article, [said, on_what(record, code), *named], stated=bool(named), day=day)


def _article_line(article: Article, parts: list[str], *, stated: bool, day: str) -> str:
    """The line of an output taken from the article, from `parts` (who, on what, the versions the article states, if
    `stated`): whether the article states them, and what checking it here showed (on `day`, where it is given)."""
    if stated or article.revision:  # what the article states for this output, and only for it
        parts[-1] += ", as the article states"
    checked = f"checked here{f' on {day}' if day else ''}: {stand_ins_showed(article)}"
    return " · ".join([*parts, f"{NOT_RERUN}; {checked}"])


def origins(records: Mapping[str, Record], parts: Mapping[str, str], part: str | None) -> str:
    """Where the recorded outputs of `part` (of every part, if None) come from, as their records say, as a
    paragraph: what a page says of its outputs' origins follows the records the build reads, never a typed claim."""
    selected = [record for name, record in records.items() if part is None or name.rpartition("/")[0] == part]
    clauses = _origin_clauses(selected)
    listed = clauses[0] if len(clauses) == 1 else f"{'; '.join(clauses[:-1])}; and {clauses[-1]}"
    where = f"for {html.escape(parts.get(part, part))}" if part else "on this site"
    return (
        f'<p class="recorded-origins">Of the {counted(len(selected), "output")} recorded {where}, {listed}. The line '
        "under each output says which, and opens onto its record.</p>"
    )


def _origin_clauses(selected: list[Record]) -> list[str]:
    """For each origin that some of `selected` have, how many have it, and what that means."""
    kinds = Counter(record.origin for record in selected)
    clauses = [
        f"{kinds[origin]} {'comes from a snippet' if kinds[origin] == 1 else 'come from snippets'} the record "
        f"step {ran}"
        for origin, ran in _ORIGINS.items()
        if kinds[origin]
    ]
    articles = [record.article for record in selected if record.article is not None]
    return clauses + ([_from_the_article(articles)] if articles else [])


def _from_the_article(articles: list[Article]) -> str:
    """How many outputs were taken from the article, how many of them it states in its prose, and how they were
    checked."""
    prose = sum(1 for article in articles if article.prose)
    one = len(articles) == 1
    if not prose:
        in_prose = ""
    elif one:
        in_prose = " (stated in the article's prose rather than printed, and written out as its snippet prints it)"
    else:
        written = "its snippet prints it" if prose == 1 else "their snippets print them"
        in_prose = f" ({prose} of them stated in the article's prose rather than printed, and written out as {written})"
    was, its, it = ("was", "its snippet", "it") if one else ("were", "their snippets", "them")
    return (
        f"{len(articles)} {was} published in the article {_cite(articles[0].title)}{in_prose}: the record step did "
        f"not run {its} against GPT-2, and checked {it} against {STAND_INS} instead"
    )


def source_link(name: str, repository: Repository | None, label: str | None = None) -> str:
    """A link to `snippets/NAME.py`: in the repository at the built commit, or else to its copy in the site."""
    path = f"{SNIPPETS_DIR}/{name}.py"
    href = repository.at_commit(path) if repository else f"{GENERATED}/{path}"
    return f'<a href="{html.escape(href)}">{html.escape(label or path)}</a>'


def caption(record: Record, name: str, repository: Repository | None) -> str:
    """The line under an output, which opens onto its whole record, then its source: outside the <summary>, as
    screen readers cannot reach a control nested in a control."""
    rows = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in fields(record) if value is not None)
    return (
        f'<details class="provenance-record"><summary>{line(record)}</summary>'
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
        f"{html.escape(parts.get(part) or part or SNIPPETS_DIR)}</th></tr>{''.join(map(row, selected))}</tbody>"
        for part, selected in groups.items()
        if selected
    )


def provenance_table(records: Mapping[str, Record], repository: Repository | None, parts: Mapping[str, str]) -> str:
    """Every output's record, a row each, grouped by part, in the scrolling container Material's script would
    build around it after load, at the cost of laying the table out again (400 ms of blocking time on a phone)."""

    def row(name: str) -> str:
        cells = "".join(
            f"<td>{'—' if value is None else value}</td>" for _, value in fields(records[name], short_hashes=True)
        )
        return f'<tr><th scope="row">{source_link(name, repository)}</th>{cells}</tr>'

    head = "".join(f'<th scope="col">{label}</th>' for label in ("Snippet", *LABELS))
    bodies = grouped_rows(sorted(records), parts, "provenance-table__part", 1 + len(LABELS), row)
    return (
        f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
        f'<table class="provenance-table"><thead><tr>{head}</tr></thead>{bodies}</table></div></div>'
    )


def fields(record: Record, *, short_hashes: bool = False) -> list[tuple[str, str | None]]:
    """Each of LABELS with its field of the record as HTML, or None where it does not apply."""
    versions = _versions(record.versions) or "none recorded"
    recorded = _time(record.recorded_at)
    run = _article_run(record.article, recorded, short_hashes) if record.article else None
    values = [
        f"{who(record)}, {NOT_RERUN}" if record.article else who(record),
        _hashes(record.sources, short_hashes),
        _hashes({record.output: record.output_sha256}, short_hashes),
        _model(record, short_hashes),
        run,
        f"Of the check against stand-ins: {versions}" if run else versions,
        f"Checked here on {recorded}" if record.article else f"Recorded on {recorded}, in {record.seconds} s",
    ]
    return list(zip(LABELS, values, strict=True))


def _article_run(article: Article, recorded: str, short: bool) -> str:
    """How the article shows the output (printed, or stated in a sentence), what it states for it, where it was
    copied to, and what checking it showed."""
    title, text = _cite(article.title), _code(article.text)
    stated = _versions(article.stated, short) or "no revision or version"
    if article.prose:
        printed = (
            f"Stated in the prose of the article {title} (“{html.escape(article.prose)}”), which states {stated} "
            f"for it; written out as the snippet prints it in {text}"
        )
    else:
        printed = f"Printed in the article {title}, which states {stated} for it; copied to {text}"
    counts = f"{counted(article.exact_lines, 'line')} equal, {counted(article.weight_dependent_lines, 'line')}"
    return (
        f"{printed}. Checked here on {recorded} against {STAND_INS}: {stand_ins_showed(article)} "
        f"({counts} compared by form)"
    )


def _hash(digest: str, short: bool) -> str:
    """The hash, which breaks anywhere (a sha256 is wider than a phone); `short`, shown by its start until a reader
    focuses it (docs/stylesheets/outputs.css), the whole of it in its text and its tooltip."""
    text = html.escape(digest)
    if not short or len(digest) <= SHORT_HASH:
        return f'<code class="provenance-hash">{text}</code>'
    return f'<code class="provenance-hash provenance-hash--short" tabindex="0" title="{text}">{text}</code>'


def _hashes(files: Mapping[str, str], short: bool) -> str:
    items = "".join(f"<li>{_code(path)} sha256 {_hash(digest, short)}</li>" for path, digest in files.items())
    return f'<ul class="provenance-files">{items}</ul>'


def _model(record: Record, short: bool) -> str:
    model = record.model
    if model is None:
        return on_what(record)
    described = f"{_code(model.id)} at revision {_hash(model.revision, short)}"
    if record.article is not None:
        stated = record.article.revision
        return f"{described} in the snippet, not loaded by the record step; the article states " + (
            "no revision for this output" if stated is None else f"revision {_hash(stated, short)}"
        )
    if record.origin is Origin.CONFIGURATION:  # none of GPT-2's weights: its tokenizer's files at most
        if not model.files:
            return f"{RANDOM_MODELS}; no file of {described} loaded"
        files = _hashes(model.files, short)
        return f"{RANDOM_MODELS}; {described}, its tokenizer only, loaded from these files: {files}"
    only = "its tokenizer only (no weights), " if record.origin is Origin.TOKENIZER else ""
    return f"{described}, {only}loaded from these files: {_hashes(model.files, short)}"


def _versions(versions: Mapping[str, str | None], short: bool = False) -> str:
    """Each package with its version; a revision (which the article may state) as a hash."""
    return ", ".join(
        f"revision {_hash(str(version), short)}"
        if what == "revision"
        else f"{html.escape(NAMES.get(what, what))} {_code(version)}"
        for what, version in versions.items()
    )

"""`python -m recorder diff [BASE]`: what changed in the recorded outputs since a git ref, as Markdown
that reads the same in a terminal and in a GitHub job summary."""

from __future__ import annotations

import difflib
import html
import re
import subprocess
from pathlib import Path
from typing import NamedTuple

from recorder.project import manifest
from recorder.project.errors import RecorderError
from recorder.project.manifest import MANIFEST_NAME, OUTPUTS_DIR, Record, output_path
from recorder.project.provenance import backticks, counted, emphasis, on_what, who

UPSTREAM = "origin/main"
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_LINES = re.compile(r"[^\n]*\n|[^\n]+\Z")


class Outputs(NamedTuple):
    """The recorded outputs at one point: their records and texts, by snippet name."""

    records: dict[str, Record]
    texts: dict[str, str]


def in_tree(root: Path) -> Outputs:
    records = manifest.read(root)
    return Outputs(
        records,
        {
            name: path.read_text(encoding="utf-8", errors="replace")
            for name in records
            if (path := output_path(root, name)).exists()
        },
    )


def at_ref(root: Path, ref: str) -> Outputs:
    """The outputs committed at `ref`; none when it has no manifest."""

    def read(path: str) -> bytes | None:
        blob = _git(root, "cat-file", "blob", f"{ref}:./{OUTPUTS_DIR}/{path}")
        return blob.stdout if blob.returncode == 0 else None

    committed = read(MANIFEST_NAME)
    fix = "Compare with another commit: `python -m recorder diff REF`."
    records = {} if committed is None else manifest.parse(committed, f"{ref}:{OUTPUTS_DIR}/{MANIFEST_NAME}", fix)
    return Outputs(
        records,
        {name: text.decode("utf-8", errors="replace") for name in records if (text := read(f"{name}.txt")) is not None},
    )


def report(root: Path, ref: str | None = None) -> str:
    """The working tree against `ref`; by default against the merge base with origin/main, else HEAD."""
    repository = _git(root, "rev-parse", "--git-dir")
    if repository.returncode != 0:
        raise RecorderError(
            f"{root} is not a git repository git can read ({repository.stderr.decode().strip()}). "
            "`python -m recorder diff` compares outputs/ with a commit: run it in a clone of the "
            "project."
        )
    if ref is None and _short(root, UPSTREAM):
        base = _short(root, _git(root, "merge-base", UPSTREAM, "HEAD").stdout.decode().strip())
        if not base:
            raise RecorderError(
                f"HEAD and {UPSTREAM} in {root} have no commit in common. "
                "Pass the ref to compare with: `make diff BASE=REF`."
            )
        label = f"the merge base with `{UPSTREAM}` (`{base}`)"
    else:
        base = ref or "HEAD"
        label = f"`{base}`"
        if not _short(root, base):
            fix = (
                "Commit something first, or pass a ref: `make diff BASE=REF`."
                if ref is None
                else "Pass a branch, tag or commit that exists (`git fetch` a remote one first), "
                "e.g. `make diff BASE=HEAD~1`."
            )
            raise RecorderError(f"`{base}` is not a commit of the git repository at {root}. {fix}")
    return render(at_ref(root, base), in_tree(root), label, before_name=base)


def render(before: Outputs, after: Outputs, label: str, *, before_name: str = "before") -> str:
    """Every output whose text or provenance differs between `before` and `after`."""
    sections = [
        section
        for name in sorted(before.records.keys() | after.records.keys())
        if (section := _section(name, before, after, before_name))
    ]
    if not sections:
        return f"No recorded output changed since {label}.\n"
    return "\n".join([f"## {counted(len(sections), 'recorded output')} changed since {label}\n", *sections])


def _section(name: str, before: Outputs, after: Outputs, before_name: str) -> str | None:
    old, new = before.texts.get(name), after.texts.get(name)
    table = _provenance_table(before.records.get(name), after.records.get(name))
    if old == new and not table:
        return None
    path = f"{OUTPUTS_DIR}/{name}.txt"
    body = (
        "Same text; its provenance changed."
        if old == new
        else _figure_change(old, new) or _unified(old, new, f"{before_name}:{path}", path)
    )
    what = "added" if old is None else "removed" if new is None else "changed"
    return "\n\n".join([f"### `{name}`: {what}", body, *([table] if table else [])]) + "\n"


def _figure_change(old: str | None, new: str | None) -> str | None:
    """How a figure (an SVG) changed, named by its title; None when neither text is a figure."""
    if not any(text is not None and text.lstrip().startswith("<svg") for text in (old, new)):
        return None
    was, now = _title(old), _title(new)
    if old is None:
        return f"New figure: {now}."
    if new is None:
        return f"Removed figure: {was}."
    return f"Figure {now} changed." if was == now else f"Figure changed: was {was}, now {now}."


def _title(text: str | None) -> str:
    title = _TITLE.search(text or "")
    return f"“{html.unescape(title.group(1)).strip()}”" if title else "a figure without a <title>"


def _unified(old: str | None, new: str | None, old_name: str, new_name: str) -> str:
    """A unified diff that, like git's, marks a last line without a newline; fenced so no backticks in it close it."""
    lines = difflib.unified_diff(
        _LINES.findall(old or ""),
        _LINES.findall(new or ""),
        "/dev/null" if old is None else old_name,
        "/dev/null" if new is None else new_name,
    )
    text = "".join(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n" for line in lines)
    fence = "`" * max(3, 1 + max(map(len, re.findall(r"`+", text)), default=0))
    return f"{fence}diff\n{text}{fence}"


def _provenance(record: Record | None) -> dict[str, str]:
    """Where an output came from, fact by fact, in Markdown: who ran it on what of GPT-2, worded as the line
    under it on the site, then the sha256 of each file of GPT-2 it loaded and each library's version."""
    if record is None:
        return {}
    article = record.article
    stated = article.stated if article else {}
    facts = {
        "origin": f"{who(record, emphasis)} · {on_what(record, backticks)}",
        **{f"the article states its {what}": backticks(value) for what, value in stated.items()},
        **({"the article states it as": f"“{article.prose}”"} if article and article.prose else {}),
        **{
            f"sha256 of {file}": backticks(digest)
            for file, digest in sorted((record.model.files if record.model else {}).items())
        },
        **{library: backticks(version) for library, version in record.versions.items()},
    }
    # A pipe would end the table cell, even inside backticks.
    return {fact: value.replace("|", "\\|") for fact, value in facts.items()}


def _provenance_table(old: Record | None, new: Record | None) -> str:
    before, after = _provenance(old), _provenance(new)
    rows = [
        f"| {fact} | {before.get(fact, '—')} | {after.get(fact, '—')} |"
        for fact in {**before, **after}
        if before.get(fact) != after.get(fact)
    ]
    return "\n".join(["| provenance | before | after |", "| --- | --- | --- |", *rows]) if rows else ""


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except FileNotFoundError:
        raise RecorderError(
            "git is not installed, and `python -m recorder diff` reads the outputs to compare "
            "with from git. Install git (`apt-get install git`), then run it again."
        ) from None


def _short(root: Path, ref: str) -> str:
    """The shortest unambiguous name of the commit `ref` names, or "" when it names none."""
    return _git(root, "rev-parse", "--verify", "--quiet", "--short", f"{ref}^{{commit}}").stdout.decode().strip()

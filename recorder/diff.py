"""`python -m recorder diff [BASE]`: what changed in the recorded outputs since a git ref, as Markdown.

Each changed, added or removed output gets a heading, a unified diff of its
text (a figure, which is SVG, is named by its title instead) and a table of
what changed in its provenance, read from the two manifests. The Markdown
reads the same in a terminal and in a GitHub job summary.
"""

from __future__ import annotations

import difflib
import html
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recorder import store
from recorder.errors import RecorderError
from recorder.pinned import MANIFEST_NAME, OUTPUTS_DIR
from recorder.provenance import Origin, backticks

UPSTREAM = "origin/main"
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_LINES = re.compile(r"[^\n]*\n|[^\n]+\Z")


class DiffError(RecorderError):
    """git cannot give the outputs to compare with; the message names the cause and the fix."""


@dataclass(frozen=True)
class Outputs:
    """The recorded outputs at one point: manifest entries and texts, by snippet name."""

    entries: dict[str, dict[str, Any]]
    texts: dict[str, str]


def in_tree(root: Path) -> Outputs:
    """The outputs as they are in the working tree."""
    entries = store.read_manifest(root)
    texts = {name: path.read_text(encoding="utf-8", errors="replace")
             for name in entries if (path := store.output_path(root, name)).exists()}
    return Outputs(entries, texts)


def at_ref(root: Path, ref: str) -> Outputs:
    """The outputs committed at `ref`; none when it has no manifest."""
    manifest = _git_file(root, ref, f"{OUTPUTS_DIR}/{MANIFEST_NAME}")
    if manifest is None:
        return Outputs({}, {})
    try:
        entries = json.loads(manifest)["snippets"]
    except (ValueError, KeyError, TypeError) as error:
        raise DiffError(f"{ref}:{OUTPUTS_DIR}/{MANIFEST_NAME} is not a valid manifest ({error}). "
                        "Compare with another commit: `python -m recorder diff REF`.") from None
    texts = {name: text.decode("utf-8", errors="replace") for name in entries
             if (text := _git_file(root, ref, f"{OUTPUTS_DIR}/{name}.txt")) is not None}
    return Outputs(entries, texts)


def resolve(root: Path, ref: str | None) -> tuple[str, str]:
    """The commit to compare with, and how the report names it in Markdown: `ref`, checked to be a
    commit; by default the merge base with origin/main, else HEAD."""
    _check_repository(root)
    if ref is not None:
        _verified(root, ref, fix="Pass a branch, tag or commit that exists (`git fetch` a remote one first), "
                                 "e.g. `make diff BASE=HEAD~1`.")
        return ref, f"`{ref}`"
    if _git(root, "rev-parse", "--verify", "--quiet", f"{UPSTREAM}^{{commit}}").returncode != 0:
        _verified(root, "HEAD", fix="Commit something first, or pass a ref: `make diff BASE=REF`.")
        return "HEAD", "`HEAD`"
    merge_base = _git(root, "merge-base", UPSTREAM, "HEAD")
    if merge_base.returncode != 0:
        raise DiffError(f"HEAD and {UPSTREAM} in {root} have no commit in common. "
                        "Pass the ref to compare with: `make diff BASE=REF`.")
    # The shortest unambiguous name reads better in the diff's headers.
    commit = _git(root, "rev-parse", "--short", merge_base.stdout.decode().strip()).stdout.decode().strip()
    return commit, f"the merge base with `{UPSTREAM}` (`{commit}`)"


def report(root: Path, ref: str | None = None) -> str:
    """The Markdown of `python -m recorder diff`: the working tree against `ref`."""
    base, label = resolve(root, ref)
    return render(at_ref(root, base), in_tree(root), label, before_name=base)


def render(before: Outputs, after: Outputs, label: str, *, before_name: str = "before") -> str:
    """Every output whose text or provenance differs between `before` and `after`."""
    sections = [section for name in sorted(before.entries.keys() | after.entries.keys())
                if (section := _section(name, before, after, before_name))]
    if not sections:
        return f"No recorded output changed since {label}.\n"
    count = f"{len(sections)} recorded output{'s' if len(sections) > 1 else ''}"
    return "\n".join([f"## {count} changed since {label}\n", *sections])


def _section(name: str, before: Outputs, after: Outputs, before_name: str) -> str | None:
    old, new = before.texts.get(name), after.texts.get(name)
    provenance = _provenance_table(before.entries.get(name), after.entries.get(name))
    if old == new and not provenance:
        return None
    what = "added" if old is None else "removed" if new is None else "changed"
    path = f"{OUTPUTS_DIR}/{name}.txt"
    if old == new:
        body = "Same text; its provenance changed."
    elif _is_figure(old) or _is_figure(new):
        body = _figure_change(old, new)
    else:
        body = _fenced(_unified(old, new, f"{before_name}:{path}", path), "diff")
    return "\n\n".join([f"### `{name}`: {what}", body, *([provenance] if provenance else [])]) + "\n"


def _is_figure(text: str | None) -> bool:
    return text is not None and text.lstrip().startswith("<svg")


def _title(text: str | None) -> str:
    found = _TITLE.search(text or "")
    return f"“{html.unescape(found.group(1)).strip()}”" if found else "a figure without a <title>"


def _figure_change(old: str | None, new: str | None) -> str:
    if old is None:
        return f"New figure: {_title(new)}."
    if new is None:
        return f"Removed figure: {_title(old)}."
    if _title(old) == _title(new):
        return f"Figure {_title(new)} changed."
    return f"Figure changed: was {_title(old)}, now {_title(new)}."


def _unified(old: str | None, new: str | None, old_name: str, new_name: str) -> str:
    """A unified diff that, like git's, marks a last line without a newline."""
    lines = difflib.unified_diff(_LINES.findall(old or ""), _LINES.findall(new or ""),
                                 "/dev/null" if old is None else old_name, "/dev/null" if new is None else new_name)
    return "".join(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n" for line in lines)


def _fenced(text: str, language: str) -> str:
    """A fence longer than any run of backticks in `text`, so the text cannot close it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}{fence}"


def _provenance(entry: dict[str, Any] | None) -> dict[str, str]:
    """Where an output came from, fact by fact, in Markdown: who ran it on what of GPT-2, worded as
    the line under it on the site, then the sha256 of each file of GPT-2 it loaded and each library version."""
    if not entry:
        return {}
    origin = Origin.of(entry)
    files = sorted((origin.model.get("files") or {}).items())
    return {"origin": f"{origin.who} · {origin.gpt2(backticks)}",
            **{f"sha256 of {file}": backticks(digest) for file, digest in files},
            **{library: backticks(version) for library, version in (entry.get("versions") or {}).items()}}


def _provenance_table(old: dict[str, Any] | None, new: dict[str, Any] | None) -> str:
    before, after = _provenance(old), _provenance(new)
    rows = [f"| {fact} | {_cell(before.get(fact))} | {_cell(after.get(fact))} |"
            for fact in {**before, **after} if before.get(fact) != after.get(fact)]
    return "\n".join(["| provenance | before | after |", "| --- | --- | --- |", *rows]) if rows else ""


def _cell(value: str | None) -> str:
    # A pipe would end the table cell, even inside backticks.
    return "—" if value is None else value.replace("|", "\\|")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except FileNotFoundError:
        raise DiffError("git is not installed, and `python -m recorder diff` reads the outputs to compare "
                        "with from git. Install git (`apt-get install git`), then run it again.") from None


def _check_repository(root: Path) -> None:
    found = _git(root, "rev-parse", "--git-dir")
    if found.returncode != 0:
        raise DiffError(f"{root} is not a git repository git can read ({found.stderr.decode().strip()}). "
                        "`python -m recorder diff` compares outputs/ with a commit: run it in a clone "
                        "of the project.")


def _verified(root: Path, ref: str, *, fix: str) -> None:
    if _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode != 0:
        raise DiffError(f"`{ref}` is not a commit of the git repository at {root}. {fix}")


def _git_file(root: Path, ref: str, path: str) -> bytes | None:
    """The file at `path` (from the project folder) in commit `ref`, or None if it has none."""
    found = _git(root, "cat-file", "blob", f"{ref}:./{path}")
    return found.stdout if found.returncode == 0 else None

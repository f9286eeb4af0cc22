"""Whether each recorded output is still the recording of its snippet: read from content hashes, never file times.

The record step runs what this finds stale; the state reports it; each finding names the snippet and the fix.
"""

from pathlib import Path

from packaging.utils import canonicalize_name

from recorder.project import manifest
from recorder.project.config import REQUIREMENTS, SNIPPETS_DIR, Project
from recorder.project.findings import Finding, recordable
from recorder.project.gpt2 import MODEL_ID, REVISION
from recorder.project.manifest import (
    MANIFEST_NAME,
    OUTPUTS_DIR,
    READY,
    TRANSACTION,
    Origin,
    Record,
    output_path,
)
from recorder.project.snippets import Snippet, discover, pins, release, sha256_file, source_hashes, version_changes

RECORD = "Run `make record` and commit the updated outputs/."


def missing_output(name: str) -> str:
    """What is wrong with a snippet that has no recorded output, wherever it is read."""
    return f"{SNIPPETS_DIR}/{name}.py has no recorded output. Run `make record`."


def stale(project: Project) -> list[Finding]:
    """Every way the recorded outputs of `project` disagree with its snippets, read from its files."""
    return stale_outputs(project, discover(project.root), manifest.read(project.root))


def stale_outputs(project: Project, snippets: dict[str, Snippet], records: dict[str, Record]) -> list[Finding]:
    """Every way the recorded outputs disagree with the snippets and the configuration, each with its fix."""
    root = project.root
    if (root / OUTPUTS_DIR / TRANSACTION / READY).exists():
        interrupted = f"{OUTPUTS_DIR}/{TRANSACTION} holds an interrupted record run. Run `make record` to finish it."
        return [recordable(interrupted)]
    renamed = _renamed(root, snippets, records)
    problems = [
        finding
        for name, snippet in snippets.items()
        if (finding := _snippet_problem(project, snippet, records.get(name), renamed.get(name)))
    ]
    gone = [finding for finding in _deleted_snippets(records, snippets) if finding.snippet not in renamed.values()]
    return problems + gone + _orphan_outputs(root, snippets, records)


def _renamed(root: Path, snippets: dict[str, Snippet], records: dict[str, Record]) -> dict[str, str]:
    """Snippets that were only renamed (or moved to another part): the new name of each, by its file's content, with
    the name the manifest records it under."""
    gone = {
        record.sources.get(f"{SNIPPETS_DIR}/{name}.py"): name
        for name, record in records.items()
        if name not in snippets
    }
    return {
        name: gone[digest]
        for name, snippet in snippets.items()
        if name not in records and (digest := sha256_file(snippet.path)) in gone
    }


def _snippet_problem(
    project: Project, snippet: Snippet, record: Record | None, renamed_from: str | None
) -> Finding | None:
    """The first way, in this order, that one snippet's recorded output disagrees with it; None if none does."""
    root, name = project.root, snippet.name
    if renamed_from is not None:
        return recordable(
            f"{SNIPPETS_DIR}/{renamed_from}.py was renamed {snippet.relative(root)}, and its output is recorded under "
            "its old name. Run `make record`, which records it under the new name and drops the old output.",
            name,
        )
    if record is None or not output_path(root, name).exists():
        return recordable(missing_output(name), name)
    message = (
        _edited_output(root, name, record)
        or _changed_sources(root, snippet, record)
        or _changed_model(root, snippet, record)
        or _changed_versions(root, snippet, record)
        or _changed_statements(project, snippet, record)
    )
    return recordable(message, name) if message else None


def _edited_output(root: Path, name: str, record: Record) -> str | None:
    output = output_path(root, name)
    if sha256_file(output) == record.output_sha256:
        return None
    path = output.relative_to(root)
    return (
        f"{path} differs from what `make record` wrote (was it edited by hand?). "
        f"Outputs are never edited: restore it with `git checkout -- {path}` or run `make record`."
    )


def _changed_sources(root: Path, snippet: Snippet, record: Record) -> str | None:
    """The snippet's sources no longer hash as recorded: it is named, and the files that changed unless only it did."""
    if (hashes := source_hashes(snippet, root)) == record.sources:
        return None
    source = snippet.relative(root)
    changed = [path for path, digest in hashes.items() if record.sources.get(path) != digest]
    what = source if changed == [source] else f"{source}: {', '.join(changed) or 'its imports'}"
    return f"{what} changed since its output was recorded. {RECORD}"


def _changed_model(root: Path, snippet: Snippet, record: Record) -> str | None:
    """The snippet runs on something else of GPT-2 than its output was recorded on, or on another revision."""
    recorded = (record.model.id, record.model.revision) if record.model else None
    pinned = (MODEL_ID, REVISION) if snippet.runs_on is not Origin.NO_MODEL else None
    ran_on = record.origin if record.origin.executed else Origin.WEIGHTS  # the article's run: GPT-2's weights
    if (pinned, snippet.runs_on) == (recorded, ran_on):
        return None
    return (
        f"{snippet.relative(root)} was recorded on {_described(ran_on.value, recorded)} and now runs on "
        f"{_described(snippet.runs_on.value, pinned)}. {RECORD}"
    )


def _described(origin: str, model: tuple[str, str] | None) -> str:
    return f"{model[0]}@{model[1][:7]} ({origin})" if model else origin


def _changed_statements(project: Project, snippet: Snippet, record: Record) -> str | None:
    """An output taken from the article whose record no longer says what the configuration says of it."""
    if record.article is None:
        return None
    wanted = project.options.article(snippet.name)
    statements = {
        "the article's title": (wanted.title, record.article.title),
        "what the article states of its run": (wanted.stated, record.article.stated),
        "the sentence the article states it in": (wanted.prose, record.article.prose),
    }
    if not (changed := [what for what, (now, then) in statements.items() if now != then]):
        return None
    return (
        f"{snippet.relative(project.root)}: {project.config_file.name} says something else of this output, taken "
        f"from the article, than its record does ({_listed(changed)}). Run `make record PUBLISHED=1` to attach "
        "it again (or `make record` where GPT-2 can be loaded, to run it), and commit the updated outputs/."
    )


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _deleted_snippets(records: dict[str, Record], snippets: dict[str, Snippet]) -> list[Finding]:
    """The manifest's records whose snippet is gone."""
    return [
        recordable(
            f"{OUTPUTS_DIR}/{MANIFEST_NAME} records `{name}`, but {SNIPPETS_DIR}/{name}.py does not exist. Run "
            "`make record` to drop its output.",
            name,
        )
        for name in sorted(set(records) - set(snippets))
    ]


def _orphan_outputs(root: Path, snippets: dict[str, Snippet], records: dict[str, Record]) -> list[Finding]:
    """Output files of no snippet; one the manifest still records is reported once, as a deleted snippet."""
    names = {path: path.relative_to(root / OUTPUTS_DIR).with_suffix("").as_posix() for path in orphans(root, snippets)}
    return [
        recordable(
            f"{path.relative_to(root)} belongs to no snippet ({SNIPPETS_DIR}/{name}.py does not exist). Run "
            "`make record`, which removes it, or delete it."
        )
        for path, name in names.items()
        if name not in records
    ]


def _changed_versions(root: Path, snippet: Snippet, record: Record) -> str | None:
    """Each package whose release changed, as `torch: recorded with 2.13.0+cpu, installed 2.12.0`, and what
    helps: an environment off requirements.txt's pins is reinstalled; a changed pin is recorded with."""
    if not (changes := version_changes(record, snippet)):
        return None
    pinned = pins(root)
    listed = f"{snippet.relative(root)}: " + "; ".join(
        f"{package}: recorded with {recorded or 'none'}, installed {installed or 'none'}"
        for package, recorded, installed in changes
    )
    off_pin = [
        pin
        for package, _, installed in changes
        if (pin := pinned.get(canonicalize_name(package))) and release(installed) != pin.partition("==")[2]
    ]
    if off_pin:
        return (
            f"{listed}. This environment does not hold {REQUIREMENTS}'s {', '.join(off_pin)}: "
            "reinstall it (`rm -r .venv`, then any `make` target), and the recorded outputs hold again."
        )
    return f"{listed}. Run `make record` to record with the installed versions, and commit the updated outputs/."


def orphans(root: Path, snippets: dict[str, Snippet]) -> list[Path]:
    """Output files in outputs/ that no snippet owns, such as one a removed snippet left behind."""
    folder = root / OUTPUTS_DIR
    return [
        path
        for path in sorted(folder.rglob("*.txt"))
        if TRANSACTION not in path.relative_to(folder).parts
        and path.relative_to(folder).with_suffix("").as_posix() not in snippets
    ]

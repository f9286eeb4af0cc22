"""`make record`: re-run what is stale, verify what was loaded of GPT-2, commit outputs with provenance."""

from __future__ import annotations

import platform
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from recorder.project import manifest
from recorder.project.config import SNIPPETS_DIR, Project
from recorder.project.gpt2 import MODEL_ID, REVISION, TOKENIZER_FILES
from recorder.project.manifest import OUTPUTS_DIR, Article, Model, Origin, Record, output_path
from recorder.project.provenance import counted
from recorder.project.snippets import Snippet, discover, sha256_bytes, source_hashes, versions_for
from recorder.project.staleness import orphans, stale_outputs
from recorder.record import article, hub, notebook, store
from recorder.record.runner import Report, Run, quiet_libraries, run_all, snippet_modules

DEFAULT_TIMEOUT = 300.0


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Recording:
    """What one record run reads once, under the lock; `save` keeps `records` as written."""

    project: Project
    snippets: dict[str, Snippet]
    records: dict[str, Record]


@contextmanager
def recording(root: Path, report: Report) -> Iterator[Recording]:
    """Hold the record lock with any interrupted run finished, and yield the snippets and manifest; then
    bring the companion notebooks up to date before letting go, so they never lag behind the outputs."""
    with store.exclusive(root):
        store.recover(root)
        current = Recording(Project.load(root), discover(root), manifest.read(root))
        yield current
        lagging = {finding.snippet for finding in stale_outputs(current.project, current.snippets, current.records)}
        notebook.update(current.project, report, current.records, lagging - {None})  # written from what was stored


def stale(root: Path, current: Recording, *, force: bool) -> list[Snippet]:
    flagged = {finding.snippet for finding in stale_outputs(current.project, current.snippets, current.records)}
    return [snippet for name, snippet in current.snippets.items() if force or name in flagged]


def new_record(
    root: Path, snippet: Snippet, output: bytes, origin: Origin, seconds: float, article: Article | None = None
) -> Record:
    """The record of `output`, which `snippet` printed (or the article published for it) just now."""
    return Record(
        source=snippet.relative(root),
        output=output_path(root, snippet.name).relative_to(root).as_posix(),
        output_sha256=sha256_bytes(output),
        sources=source_hashes(snippet, root),
        origin=origin,
        model=None,
        versions={"python": platform.python_version(), **versions_for(snippet)},
        recorded_at=now(),
        seconds=round(seconds, 3),
        article=article,
    )


def save(root: Path, current: Recording, fresh: dict[str, tuple[bytes, Record]]) -> int:
    """Write the new outputs and the manifest in one transaction; drop those of deleted snippets. An output whose
    bytes and record are those already recorded, but for when it ran, is left as it was, so that an unchanged run
    changes no byte of the manifest. Returns how many outputs changed."""
    changed = {name: new for name, new in fresh.items() if not _already_recorded(root, name, current, *new)}
    removed = _removed(root, current)
    if changed or removed:
        records = {name: record for name, record in current.records.items() if name in current.snippets}
        records |= {name: record for name, (_, record) in changed.items()}
        files = {f"{name}.txt": output for name, (output, _) in changed.items()}
        store.commit(root, files | {manifest.MANIFEST_NAME: manifest.to_bytes(records)}, remove=removed)
        current.records = records
    return len(changed)


def _removed(root: Path, current: Recording) -> list[str]:
    """The files of outputs/ a record run deletes: those of deleted snippets, and those no snippet owns."""
    gone = [f"{name}.txt" for name in sorted(set(current.records) - set(current.snippets))]
    return gone + [path.relative_to(root / OUTPUTS_DIR).as_posix() for path in orphans(root, current.snippets)]


def _already_recorded(root: Path, name: str, current: Recording, output: bytes, new: Record) -> bool:
    """Whether `output`, with its record `new`, is what outputs/ holds for `name` already, but for when it ran."""
    path, old = output_path(root, name), current.records.get(name)
    if old is None or not path.is_file() or path.read_bytes() != output:
        return False
    return replace(old, recorded_at="", seconds=0.0) == replace(new, recorded_at="", seconds=0.0)


def record(
    root: Path,
    *,
    force: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    report: Report = print,
    pinned_files: bool = True,
) -> int:
    """Re-run stale snippets (every one, with `force`) and record them; returns how many outputs changed.

    Each snippet that can run here runs. A snippet that needs GPT-2's weights where they are out of reach keeps its
    recorded output when that is up to date (with `force`, say), and is said; one whose output is stale makes the
    run fail, naming it and what to do, once the others are recorded.

    With `pinned_files=False` the files of GPT-2 loaded are hashed but not compared with the pinned sha256:
    only the benchmark does that, to record its stand-in into a throwaway copy of the project.
    """
    with recording(root, report) as current:
        targets = _targets(root, current, force=force)
        if _up_to_date(root, current, targets):
            report(f"{OUTPUTS_DIR}/ is up to date ({len(current.snippets)} snippets).")
            return 0
        quiet_libraries()
        runnable = _reachable(targets, report)
        tokenizer = _prepare_tokenizer(runnable, pinned_files=pinned_files)
        runs = run_all(root, runnable, timeout=timeout, report=report)
        files = _loaded_files(root, runs, tokenizer, pinned_files=pinned_files)
        article.compare(root, runs, current.records, report)
        changed = save(root, current, {run.snippet.name: (run.stdout, _executed(root, run, files)) for run in runs})
        report(
            f"recorded {len(runs)} of {len(current.snippets)} snippets into {OUTPUTS_DIR}/{_unchanged(runs, changed)}"
        )
    _out_of_reach(root, current, [snippet for snippet in targets if snippet not in runnable], report)  # notebooks too
    return changed


def _unchanged(runs: list[object], changed: int) -> str:
    """What a report adds about the runs that recorded what was recorded already."""
    same = len(runs) - changed
    return f" ({same} of them as recorded already: records left as they were)" if same else ""


def _targets(root: Path, current: Recording, *, force: bool) -> list[Snippet]:
    """The stale snippets, then those recorded from the article's published outputs, re-run when GPT-2 is in reach."""
    targets = stale(root, current, force=force)
    return targets + [s for s in article.to_confirm(current.snippets, current.records) if s not in targets]


def _up_to_date(root: Path, current: Recording, targets: list[Snippet]) -> bool:
    """Nothing to run, and no output of a deleted snippet left to drop."""
    return not targets and set(current.records) <= set(current.snippets) and not orphans(root, current.snippets)


def _reachable(targets: list[Snippet], report: Report) -> list[Snippet]:
    """Point the hub's libraries at the pinned revision, online or from the cache, and say which: the targets that
    can run here. Those that need GPT-2's weights cannot, offline, without the weights in the cache."""
    runs_on = {snippet.runs_on for snippet in targets}
    if runs_on <= {Origin.NO_MODEL}:
        return targets
    online, weights = hub.configure(), Origin.WEIGHTS in runs_on
    report(f"{_what(weights)} {MODEL_ID}@{REVISION[:7]}: {_where(online)}")
    if online and weights:  # a failed download stops here, before any snippet runs
        hub.fetch_pinned(report)
    in_reach = online or hub.weights_cached()
    return [snippet for snippet in targets if in_reach or snippet.runs_on is not Origin.WEIGHTS]


def _what(weights: bool) -> str:
    return "GPT-2" if weights else "GPT-2's tokenizer"


def _where(online: bool) -> str:
    return "hub reachable" if online else "offline, from the local cache"


def _prepare_tokenizer(targets: list[Snippet], *, pinned_files: bool) -> Path | None:
    """The tokenizer's snapshot, where a target reads the tokenizer's files and one needs no weights (a model loaded
    from the hub comes with its own): its files checked before any runs."""
    reads = any(snippet.runs_on is Origin.TOKENIZER or snippet.reads_tokenizer for snippet in targets)
    if not reads or {snippet.runs_on for snippet in targets} <= {Origin.WEIGHTS}:
        return None
    tokenizer = hub.tokenizer_snapshot()
    if pinned_files:
        hub.digests(tokenizer, TOKENIZER_FILES, pinned=True)  # files cached earlier: refused before any runs
    return tokenizer


def _out_of_reach(root: Path, current: Recording, left: list[Snippet], report: Report) -> None:
    """Say which snippets needing GPT-2's weights kept their recorded outputs; fail naming those that lag behind, once
    what could be recorded is written, notebooks included."""
    lagging = {snippet.name for snippet in stale(root, current, force=False)}
    if kept := [snippet.relative(root) for snippet in left if snippet.name not in lagging]:
        report(
            f"kept the recorded outputs of {', '.join(kept)}: they need GPT-2's weights, which are out of reach "
            "here, and their records say where each comes from."
        )
    if behind := [snippet for snippet in left if snippet.name in lagging]:
        names = ", ".join(snippet.relative(root) for snippet in behind)
        raise hub.ModelUnavailable(
            f"{names} could not be recorded: {hub.not_cached('GPT-2')}{article.offline_hint(root, behind)}"
        )


def _loaded_files(
    root: Path, runs: list[Run], tokenizer: Path | None, *, pinned_files: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """The sha256 of the tokenizer's files and of the weights' files that the runs read, each by file name."""
    tokenizer_files = hub.digests(tokenizer, TOKENIZER_FILES, pinned=pinned_files) if tokenizer is not None else {}
    weight_files: dict[str, str] = {}
    if any(run.snippet.runs_on is Origin.WEIGHTS for run in runs):
        imported = [vars(module) for module in snippet_modules(root / SNIPPETS_DIR).values()]
        # The weight snippets' models only (runner.Run): one built from GPT-2's configuration has no revision.
        snapshot = hub.loaded_snapshot([*(run.namespace for run in runs), *imported])
        weight_files = hub.digests(snapshot, pinned=pinned_files)
    return tokenizer_files, weight_files


def _model(snippet: Snippet, files: tuple[dict[str, str], dict[str, str]]) -> Model | None:
    """What of GPT-2 a run's snippet ran on, and the sha256 of the files it read (a model built from GPT-2's
    configuration reads none of its own; the snippet may read the tokenizer's)."""
    if snippet.runs_on is Origin.NO_MODEL:
        return None
    tokenizer_files, weight_files = files
    read = weight_files if snippet.runs_on is Origin.WEIGHTS else tokenizer_files
    if snippet.runs_on is Origin.CONFIGURATION and not snippet.reads_tokenizer:
        read = {}
    return Model(MODEL_ID, REVISION, read)


def _executed(root: Path, run: Run, files: tuple[dict[str, str], dict[str, str]]) -> Record:
    """The record of a snippet this run executed."""
    executed = new_record(root, run.snippet, run.stdout, run.snippet.runs_on, run.seconds)
    return replace(executed, model=_model(run.snippet, files))


def _published(root: Path, snippet: Snippet, output: bytes, article: Article) -> Record:
    """The record of an output taken from the article, which names the model the snippet pins and loads none of it."""
    origin = Origin.ARTICLE_PROSE if article.prose else Origin.ARTICLE_PRINTED
    return replace(new_record(root, snippet, output, origin, 0.0, article), model=Model(MODEL_ID, REVISION, {}))


def attach(root: Path, *, force: bool, timeout: float, report: Report) -> int:
    """`make record PUBLISHED=1`: record the article's outputs for the stale model snippets (every one, with `force`),
    saying which stale snippets it leaves to `make record`. Returns how many outputs changed."""
    with recording(root, report) as current:
        targets = stale(root, current, force=force)
        if skipped := [snippet.relative(root) for snippet in targets if snippet.runs_on is not Origin.WEIGHTS]:
            report(
                f"left {counted(len(skipped), 'snippet')} as recorded, which need no GPT-2 weights and whose outputs "
                f"are never taken from the article ({', '.join(skipped)}): `make record` runs them."
            )
        if not (targets := [snippet for snippet in targets if snippet.runs_on is Origin.WEIGHTS]):
            report("every model snippet's output is up to date; nothing to attach.")
            return 0
        attached = article.attach(root, targets, timeout=timeout, report=report)
        changed = save(
            root,
            current,
            {
                name: (output, _published(root, current.snippets[name], output, found))
                for name, (output, found) in attached.items()
            },
        )
        report(f"attached {counted(len(attached), 'published output')}{_unchanged(list(attached), changed)}")
        return changed

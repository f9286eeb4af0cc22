"""`make record`: re-run what is stale, verify what was loaded of GPT-2, commit outputs with provenance."""

from __future__ import annotations

import functools
import platform
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from recorder.project import manifest
from recorder.project.config import SNIPPETS_DIR, Project
from recorder.project.gpt2 import MODEL_ID, REVISION, TOKENIZER_FILES, short
from recorder.project.manifest import OUTPUTS_DIR, Article, Model, Origin, Record, output_path
from recorder.project.provenance import counted
from recorder.project.snippets import Snippet, discover, sha256_bytes, source_hashes, versions_for
from recorder.project.staleness import orphans, stale_outputs
from recorder.record import article, hub, notebook, store
from recorder.record.runner import Report, Run, quiet_libraries, run_all, snippet_modules

DEFAULT_TIMEOUT = 300.0
Files = dict[str, str]  # the sha256 of each file of GPT-2 read, by file name


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Session:
    """What one run of the record step reads once, under the lock; `save` keeps `records` as written."""

    project: Project
    snippets: dict[str, Snippet]
    records: dict[str, Record]


@contextmanager
def session(root: Path, report: Report) -> Iterator[Session]:
    """Hold the record lock with any interrupted run finished, and yield the snippets and manifest; then
    bring the companion notebooks up to date before letting go, so they never lag behind the outputs."""
    with store.exclusive(root):
        store.recover(root)
        current = Session(Project.load(root), discover(root), manifest.read(root))
        yield current
        notebook.update(current.project, report, current.records, _lagging(current) - {None})  # from what was stored


def _lagging(current: Session) -> set[str | None]:
    """The names of the snippets whose outputs lag behind (None where a finding names no snippet)."""
    return {finding.snippet for finding in stale_outputs(current.project, current.snippets, current.records)}


def stale(current: Session, *, force: bool) -> list[Snippet]:
    lagging = _lagging(current)
    return [snippet for name, snippet in current.snippets.items() if force or name in lagging]


def new_record(
    root: Path,
    snippet: Snippet,
    output: bytes,
    origin: Origin,
    seconds: float,
    article: Article | None = None,
    model: Model | None = None,
) -> Record:
    """The record of `output`, which `snippet` printed (or the article published for it) just now."""
    return Record(
        source=snippet.relative(root),
        output=output_path(root, snippet.name).relative_to(root).as_posix(),
        output_sha256=sha256_bytes(output),
        sources=source_hashes(snippet, root),
        origin=origin,
        model=model,
        versions={"python": platform.python_version(), **versions_for(snippet)},
        recorded_at=now(),
        seconds=round(seconds, 3),
        article=article,
    )


def save(root: Path, current: Session, fresh: dict[str, tuple[bytes, Record]]) -> int:
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


def _removed(root: Path, current: Session) -> list[str]:
    """The files of outputs/ a record run deletes: those of deleted snippets, and those no snippet owns."""
    gone = [f"{name}.txt" for name in sorted(set(current.records) - set(current.snippets))]
    return gone + [path.relative_to(root / OUTPUTS_DIR).as_posix() for path in orphans(root, current.snippets)]


def _already_recorded(root: Path, name: str, current: Session, output: bytes, new: Record) -> bool:
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
    with session(root, report) as current:
        probe = functools.cache(hub.hub_reachable)  # the hub asked once a run, and only where the answer matters
        targets = stale(current, force=force)
        targets += [
            snippet
            for snippet in article.to_confirm(current.snippets, current.records, probe)
            if snippet not in targets
        ]
        if not targets and not _removed(root, current):  # nothing to run, and no output of a deleted snippet to drop
            report(f"{OUTPUTS_DIR}/ is up to date ({len(current.snippets)} snippets).")
            return 0
        quiet_libraries()
        runnable = _reachable(targets, report, probe)
        tokenizer = _prepare_tokenizer(runnable, pinned_files=pinned_files)
        runs = run_all(root, runnable, timeout=timeout, report=report)
        tokenizer_files, weight_files = _loaded_files(root, runs, tokenizer, pinned_files=pinned_files)
        article.compare(root, runs, current.records, report)
        fresh = {run.snippet.name: (run.stdout, _executed(root, run, tokenizer_files, weight_files)) for run in runs}
        changed = _saved(
            root,
            current,
            fresh,
            f"recorded {len(runs)} of {len(current.snippets)} snippets into {OUTPUTS_DIR}/",
            report,
        )
    _out_of_reach(root, current, [snippet for snippet in targets if snippet not in runnable], report)  # notebooks too
    return changed


def _saved(root: Path, current: Session, fresh: dict[str, tuple[bytes, Record]], done: str, report: Report) -> int:
    """`save` `fresh`, then report `done` and how many of its outputs were those recorded already. Returns how many
    outputs changed."""
    changed = save(root, current, fresh)
    same = len(fresh) - changed
    report(done + (f" ({same} of them as recorded already: records left as they were)" if same else ""))
    return changed


def _reachable(targets: list[Snippet], report: Report, probe: Callable[[], bool]) -> list[Snippet]:
    """Point the hub's libraries at the pinned revision, online or from the cache, and say which: the targets that
    can run here. Those that need GPT-2's weights cannot, offline, without the weights in the cache."""
    runs_on = {snippet.runs_on for snippet in targets}
    if runs_on <= {Origin.NO_MODEL}:
        return targets
    online, weights = hub.configure(probe), Origin.WEIGHTS in runs_on
    report(_reached(online, weights))
    if online and weights:  # a failed download stops here, before any snippet runs
        hub.fetch_pinned(report)
    in_reach = online or hub.weights_cached()
    return [snippet for snippet in targets if in_reach or snippet.runs_on is not Origin.WEIGHTS]


def _reached(online: bool, weights: bool) -> str:
    """What of GPT-2 the run reads, and where from."""
    what = "GPT-2" if weights else "GPT-2's tokenizer"
    return f"{what} {MODEL_ID}@{short()}: {'hub reachable' if online else 'offline, from the local cache'}"


def _prepare_tokenizer(targets: list[Snippet], *, pinned_files: bool) -> Path | None:
    """The tokenizer's snapshot, where a target reads the tokenizer's files and one needs no weights (a model loaded
    from the hub comes with its own): its files checked before any runs."""
    reads = any(snippet.runs_on is Origin.TOKENIZER or snippet.reads_tokenizer for snippet in targets)
    if not reads or {snippet.runs_on for snippet in targets} <= {Origin.WEIGHTS}:
        return None
    return hub.tokenizer_snapshot(pinned=pinned_files)


def _out_of_reach(root: Path, current: Session, left: list[Snippet], report: Report) -> None:
    """Say which snippets needing GPT-2's weights kept their recorded outputs; fail naming those that lag behind, once
    what could be recorded is written, notebooks included."""
    lagging = _lagging(current)
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


def _loaded_files(root: Path, runs: list[Run], tokenizer: Path | None, *, pinned_files: bool) -> tuple[Files, Files]:
    """The sha256 of the tokenizer's files and of the weights' files that the runs read."""
    tokenizer_files = hub.digests(tokenizer, TOKENIZER_FILES, pinned=pinned_files) if tokenizer is not None else {}
    if not any(run.snippet.runs_on is Origin.WEIGHTS for run in runs):
        return tokenizer_files, {}
    imported = [vars(module) for module in snippet_modules(root / SNIPPETS_DIR).values()]
    # The weight snippets' models only (runner.Run): one built from GPT-2's configuration has no revision.
    return tokenizer_files, hub.loaded_files([*(run.namespace for run in runs), *imported], pinned=pinned_files)


def _executed(root: Path, run: Run, tokenizer_files: Files, weight_files: Files) -> Record:
    """The record of a snippet this run executed, with what of GPT-2 it ran on and the sha256 of the files it read
    (a model built from GPT-2's configuration reads none of its own; the snippet may read the tokenizer's)."""
    runs_on = run.snippet.runs_on
    read = weight_files if runs_on is Origin.WEIGHTS else tokenizer_files
    if runs_on is Origin.CONFIGURATION and not run.snippet.reads_tokenizer:
        read = {}
    model = None if runs_on is Origin.NO_MODEL else Model(MODEL_ID, REVISION, read)
    return new_record(root, run.snippet, run.stdout, runs_on, run.seconds, model=model)


def _from_article(root: Path, snippet: Snippet, output: bytes, taken: Article) -> Record:
    """The record of an output taken from the article, which names the model the snippet pins and loads none of it."""
    origin = Origin.ARTICLE_PROSE if taken.prose else Origin.ARTICLE_PRINTED
    return new_record(root, snippet, output, origin, 0.0, taken, Model(MODEL_ID, REVISION, {}))


def attach(root: Path, *, force: bool, timeout: float, report: Report) -> int:
    """`make record PUBLISHED=1`: record the article's outputs for the stale model snippets (every one, with `force`),
    saying which stale snippets it leaves to `make record`. Returns how many outputs changed."""
    with session(root, report) as current:
        targets = stale(current, force=force)
        if skipped := [snippet.relative(root) for snippet in targets if snippet.runs_on is not Origin.WEIGHTS]:
            report(
                f"left {counted(len(skipped), 'snippet')} as recorded, which need no GPT-2 weights and whose outputs "
                f"are never taken from the article ({', '.join(skipped)}): `make record` runs them."
            )
        if not (targets := [snippet for snippet in targets if snippet.runs_on is Origin.WEIGHTS]):
            report("every model snippet's output is up to date; nothing to attach.")
            return 0
        attached = article.attach(root, targets, current.project.options, timeout=timeout, report=report)
        fresh = {
            name: (output, _from_article(root, current.snippets[name], output, taken))
            for name, (output, taken) in attached.items()
        }
        return _saved(root, current, fresh, f"attached {counted(len(attached), 'published output')}", report)

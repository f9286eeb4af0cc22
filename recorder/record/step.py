"""`make record`: re-run what is stale, verify what was loaded of GPT-2, commit outputs with provenance."""

from __future__ import annotations

import platform
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recorder.pinned import MODEL_ID, OUTPUTS_DIR, REVISION, SNIPPETS_DIR, TOKENIZER_FILES
from recorder.provenance import counted
from recorder.record import hub, notebook, published, store
from recorder.record.project import Project
from recorder.record.runner import Report, Run, quiet_libraries, run_all, snippet_modules
from recorder.record.snippets import Snippet, discover, sha256_bytes, source_hashes, versions_for

DEFAULT_TIMEOUT = 300.0


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Recording:
    """What one record run reads once, under the lock; `save` keeps `manifest` as written."""

    snippets: dict[str, Snippet]
    manifest: dict[str, dict[str, Any]]


@contextmanager
def recording(root: Path, report: Report) -> Iterator[Recording]:
    """Hold the record lock with any interrupted run finished, and yield the snippets and manifest; then
    bring the companion notebooks up to date before letting go, so they never lag behind the outputs."""
    with store.exclusive(root):
        store.recover(root)
        current = Recording(discover(root), store.read_manifest(root))
        yield current
        lagging = {problem.snippet for problem in store.stale_outputs(root, current.snippets, current.manifest)}
        notebook.update(Project.load(root), report, current.manifest, lagging)  # written from what was stored


def stale(root: Path, current: Recording, *, force: bool) -> list[Snippet]:
    flagged = {problem.snippet for problem in store.stale_outputs(root, current.snippets, current.manifest)}
    return [snippet for name, snippet in current.snippets.items() if force or name in flagged]


def entry(
    root: Path,
    snippet: Snippet,
    output: bytes,
    *,
    origin: str,
    seconds: float,
    model: dict[str, Any] | None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "source": snippet.relative(root),
        "output": store.output_path(root, snippet.name).relative_to(root).as_posix(),
        "output_sha256": sha256_bytes(output),
        "sources": source_hashes(snippet, root),
        "origin": origin,
        "model": model,
        "versions": {"python": platform.python_version(), **versions_for(snippet)},
        "recorded_at": now(),
        "seconds": round(seconds, 3),
        **extra,
    }


# When a run recorded and how long it took: not what it recorded. A re-run that records the same output with the
# same provenance leaves its entry as it was, so that an unchanged run changes no byte of the manifest.
_WHEN = ("recorded_at", "seconds")


def save(root: Path, current: Recording, fresh: dict[str, tuple[bytes, dict[str, Any]]]) -> int:
    """Write the new outputs and the manifest in one transaction; drop those of deleted snippets. An output whose
    bytes and record are those already recorded is left as it was. Returns how many outputs changed."""
    changed = {
        name: recorded for name, recorded in fresh.items() if not _already_recorded(root, name, current, *recorded)
    }
    removed = _removed(root, current)
    if changed or removed:
        entries = {name: value for name, value in current.manifest.items() if name in current.snippets}
        entries |= {name: new_entry for name, (_, new_entry) in changed.items()}
        files = {f"{name}.txt": output for name, (output, _) in changed.items()}
        store.commit(root, files | {store.MANIFEST_NAME: store.manifest_bytes(entries)}, remove=removed)
        current.manifest = entries
    return len(changed)


def _removed(root: Path, current: Recording) -> list[str]:
    """The files of outputs/ a record run deletes: those of deleted snippets, and those no snippet owns."""
    gone = [f"{name}.txt" for name in sorted(set(current.manifest) - set(current.snippets))]
    return gone + [
        path.relative_to(store.outputs_dir(root)).as_posix() for path in store.orphans(root, current.snippets)
    ]


def _already_recorded(root: Path, name: str, current: Recording, output: bytes, new: dict[str, Any]) -> bool:
    """Whether `output`, with its record `new`, is what outputs/ holds for `name` already, but for when it ran."""
    path, old = store.output_path(root, name), current.manifest.get(name)
    if old is None or not path.is_file() or path.read_bytes() != output:
        return False
    return _without_when(old) == _without_when(new)


def _without_when(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key not in _WHEN}


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
        published.compare(root, runs, current.manifest, report)
        changed = save(root, current, {run.snippet.name: (run.stdout, _executed(root, run, files)) for run in runs})
        report(
            f"recorded {len(runs)} of {len(current.snippets)} snippets into {OUTPUTS_DIR}/{_unchanged(runs, changed)}"
        )
    _out_of_reach(root, current, [snippet for snippet in targets if snippet not in runnable], report)  # notebooks too
    return changed


def _unchanged(runs: list[Any], changed: int) -> str:
    """What a report adds about the runs that recorded what was recorded already."""
    same = len(runs) - changed
    return f" ({same} of them as recorded already: records left as they were)" if same else ""


def _targets(root: Path, current: Recording, *, force: bool) -> list[Snippet]:
    """The stale snippets, then those recorded from the article's published outputs, re-run when GPT-2 is in reach."""
    targets = stale(root, current, force=force)
    return targets + [s for s in published.to_confirm(current.snippets, current.manifest) if s not in targets]


def _up_to_date(root: Path, current: Recording, targets: list[Snippet]) -> bool:
    """Nothing to run, and no output of a deleted snippet left to drop."""
    return not targets and set(current.manifest) <= set(current.snippets) and not store.orphans(root, current.snippets)


def _reachable(targets: list[Snippet], report: Report) -> list[Snippet]:
    """Point the hub's libraries at the pinned revision, online or from the cache, and say which: the targets that
    can run here. Those that need GPT-2's weights cannot, offline, without the weights in the cache."""
    loads = {snippet.loads for snippet in targets}
    if not loads - {None}:
        return targets
    online, weights = hub.configure(), "weights" in loads
    report(f"{_what(weights)} {MODEL_ID}@{REVISION[:7]}: {_where(online)}")
    if online and weights:  # a failed download stops here, before any snippet runs
        hub.fetch_pinned(report)
    in_reach = online or hub.weights_cached()
    return [snippet for snippet in targets if in_reach or snippet.loads != "weights"]


def _what(weights: bool) -> str:
    return "GPT-2" if weights else "GPT-2's tokenizer"


def _where(online: bool) -> str:
    return "hub reachable" if online else "offline, from the local cache"


def _prepare_tokenizer(targets: list[Snippet], *, pinned_files: bool) -> Path | None:
    """The tokenizer's snapshot, where a target reads the tokenizer's files and one needs no weights (a model loaded
    from the hub comes with its own): its files checked before any runs."""
    reads = any(snippet.loads == "tokenizer" or snippet.reads_tokenizer for snippet in targets if snippet.loads)
    if not reads or {snippet.loads for snippet in targets} <= {"weights"}:
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
            f"{names} could not be recorded: {hub.not_cached('GPT-2')}{published.offline_hint(root, behind)}"
        )


def _loaded_files(
    root: Path, runs: list[Run], tokenizer: Path | None, *, pinned_files: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """The sha256 of the tokenizer's files and of the weights' files that the runs read, each by file name."""
    tokenizer_files = hub.digests(tokenizer, TOKENIZER_FILES, pinned=pinned_files) if tokenizer is not None else {}
    weight_files: dict[str, str] = {}
    if any(run.snippet.loads == "weights" for run in runs):
        imported = [vars(module) for module in snippet_modules(root / SNIPPETS_DIR).values()]
        # The weight snippets' models only (runner.Run): one built from GPT-2's configuration has no revision.
        snapshot = hub.loaded_snapshot([*(run.namespace for run in runs), *imported])
        weight_files = hub.digests(snapshot, pinned=pinned_files)
    return tokenizer_files, weight_files


def _model(snippet: Snippet, files: tuple[dict[str, str], dict[str, str]]) -> dict[str, Any] | None:
    """A run's `model` in the manifest: what of GPT-2 its snippet ran on, and the sha256 of the files it read (a
    model built from GPT-2's configuration reads none of its own; the snippet may read the tokenizer's)."""
    if snippet.loads is None:
        return None
    tokenizer_files, weight_files = files
    read = weight_files if snippet.loads == "weights" else tokenizer_files
    if snippet.loads == "configuration" and not snippet.reads_tokenizer:
        read = {}
    return {"id": MODEL_ID, "revision": REVISION, "loaded": snippet.loads, "files": read}


def _executed(root: Path, run: Run, files: tuple[dict[str, str], dict[str, str]]) -> dict[str, Any]:
    """The manifest entry of a snippet this run executed."""
    model = _model(run.snippet, files)
    return entry(root, run.snippet, run.stdout, origin="executed", seconds=run.seconds, model=model)


def attach(root: Path, *, force: bool, timeout: float, report: Report) -> int:
    """`make record PUBLISHED=1`: record the article's outputs for the stale model snippets (every one, with `force`),
    saying which stale snippets it leaves to `make record`. Returns how many outputs changed."""
    with recording(root, report) as current:
        targets = stale(root, current, force=force)
        if skipped := [snippet.relative(root) for snippet in targets if snippet.loads != "weights"]:
            report(
                f"left {counted(len(skipped), 'snippet')} as recorded, which need no GPT-2 weights and whose outputs "
                f"are never taken from the article ({', '.join(skipped)}): `make record` runs them."
            )
        if not (targets := [snippet for snippet in targets if snippet.loads == "weights"]):
            report("every model snippet's output is up to date; nothing to attach.")
            return 0
        attached = published.attach(root, targets, timeout=timeout, report=report)
        changed = save(
            root,
            current,
            {
                name: (output, entry(root, current.snippets[name], output, origin="published", seconds=0.0, **fields))
                for name, (output, fields) in attached.items()
            },
        )
        report(f"attached {counted(len(attached), 'published output')}{_unchanged(list(attached), changed)}")
        return changed

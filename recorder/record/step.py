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
        notebook.update(Project.load(root), report, current.manifest)  # written from what was stored


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


def save(root: Path, current: Recording, fresh: dict[str, tuple[bytes, dict[str, Any]]]) -> None:
    """Write the new outputs and the manifest in one transaction; drop those of deleted snippets."""
    removed = sorted(set(current.manifest) - set(current.snippets))
    entries = {name: value for name, value in current.manifest.items() if name not in removed}
    entries |= {name: new_entry for name, (_, new_entry) in fresh.items()}
    files = {f"{name}.txt": output for name, (output, _) in fresh.items()}
    files[store.MANIFEST_NAME] = store.manifest_bytes(entries)
    orphans = [path.relative_to(store.outputs_dir(root)).as_posix() for path in store.orphans(root, current.snippets)]
    store.commit(root, files, remove=[f"{name}.txt" for name in removed] + orphans)
    current.manifest = entries


def record(
    root: Path,
    *,
    force: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    report: Report = print,
    pinned_files: bool = True,
) -> int:
    """Re-run stale snippets and record them; returns how many were recorded.

    With `pinned_files=False` the files of GPT-2 loaded are hashed but not compared with the pinned sha256:
    only the benchmark does that, to record its stand-in into a throwaway copy of the project.
    """
    with recording(root, report) as current:
        targets = _targets(root, current, force=force)
        if _up_to_date(root, current, targets):
            report(f"{OUTPUTS_DIR}/ is up to date ({len(current.snippets)} snippets).")
            return 0
        quiet_libraries()
        tokenizer = _prepare_model(root, targets, report, pinned_files=pinned_files)
        runs = run_all(root, targets, timeout=timeout, report=report)
        files = _loaded_files(root, runs, tokenizer, pinned_files=pinned_files)
        published.compare(root, runs, current.manifest, report)
        save(root, current, {run.snippet.name: (run.stdout, _executed(root, run, files)) for run in runs})
        report(f"recorded {len(runs)} of {len(current.snippets)} snippets into {OUTPUTS_DIR}/")
        return len(runs)


def _targets(root: Path, current: Recording, *, force: bool) -> list[Snippet]:
    """The stale snippets, then those recorded from the article's published outputs, re-run when GPT-2 is in reach."""
    targets = stale(root, current, force=force)
    return targets + [s for s in published.to_confirm(current.snippets, current.manifest) if s not in targets]


def _up_to_date(root: Path, current: Recording, targets: list[Snippet]) -> bool:
    """Nothing to run, and no output of a deleted snippet left to drop."""
    return not targets and set(current.manifest) <= set(current.snippets) and not store.orphans(root, current.snippets)


def _prepare_model(root: Path, targets: list[Snippet], report: Report, *, pinned_files: bool) -> Path | None:
    """Make what the targets load of GPT-2 available, and return the tokenizer's snapshot if one loads it."""
    loads = {snippet.loads for snippet in targets}
    if loads - {None}:
        _reach_model(root, targets, report, weights="weights" in loads)
    reads = any(snippet.loads == "tokenizer" or snippet.reads_tokenizer for snippet in targets if snippet.loads)
    tokenizer = hub.tokenizer_snapshot() if reads and loads - {"weights"} else None
    if tokenizer is not None and pinned_files:
        hub.digests(tokenizer, TOKENIZER_FILES, pinned=True)  # files cached earlier: refused before any runs
    return tokenizer


def _reach_model(root: Path, targets: list[Snippet], report: Report, *, weights: bool) -> None:
    """Point the hub's libraries at the pinned revision, online or from the cache, and say which."""
    try:
        online = hub.configure(weights=weights)
    except hub.ModelUnavailable as error:
        raise hub.ModelUnavailable(f"{error}{published.offline_hint(root, targets)}") from None
    what = "GPT-2" if weights else "GPT-2's tokenizer"
    where = "hub reachable" if online else "offline, from the local cache"
    report(f"{what} {MODEL_ID}@{REVISION[:7]}: {where}")
    if online and weights:  # a failed download stops here, before any snippet runs
        hub.fetch_pinned(report)


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
    """`make record PUBLISHED=1`: record the article's outputs for the stale model snippets."""
    with recording(root, report) as current:
        targets = [s for s in stale(root, current, force=force) if s.loads == "weights"]
        if not targets:
            report("every model snippet's output is up to date; nothing to attach.")
            return 0
        attached = published.attach(root, targets, timeout=timeout, report=report)
        save(
            root,
            current,
            {
                name: (output, entry(root, current.snippets[name], output, origin="published", seconds=0.0, **fields))
                for name, (output, fields) in attached.items()
            },
        )
        report(f"attached {counted(len(attached), 'published output')}")
        return len(attached)

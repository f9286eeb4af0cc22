"""`make record`: re-run what is stale, verify the model, commit outputs with provenance."""

from __future__ import annotations

import platform
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from recorder import aside, hub, published, store
from recorder.pinned import MODEL_ID, OUTPUTS_DIR, REVISION, SNIPPETS_DIR
from recorder.runner import Report, quiet_libraries, run_all
from recorder.snippets import Snippet, discover, key_for, sha256_bytes, source_hashes, versions_for

DEFAULT_TIMEOUT = 300.0


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Recording:
    """What one record run reads once, under the lock; `save` keeps `manifest` as written."""

    snippets: dict[str, Snippet]
    manifest: dict[str, dict[str, Any]]
    children: ExitStack = field(default_factory=ExitStack, repr=False)  # `recording` stops them if the run fails
    notebooks: aside.Aside | None = None  # the child that updates the notebooks, if one was started

    def update_notebooks_aside(self, root: Path) -> None:
        """Have a child import and read what the notebooks' update needs (most of its second)
        on the other core, while the model loads here."""
        self.notebooks = self.children.enter_context(aside.Aside("recorder.notebook", str(root)))


@contextmanager
def recording(root: Path, report: Report) -> Iterator[Recording]:
    """Hold the record lock with any interrupted run finished, and yield the snippets and manifest.

    The companion notebooks are brought up to date before the lock is let go,
    so they never lag behind the outputs; a failed run leaves them as they were.
    """
    with store.exclusive(root), ExitStack() as children:
        store.recover(root)
        current = Recording(discover(root), store.read_manifest(root), children)
        yield current
        _update_notebooks(root, report, current)


def _update_notebooks(root: Path, report: Report, current: Recording) -> None:
    if current.notebooks is None:
        from recorder import notebook  # here: a run that updates them aside never imports it

        notebook.update(root, report, current.manifest)
        return
    done = current.notebooks.go()  # it reads the manifest this run saved
    for line in done.stdout.splitlines():
        report(line)
    if done.returncode != 0:
        raise store.RecordError(done.stderr.strip() or f"updating the notebooks ended with status {done.returncode}")


def stale(root: Path, current: Recording, *, force: bool) -> list[Snippet]:
    if force:
        return list(current.snippets.values())
    flagged = {problem.snippet for problem in store.problems(root, current.snippets, current.manifest)}
    return [snippet for name, snippet in current.snippets.items() if name in flagged]


def entry(root: Path, snippet: Snippet, output: bytes, *, origin: str, seconds: float,
          model: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    return {
        "source": snippet.relative(root),
        "output": f"{OUTPUTS_DIR}/{snippet.name}.txt",
        "output_sha256": sha256_bytes(output),
        "key": key_for(snippet, root),
        "sources": source_hashes(snippet, root),
        "origin": origin,
        "model": model,
        "versions": {"python": platform.python_version(), **versions_for(snippet)},
        "recorded_at": now(),
        "seconds": round(seconds, 3),
        **extra,
    }


def save(root: Path, current: Recording, fresh: dict[str, tuple[bytes, dict[str, Any]]]) -> None:
    """Write the new outputs and the manifest in one transaction; drop deleted snippets."""
    entries = dict(current.manifest)
    removed = sorted(set(entries) - set(current.snippets))
    for name in removed:
        del entries[name]
    files = {}
    for name, (output, new_entry) in fresh.items():
        files[f"{name}.txt"] = output
        entries[name] = new_entry
    files[store.MANIFEST_NAME] = store.manifest_bytes(entries)
    store.commit(root, files, remove=[f"{name}.txt" for name in removed])
    current.manifest = entries


def record(root: Path, *, force: bool = False, timeout: float = DEFAULT_TIMEOUT,
           report: Report = print, pinned_weights: bool = True) -> int:
    """Re-run stale snippets and record them; returns how many were recorded.

    With `pinned_weights=False` the weights loaded are hashed but not compared
    with the pinned sha256: only the benchmark does that, to record its stand-in
    into a throwaway copy of the project; the command line always compares.
    """
    with recording(root, report) as current:
        snippets, previous = current.snippets, current.manifest
        targets = stale(root, current, force=force)
        targets += [s for s in published.to_confirm(snippets, previous) if s not in targets]
        dropped = set(previous) - set(snippets)
        if not targets and not dropped:
            report(f"{OUTPUTS_DIR}/ is up to date ({len(snippets)} snippets).")
            return 0
        quiet_libraries()
        if any(snippet.needs_model for snippet in targets):
            current.update_notebooks_aside(root)
            online = _configure_hub(root, targets)
            report(f"GPT-2 {MODEL_ID}@{REVISION[:7]}: {'hub reachable' if online else 'offline, from the local cache'}")
            if online:  # a failed download stops here, before any snippet runs
                hub.fetch_pinned(report)
        runs = run_all(root, targets, timeout=timeout, report=report)
        model = None
        if any(run.snippet.needs_model for run in runs):
            snapshot = hub.loaded_snapshot((root / SNIPPETS_DIR).resolve(), [run.namespace for run in runs])
            files = hub.verify_snapshot(snapshot) if pinned_weights else hub.snapshot_digests(snapshot)
            model = {"id": MODEL_ID, "revision": REVISION, "files": files}
        published.compare(root, runs, previous, report)
        fresh = {run.snippet.name: (run.stdout, entry(
            root, run.snippet, run.stdout, origin="executed", seconds=run.seconds,
            model=model if run.snippet.needs_model else None,
        )) for run in runs}
        save(root, current, fresh)
        report(f"recorded {len(runs)} of {len(snippets)} snippets into {OUTPUTS_DIR}/")
        return len(runs)


def attach(root: Path, *, force: bool, timeout: float, report: Report) -> int:
    """`make record PUBLISHED=1`: record the article's outputs for the stale model snippets."""
    with recording(root, report) as current:
        targets = [s for s in stale(root, current, force=force) if s.needs_model]
        if not targets:
            report("every model snippet's output is up to date; nothing to attach.")
            return 0
        attached = published.attach(root, targets, timeout=timeout, report=report)
        fresh = {name: (output, entry(root, current.snippets[name], output, origin="published", seconds=0.0,
                                      **fields)) for name, (output, fields) in attached.items()}
        save(root, current, fresh)
        report(f"attached {len(fresh)} published output(s)")
        return len(fresh)


def _configure_hub(root: Path, targets: list[Snippet]) -> bool:
    try:
        return hub.configure()
    except hub.ModelUnavailable as error:
        if hint := published.offline_hint(root, targets):
            raise hub.ModelUnavailable(f"{error}{hint}") from None
        raise


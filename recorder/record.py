"""`make record`: re-run what is stale, verify the model, commit outputs with provenance."""

from __future__ import annotations

import platform
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from recorder import download, hub, notebook, store
from recorder.pinned import MODEL_ID, OUTPUTS_DIR, PUBLISHED_DIR, REVISION, SNIPPETS_DIR
from recorder.runner import Run, quiet_libraries, run_one
from recorder.snippets import Snippet, discover, key_for, sha256_bytes, source_hashes, versions_for

DEFAULT_TIMEOUT = 300.0
Report = Callable[[str], None]
# Checks the snapshot the model was loaded from and returns its files' sha256 by name.
VerifyWeights = Callable[[Path], dict[str, str]]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@contextmanager
def recording(root: Path, report: Report) -> Iterator[dict[str, Snippet]]:
    """Hold the record lock with any interrupted run finished, and yield the snippets.

    The companion notebooks are brought up to date before the lock is let go,
    so they never lag behind the outputs; a failed run leaves them as they were.
    """
    with store.exclusive(root):
        store.recover(root)
        yield discover(root)
        notebook.update(root, report)


def stale(root: Path, snippets: dict[str, Snippet], *, force: bool) -> list[Snippet]:
    if force:
        return list(snippets.values())
    flagged = {problem.snippet for problem in store.problems(root, snippets)}
    return [snippet for name, snippet in snippets.items() if name in flagged]


def run_all(root: Path, targets: Iterable[Snippet], *, timeout: float, report: Report) -> list[Run]:
    targets = list(targets)
    runs = []
    for number, snippet in enumerate(targets, 1):
        run = run_one(snippet, root, timeout=timeout)
        report(f"[{number}/{len(targets)}] {snippet.relative(root)}  {run.seconds:.2f} s")
        runs.append(run)
    return runs


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


def save(root: Path, snippets: dict[str, Snippet], fresh: dict[str, tuple[bytes, dict[str, Any]]]) -> None:
    """Write the new outputs and the manifest in one transaction; drop deleted snippets."""
    entries = store.read_manifest(root)
    removed = sorted(set(entries) - set(snippets))
    for name in removed:
        del entries[name]
    files = {}
    for name, (output, new_entry) in fresh.items():
        files[f"{name}.txt"] = output
        entries[name] = new_entry
    files[store.MANIFEST_NAME] = store.manifest_bytes(entries)
    store.commit(root, files, remove=[f"{name}.txt" for name in removed])


def record(root: Path, *, force: bool = False, timeout: float = DEFAULT_TIMEOUT,
           report: Report = print, verify_weights: VerifyWeights = hub.verify_snapshot) -> int:
    """Re-run stale snippets and record them; returns how many were recorded.

    Only the benchmark passes another `verify_weights`, on a throwaway copy of
    the project; the command line always verifies against the pinned sha256.
    """
    with recording(root, report) as snippets:
        previous = store.read_manifest(root)
        targets = stale(root, snippets, force=force)
        targets += [s for s in _published_to_confirm(snippets, previous) if s not in targets]
        dropped = set(previous) - set(snippets)
        if not targets and not dropped:
            report(f"{OUTPUTS_DIR}/ is up to date ({len(snippets)} snippets).")
            return 0
        quiet_libraries()
        if any(snippet.needs_model for snippet in targets):
            online = _configure_hub(root, targets)
            report(f"GPT-2 {MODEL_ID}@{REVISION[:7]}: {'hub reachable' if online else 'offline, from the local cache'}")
            if online:  # a failed download stops here, before any snippet runs
                download.fetch_pinned(report)
            cached = hub.cached_weights()
            if cached is not None:  # the weights the snippets will load: hash them while they run
                hub.hash_ahead(cached.parent)
        runs = run_all(root, targets, timeout=timeout, report=report)
        model = None
        if any(run.snippet.needs_model for run in runs):
            snapshot = hub.loaded_snapshot((root / SNIPPETS_DIR).resolve(), [run.namespace for run in runs])
            model = {"id": MODEL_ID, "revision": REVISION, "files": verify_weights(snapshot)}
        fresh = {}
        for run in runs:
            before = previous.get(run.snippet.name)
            if before and before["origin"] == "published":
                _compare_with_published(root, run, report)
            fresh[run.snippet.name] = (run.stdout, entry(
                root, run.snippet, run.stdout, origin="executed", seconds=run.seconds,
                model=model if run.snippet.needs_model else None,
            ))
        save(root, snippets, fresh)
        report(f"recorded {len(runs)} of {len(snippets)} snippets into {OUTPUTS_DIR}/")
        return len(runs)


def _published_to_confirm(snippets: dict[str, Snippet], entries: dict[str, Any]) -> list[Snippet]:
    """Outputs taken from the published run are re-executed whenever GPT-2 can be loaded."""
    pending = [snippet for name, snippet in snippets.items()
               if snippet.needs_model and entries.get(name, {}).get("origin") == "published"]
    return pending if pending and hub.model_within_reach() else []


def _configure_hub(root: Path, targets: list[Snippet]) -> bool:
    try:
        return hub.configure()
    except hub.ModelUnavailable as error:
        published = [s.name for s in targets if (root / PUBLISHED_DIR / f"{s.name}.txt").exists()]
        if published:
            raise hub.ModelUnavailable(
                f"{error}\nOr, to attach the article's published outputs for {', '.join(published)} "
                "after checking them against stand-in checkpoints: `make record PUBLISHED=1`."
            ) from None
        raise


def _compare_with_published(root: Path, run: Run, report: Report) -> None:
    old = store.output_path(root, run.snippet.name).read_bytes()
    if old == run.stdout:
        report(f"  confirmed: {run.snippet.relative(root)} prints exactly the published output")
    else:
        report(f"  DIFFERENT: {run.snippet.relative(root)} now prints, on the real model:\n"
               f"{run.stdout.decode()}  instead of the published:\n{old.decode()}")

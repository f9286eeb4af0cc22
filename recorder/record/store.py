"""The recorded outputs on disk: `outputs/<part>/<snippet>.txt` plus `outputs/manifest.json`.

A record run changes them as one transaction: new files are written and synced into
`outputs/.transaction/`, then a `READY` file makes the set complete, and only then are they moved into
place. A run killed before `READY` leaves the previous outputs untouched; one killed after it is
finished by the next run (`recover`). One run at a time holds the lock.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from recorder.project.errors import RecorderError
from recorder.project.manifest import LOCK, OUTPUTS_DIR, READY, TRANSACTION


def _fsync_dir(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _write_synced(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())


def replace_file(path: Path, data: bytes) -> None:
    """Write a generated file whole or not at all: readers see the old bytes or the new."""
    staged = path.with_name(f".{path.name}.tmp")
    _write_synced(staged, data)
    os.replace(staged, path)
    _fsync_dir(path.parent)


def recover(root: Path) -> None:
    """Finish a transaction that reached READY; discard one that did not."""
    staging = root / OUTPUTS_DIR / TRANSACTION
    if not staging.exists():
        return
    if (staging / READY).exists():
        _finish(root / OUTPUTS_DIR, staging)
    shutil.rmtree(staging)


def _finish(folder: Path, staging: Path) -> None:
    """Move a complete transaction's files into place, then delete the files it removes."""
    ready = staging / READY
    removals = json.loads(ready.read_text(encoding="utf-8"))["remove"]
    for staged in sorted(path for path in staging.rglob("*") if path.is_file() and path != ready):
        target = folder / staged.relative_to(staging)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)
    _remove(folder, removals)
    _fsync_dir(folder)


def _remove(folder: Path, names: list[str]) -> None:
    """Delete these files of `folder`, and each folder of theirs that this leaves empty."""
    for name in names:
        (folder / name).unlink(missing_ok=True)
    for emptied in sorted({(folder / name).parent for name in names} - {folder}):
        if emptied.is_dir() and not any(emptied.iterdir()):
            emptied.rmdir()  # the folder of a removed part


def commit(root: Path, files: dict[str, bytes], remove: list[str]) -> None:
    """Replace `files` (names inside outputs/) and delete `remove`, all or nothing."""
    staging = root / OUTPUTS_DIR / TRANSACTION
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name, data in files.items():
        _write_synced(staging / name, data)
    replace_file(staging / READY, json.dumps({"remove": remove}).encode())
    recover(root)


@contextmanager
def exclusive(root: Path) -> Iterator[None]:
    """Hold the record lock, or refuse at once naming who holds it."""
    from filelock import FileLock, Timeout  # here: every build imports this module, none takes the lock

    path = root / OUTPUTS_DIR / LOCK
    path.parent.mkdir(exist_ok=True)
    # The file stays: it holds the pid of the run that has the lock, for the next run's refusal.
    lock = FileLock(path, blocking=False, on_acquired=_write_holder)
    try:
        lock.acquire()
    except Timeout:
        holder = path.read_text(encoding="utf-8").strip() or "unknown"
        raise RecorderError(
            f"another record run (pid {holder}) is writing {OUTPUTS_DIR}/. "
            "Wait for it to finish, then run `make record` again."
        ) from None
    try:
        yield
    finally:
        os.truncate(path, 0)
        lock.release()


def _write_holder(descriptor: int) -> None:
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, str(os.getpid()).encode(), 0)

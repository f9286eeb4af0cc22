"""Run snippets in this process, so imports and the model load are paid once, and capture what each prints:
stdout is recorded; stderr (library noise) is shown when a snippet fails."""

from __future__ import annotations

import contextlib
import gc
import io
import itertools
import multiprocessing
import os
import random
import runpy
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, NamedTuple, TypeVar

from recorder.project.errors import RecorderError
from recorder.project.manifest import Origin
from recorder.project.snippets import Snippet, import_path
from recorder.record.hub import hub_failure

Report = Callable[[str], None]  # where progress lines go: print, or a test's list
Result = TypeVar("Result")
MAX_OUTPUT_BYTES = 64 * 1024  # more is a runaway loop, not something to put on a page
QUIET_LIBRARIES = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


class _Stopped(BaseException):  # not an Exception, which a snippet's own `except Exception` would swallow
    """Raised inside a snippet that runs too long or prints too much, saying so."""


class Run(NamedTuple):
    snippet: Snippet
    stdout: bytes
    seconds: float
    namespace: dict[str, Any]  # a weight snippet's globals, where the record step finds the model it loaded


def quiet_libraries() -> None:
    """Silence progress bars and advisories; must happen before transformers is imported."""
    for name, value in QUIET_LIBRARIES.items():
        os.environ.setdefault(name, value)


class _CappedBuffer(io.BytesIO):
    def write(self, data: Any) -> int:
        if self.tell() + len(data) > MAX_OUTPUT_BYTES:  # in the snippet's print: before a runaway loop fills memory
            raise _Stopped(
                f"printed more than {MAX_OUTPUT_BYTES:,} bytes, more than a page shows. "
                "Print less (a slice, a shape, a summary)."
            )
        return super().write(data)


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise _Stopped(
            f"did not finish within {seconds:g} s. Make it faster, or raise the limit with "
            "`make record TIMEOUT=<seconds>`."
        )

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def snippet_modules(snippets_dir: Path) -> dict[str, ModuleType]:
    """The modules below `snippets_dir` that snippets imported (like `pinned_gpt2`), by name."""
    # By the text of their paths, which come from the resolved folders on sys.path: not by resolving the path of
    # each of the thousands of modules torch brings, once after every snippet.
    folder = f"{snippets_dir.resolve()}{os.sep}"
    return {
        name: module
        for name, module in list(sys.modules.items())
        if (path := getattr(module, "__file__", None)) and os.path.abspath(path).startswith(folder)
    }


@contextlib.contextmanager
def part_imports(part: Path) -> Iterator[None]:
    """Snippets of the part folder `part` run in the block import its modules, not another part's of the same name: its
    import path goes first on sys.path, and the snippet modules loaded before are forgotten, to run (load GPT-2) anew.
    Not after the block: the record step looks in them for the model they loaded."""
    for name in snippet_modules(part.parent):
        del sys.modules[name]
    folders = [str(folder) for folder in import_path(part)]
    sys.path[:0] = folders
    try:
        yield
    finally:
        sys.path[:] = [entry for entry in sys.path if entry not in folders]


def _same_seeds() -> None:
    """The same seeds before every snippet, so the order they run in cannot change an output."""
    random.seed(0)
    if torch := sys.modules.get("torch"):
        torch.manual_seed(0)


def _raised(error: Exception, snippet: Snippet, source: str, stderr: bytes) -> RecorderError:
    """An error a snippet raised, told with the snippet's own lines of its traceback (not the runner's or the
    libraries'), what the snippet wrote to stderr, and how to check a fix."""
    folder = snippet.path.parents[1].resolve()
    lines = [
        f'  File "{path.relative_to(folder.parent)}", line {frame.lineno}\n    {frame.line}\n'
        for frame in traceback.extract_tb(error.__traceback__)
        if (path := Path(frame.filename).resolve()).is_relative_to(folder)
    ]
    written = stderr.decode("utf-8", errors="replace").strip()
    return RecorderError(
        f"{source} raised an error:\n{''.join(lines + traceback.format_exception_only(error))}"
        + (f"\nWhat it wrote to stderr:\n{written}\n" if written else "")
        + f"Fix the snippet, check it with `python {source}`, then run `make record`."
    )


def _text(stdout: bytes, source: str) -> bytes:
    """`stdout`, refused unless it is UTF-8 text."""
    try:
        stdout.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecorderError(
            f"{source} printed bytes that are not valid UTF-8 ({error.reason} at byte {error.start})."
            " Print text: decode bytes first, or print their repr()."
        ) from None
    return stdout


def run_one(snippet: Snippet, root: Path, *, timeout: float) -> Run:
    printed, noise = _CappedBuffer(), io.BytesIO()
    # Streams like sys.stdout, `.buffer` included: the bytes written reach the buffers unchanged.
    stdout, stderr = (
        io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogatepass", newline="", write_through=True)
        for buffer in (printed, noise)
    )
    source = snippet.relative(root)
    _same_seeds()
    started = time.perf_counter()
    try:
        with _deadline(timeout), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            namespace = runpy.run_path(str(snippet.path), run_name="__main__")
    except _Stopped as stopped:
        raise RecorderError(f"{source} {stopped}") from None
    except SystemExit as exit_:
        if exit_.code not in (None, 0):
            raise RecorderError(f"{source} exited with status {exit_.code}.") from None
        namespace = {}
    except Exception as error:  # any error a snippet raises is reported, with its own lines
        if (failure := hub_failure(error, source, snippet.runs_on)) is not None:
            raise failure from error
        raise _raised(error, snippet, source, noise.getvalue()) from None
    seconds = time.perf_counter() - started
    return Run(
        snippet, _text(printed.getvalue(), source), seconds, namespace if snippet.runs_on is Origin.WEIGHTS else {}
    )


def run_all(root: Path, targets: list[Snippet], *, timeout: float, report: Report) -> list[Run]:
    runs = []
    for part, snippets in itertools.groupby(targets, key=lambda snippet: snippet.path.parent):
        with part_imports(part):
            for snippet in snippets:
                runs.append(run_one(snippet, root, timeout=timeout))
                # What a snippet built and left in reference cycles (a model of its own) goes before the next one
                # runs, and what survives is frozen out of later collections' sight, which then cost nothing.
                gc.collect()
                gc.freeze()
                report(f"[{len(runs)}/{len(targets)}] {snippet.relative(root)}  {runs[-1].seconds:.2f} s")
    return runs


def in_child(function: Callable[..., Result], *args: Any) -> Result:
    """`function(*args)` in a fresh interpreter, spawned to inherit no imports (torch, the hub library)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as child:
        return child.submit(function, *args).result()

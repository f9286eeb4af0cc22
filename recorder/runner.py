"""Run snippets inside this process and capture what each prints.

One process runs them all so imports and the model load are paid once; a
snippet imported by others (like `pinned_gpt2`) stays loaded between runs.
Only stdout is recorded. Library noise goes to stderr, which is kept aside
and shown only when a snippet fails. Work that must not share this process
(stand-in checkpoints, runs against them) goes to a child with `in_child`.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import random
import runpy
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, TypeVar

from recorder.errors import RecorderError
from recorder.hub import hub_failure
from recorder.snippets import Snippet

# Where progress lines go: print, or a test's list.
Report = Callable[[str], None]
Result = TypeVar("Result")
# An output larger than this is a runaway loop, not something to put on a page.
MAX_OUTPUT_BYTES = 64 * 1024

QUIET_LIBRARIES = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


class SnippetFailed(RecorderError):
    """A snippet raised, hung, or printed something that cannot be recorded."""


@dataclass(frozen=True)
class Run:
    snippet: Snippet
    stdout: bytes
    seconds: float
    namespace: dict[str, Any]  # the snippet's globals, where the record step finds what it loaded


def quiet_libraries() -> None:
    """Silence progress bars and advisories; must happen before transformers is imported."""
    for name, value in QUIET_LIBRARIES.items():
        os.environ.setdefault(name, value)


class _Timeout(BaseException):
    # A BaseException, so a snippet's own `except Exception` cannot swallow it.
    pass


class _OutputLimit(BaseException):
    # Raised inside the snippet's print, so a runaway loop stops before it fills memory.
    pass


class _CappedBuffer(io.BytesIO):
    """The bytes a snippet prints, refusing any beyond MAX_OUTPUT_BYTES."""

    def write(self, data: Any) -> int:
        if self.tell() + len(data) > MAX_OUTPUT_BYTES:
            raise _OutputLimit
        return super().write(data)


def _text_stream(buffer: io.BytesIO) -> io.TextIOWrapper:
    """A stream like sys.stdout, `.buffer` included; bytes written reach `buffer` unchanged."""
    return io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogatepass", newline="", write_through=True)


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _snippet_traceback(error: BaseException, snippets_dir: Path) -> str:
    """The traceback lines that point into snippets/, not into the runner or libraries."""
    frames = [
        frame for frame in traceback.extract_tb(error.__traceback__)
        if Path(frame.filename).resolve().is_relative_to(snippets_dir.resolve())
    ]
    lines = [f'  File "{Path(f.filename).relative_to(snippets_dir.resolve().parent)}", '
             f"line {f.lineno}\n    {f.line}\n" for f in frames]
    return "".join(lines) + "".join(traceback.format_exception_only(error))


def _reset_random_state() -> None:
    """Same seeds before every snippet, so run order cannot change an output."""
    random.seed(0)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(0)


def snippet_modules(snippets_dir: Path) -> dict[str, ModuleType]:
    """The modules below `snippets_dir` that snippets imported (like `pinned_gpt2`), by name."""
    # By the text of their paths, which come from the resolved folders on sys.path: resolving
    # each of the thousands of modules torch brings would cost a tenth of a second a call.
    folder = f"{snippets_dir.resolve()}{os.sep}"
    return {name: module for name, module in list(sys.modules.items())
            if (path := getattr(module, "__file__", None)) and os.path.abspath(path).startswith(folder)}


def forget_snippet_modules(snippets_dir: Path) -> None:
    """Unload them, so the next snippet that imports one runs it again (and loads the model anew)."""
    for name in snippet_modules(snippets_dir):
        del sys.modules[name]


_entered: list[Path] = []  # the part folder whose modules snippets import now


def _enter_part(folder: Path) -> None:
    """Make `folder`'s modules the ones snippets import: two parts may each have a `prompt.py`."""
    if _entered == [folder]:
        return
    sys.path[:] = [entry for entry in sys.path if Path(entry) not in _entered]
    forget_snippet_modules(folder.parent)
    sys.path.insert(0, str(folder))
    _entered[:] = [folder]


def run_one(snippet: Snippet, root: Path, *, timeout: float) -> Run:
    snippets_dir = snippet.path.parent.parent
    _enter_part(snippet.path.parent)
    printed, noise = _CappedBuffer(), io.BytesIO()
    stdout, stderr = _text_stream(printed), _text_stream(noise)
    source = snippet.relative(root)
    _reset_random_state()
    started = time.perf_counter()
    try:
        with _deadline(timeout), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            namespace = runpy.run_path(str(snippet.path), run_name="__main__")
    except _Timeout:
        raise SnippetFailed(
            f"{source} did not finish within {timeout:g} s. Make it faster, or raise the "
            f"limit with `make record TIMEOUT=<seconds>`."
        ) from None
    except _OutputLimit:
        raise SnippetFailed(
            f"{source} printed more than {MAX_OUTPUT_BYTES:,} bytes, more than a page shows. "
            "Print less (a slice, a shape, a summary)."
        ) from None
    except SystemExit as exit_:
        if exit_.code not in (None, 0):
            raise SnippetFailed(f"{source} exited with status {exit_.code}.") from None
        namespace = {}
    except Exception as error:  # any error a snippet raises is reported, with its own lines
        if (failure := hub_failure(error, source)) is not None:
            raise failure from error
        written = noise.getvalue().decode("utf-8", errors="replace").strip()
        raise SnippetFailed(
            f"{source} raised an error:\n{_snippet_traceback(error, snippets_dir)}"
            + (f"\nWhat it wrote to stderr:\n{written}\n" if written else "")
            + f"Fix the snippet, check it with `python {source}`, then run `make record`."
        ) from None
    seconds = time.perf_counter() - started
    return Run(snippet, _checked_output(printed.getvalue(), source), seconds, namespace)


def _checked_output(data: bytes, source: str) -> bytes:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SnippetFailed(
            f"{source} printed bytes that are not valid UTF-8 ({error.reason} at byte "
            f"{error.start}). Print text: decode bytes first, or print their repr()."
        ) from None
    return data


def run_all(root: Path, targets: Iterable[Snippet], *, timeout: float, report: Report) -> list[Run]:
    targets = list(targets)
    runs = []
    for number, snippet in enumerate(targets, 1):
        run = run_one(snippet, root, timeout=timeout)
        report(f"[{number}/{len(targets)}] {snippet.relative(root)}  {run.seconds:.2f} s")
        runs.append(run)
    return runs


def in_child(function: Callable[..., Result], *args: Any) -> Result:
    """`function(*args)` in a fresh interpreter (spawned, not forked): its result, or its error raised here.

    For work whose imports (torch, the hub library) must not happen in, or be
    inherited from, this process; a child that dies raises BrokenProcessPool.
    """
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as child:
        return child.submit(function, *args).result()

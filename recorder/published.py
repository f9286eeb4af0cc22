"""Attach the article's published outputs for snippets that need GPT-2's real weights.

No machine that builds this site can load those weights, so their outputs are
the ones the article reports (`published/<snippet>.txt`). They are accepted
only after the snippet runs against two stand-in checkpoints with the real
tokenizer: a line both runs print identically does not depend on weight values
and must equal the published line exactly; a line the two runs print
differently depends on the weights and must have the published line's form
(the same text around the same count of numbers with the same decimals).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from recorder import checkpoint, hub
from recorder.errors import RecorderError
from recorder.pinned import MODEL_ID, PUBLISHED_DIR, REVISION, SNIPPETS_DIR
from recorder.record import Report, entry, recording, run_all, save, stale
from recorder.runner import forget_snippet_modules, quiet_libraries
from recorder.snippets import Snippet, SnippetError, discover

# What the article states its outputs were produced with.
PUBLISHED_WITH = {"transformers": "5.17.0"}
SEEDS = (1, 2)
NUMBER = re.compile(r"[-+]?\d+(?:\.(\d+))?(?:[eE][-+]?\d+)?")


class PublishedMismatch(RecorderError):
    """The published text cannot be what this snippet prints."""


def form(line: str) -> str:
    """The line with each number replaced by its count of decimals."""
    return NUMBER.sub(lambda match: f"<{len(match.group(1) or '')}>", line)


def check(name: str, expected_text: str, trials: list[str], *, label: str) -> tuple[int, int]:
    """Compare an expected output (`label` names its file) with runs against stand-ins.

    Returns (lines that must and do equal, weight-dependent lines of the same form).
    """
    expected = expected_text.splitlines()
    runs = [trial.splitlines() for trial in trials]
    if any(len(run) != len(expected) for run in runs):
        raise PublishedMismatch(
            f"{label} has {len(expected)} lines but snippets/{name}.py prints "
            f"{len(runs[0])}. Make the snippet print what {label} shows."
        )
    exact = by_form = 0
    for number, (line, *trial_lines) in enumerate(zip(expected, *runs), 1):
        if len(set(trial_lines)) == 1:
            if line != trial_lines[0]:
                raise PublishedMismatch(
                    f"{label} line {number} is {line!r}, but snippets/{name}.py "
                    f"prints {trial_lines[0]!r}, and that line does not depend on weight values. "
                    f"Fix the snippet (or {label}, if it was copied wrongly)."
                )
            exact += 1
        else:
            if form(line) != form(trial_lines[0]):
                raise PublishedMismatch(
                    f"{label} line {number} is {line!r}, which does not have "
                    f"the form of what snippets/{name}.py prints ({trial_lines[0]!r}). "
                    f"Make the snippet format its numbers as {label} does."
                )
            by_form += 1
    return exact, by_form


def trial_outputs(root: Path, names: list[str], hub_caches: list[Path], timeout: float) -> list[dict[str, str]]:
    """What the snippets print against the checkpoint in each of `hub_caches`, in that order.

    In a child process, offline: this one may have loaded other libraries or the
    real model already. One child runs every checkpoint, paying the imports once.
    """
    caches = [argument for cache in hub_caches for argument in ("--hub-cache", str(cache))]
    result = subprocess.run(
        [sys.executable, "-m", "recorder", "--root", str(root), "trial", "--timeout", str(timeout), *caches, *names],
        env={**os.environ, "HF_HUB_OFFLINE": "1"}, capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        raise PublishedMismatch(result.stderr.strip())
    return json.loads(result.stdout)


@contextmanager
def stand_in_checkpoints(report: Report) -> Iterator[list[Path]]:
    """Hugging Face caches holding a stand-in checkpoint each, one per seed; removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="gpt2-stand-in-") as folder:
        caches = []
        for seed in SEEDS:
            cache = Path(folder) / f"seed-{seed}"
            report(f"creating a stand-in checkpoint (seed {seed}) to check against")
            checkpoint.create(cache, seed=seed)
            caches.append(cache)
        yield caches


def run_trials(root: Path, names: list[str], hub_caches: list[Path], *, timeout: float,
               report: Report) -> list[dict[str, str]]:
    """In this process, offline: what the named snippets print against each checkpoint in turn."""
    quiet_libraries()
    snippets = discover(root)
    unknown = [name for name in names if name not in snippets]
    if unknown:
        raise SnippetError(f"no snippets/{unknown[0]}.py. Known: {', '.join(snippets)}")
    outputs = []
    for cache in hub_caches:
        hub.use_cache(cache)
        forget_snippet_modules(root / SNIPPETS_DIR)
        runs = run_all(root, (snippets[name] for name in names), timeout=timeout, report=report)
        outputs.append({run.snippet.name: run.stdout.decode() for run in runs})
    return outputs


def attach(root: Path, *, force: bool, timeout: float, report: Report) -> int:
    with recording(root, report) as snippets:
        targets = [s for s in stale(root, snippets, force=force) if s.needs_model]
        if not targets:
            report("every model snippet's output is up to date; nothing to attach.")
            return 0
        texts = {snippet.name: _published_text(root, snippet) for snippet in targets}
        names = [snippet.name for snippet in targets]
        with stand_in_checkpoints(report) as caches:
            trials = trial_outputs(root, names, caches, timeout)
        fresh = {}
        for snippet in targets:
            exact, by_form = check(snippet.name, texts[snippet.name], [t[snippet.name] for t in trials],
                                   label=f"{PUBLISHED_DIR}/{snippet.name}.txt")
            report(f"{snippet.relative(root)}: {exact} line(s) equal, {by_form} weight-dependent line(s) of the same form")
            output = texts[snippet.name].encode()
            fresh[snippet.name] = (output, entry(
                root, snippet, output, origin="published", seconds=0.0,
                model={"id": MODEL_ID, "revision": REVISION, "files": None},
                published={
                    "text": f"{PUBLISHED_DIR}/{snippet.name}.txt",
                    "reported_with": PUBLISHED_WITH,
                    "exact_lines": exact,
                    "weight_dependent_lines": by_form,
                },
            ))
        save(root, snippets, fresh)
        report(f"attached {len(fresh)} published output(s)")
        return len(fresh)


def _published_text(root: Path, snippet: Snippet) -> str:
    path = root / PUBLISHED_DIR / f"{snippet.name}.txt"
    if not path.exists():
        raise PublishedMismatch(
            f"{snippet.relative(root)} needs GPT-2's weights and {path.relative_to(root)} does not "
            "exist: only outputs the article published can be attached. Record it for real with "
            "network access (`make record`)."
        )
    return path.read_text(encoding="utf-8")

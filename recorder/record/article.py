"""Attach the article's published outputs (`published/<snippet>.txt`) for snippets that need GPT-2's weights, which
no machine that builds this site can load. The snippet runs against two stand-in checkpoints (GPT-2's configuration
with one layer, its real tokenizer, random weights): a line both runs print alike does not depend on weight values
and must equal the published one; any other must have its `form`."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from itertools import zip_longest
from pathlib import Path
from typing import Any

from recorder.project import gpt2
from recorder.project.config import PUBLISHED_DIR, Options
from recorder.project.errors import RecorderError
from recorder.project.gpt2 import REVISION
from recorder.project.manifest import Article, Origin, Record, output_path
from recorder.project.provenance import counted
from recorder.project.snippets import Snippet, discover
from recorder.record import hub
from recorder.record.runner import Report, Run, in_child, quiet_libraries, run_all

SEEDS = (1, 2)
NUMBER = re.compile(r"[-+]?\d+(?:\.(\d+))?(?:[eE][-+]?\d+)?")


def form(line: str) -> str:
    """The line with each number replaced by its count of decimals: the same text around as many numbers."""
    return NUMBER.sub(lambda match: f"<{len(match.group(1) or '')}>", line)


def lines_depending_on_weights(texts: list[str]) -> set[int]:
    """The lines (from 1) that outputs of one snippet printed with different weights do not all print alike: the
    lines that depend on weight values. The outputs have as many lines each."""
    rows = zip(*(text.splitlines() for text in texts), strict=True)
    return {number for number, lines in enumerate(rows, 1) if len(set(lines)) > 1}


def differing_lines(recorded: str, printed: str, weight_dependent: set[int]) -> list[dict[str, Any]]:
    """The lines (from 1) that `printed` does not print as `recorded` does: by form where they depend on weight values
    (`weight_dependent`), else exactly. A line that only one of them has differs."""
    lines = []
    for number, (want, have) in enumerate(zip_longest(recorded.splitlines(), printed.splitlines()), 1):
        by_form = number in weight_dependent
        if want is None or have is None or (form(want) != form(have) if by_form else want != have):
            lines.append(
                {"line": number, "recorded": want, "printed": have, "compared": "by form" if by_form else "exactly"}
            )
    return lines


def check(name: str, expected_text: str, trials: list[str], *, label: str) -> tuple[int, int]:
    """How many lines of an expected output (`label` names its file) equal the runs against stand-ins, and how many
    depend on weights but have the same form."""
    expected, runs = expected_text.splitlines(), [trial.splitlines() for trial in trials]
    if any(len(run) != len(expected) for run in runs):
        raise RecorderError(
            f"{label} has {len(expected)} lines but snippets/{name}.py prints "
            f"{len(runs[0])}. Make the snippet print what {label} shows."
        )
    depends = lines_depending_on_weights(trials)
    if differing := differing_lines(expected_text, trials[0], depends):
        first = differing[0]
        line, printed = f"{label} line {first['line']} is {first['recorded']!r}", first["printed"]
        raise RecorderError(
            f"{line}, but snippets/{name}.py prints {printed!r}, and that line does not depend on weight values. "
            f"Fix the snippet (or {label}, if it was copied wrongly)."
            if first["compared"] == "exactly"
            else f"{line}, which does not have the form of what snippets/{name}.py prints ({printed!r}). "
            f"Make the snippet format its numbers as {label} does."
        )
    return len(expected) - len(depends), len(depends)


def trial_outputs(root: Path, names: list[str], hub_caches: list[Path], timeout: float) -> list[dict[str, str]]:
    """What the snippets print against the checkpoint in each of `hub_caches`, in one fresh child, offline: this
    process may have imported the hub library (which reads HF_HUB_OFFLINE once) or loaded the real model."""
    try:
        return in_child(run_trials, root, names, hub_caches, timeout)
    except BrokenProcessPool as error:
        raise RecorderError(f"the process running the snippets against the stand-ins died: {error}") from None


def run_trials(root: Path, names: list[str], hub_caches: list[Path], timeout: float) -> list[dict[str, str]]:
    os.environ["HF_HUB_OFFLINE"] = "1"
    quiet_libraries()
    snippets = discover(root)
    outputs = []
    for cache in hub_caches:
        os.environ["HF_HUB_CACHE"] = str(cache)
        if constants := sys.modules.get("huggingface_hub.constants"):  # read once imported; the loaders read it here
            constants.HF_HUB_CACHE = str(cache)
        runs = run_all(
            root,
            [snippets[name] for name in names],
            timeout=timeout,
            report=lambda line: print(line, file=sys.stderr, flush=True),
        )
        outputs.append({run.snippet.name: run.stdout.decode() for run in runs})
    return outputs


def create_stand_ins(seeds: dict[Path, int], *, n_layer: int = 1) -> None:
    """A stand-in checkpoint in each Hugging Face cache of `seeds` from its seed, made in a child to keep torch out."""
    in_child(make_stand_ins, seeds, n_layer)


def make_stand_ins(seeds: dict[Path, int], n_layer: int) -> None:
    """`create_stand_ins` in this process, which then has torch and transformers imported."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer
    from transformers.utils import logging

    logging.disable_progress_bar()
    packaged = gpt2.packaged_tokenizer_files()
    for hub_cache, seed in seeds.items():
        snapshot = gpt2.snapshot_dir(hub_cache)
        torch.manual_seed(seed)
        GPT2LMHeadModel(GPT2Config(n_layer=n_layer)).save_pretrained(snapshot)  # one layer has every shape printed
        GPT2Tokenizer(vocab=str(packaged["vocab.json"]), merges=str(packaged["merges.txt"])).save_pretrained(snapshot)
        _as_on_the_hub(snapshot / "tokenizer.json")
        # Saved, the tokenizer is tokenizer.json alone: these for snippets that fetch them by name (`hf_hub_download`).
        for name, path in packaged.items():
            shutil.copyfile(path, snapshot / name)
        (snapshot.parent.parent / "refs").mkdir(exist_ok=True)
        (snapshot.parent.parent / "refs" / "main").write_text(REVISION)


def _as_on_the_hub(tokenizer_json: Path) -> None:
    """Written as the hub's GPT-2 file is, compact and each merge one "a b" string (1.4 MB, not 3.5 MB), which
    the tokenizers library reads as well: every snippet that loads the tokenizer parses it, 2 to 3 times faster."""
    saved = json.loads(tokenizer_json.read_text(encoding="utf-8"))
    # Byte-level tokens hold no space (a space is `Ġ`), so "a b" is unambiguous.
    saved["model"]["merges"] = [" ".join(pair) if isinstance(pair, list) else pair for pair in saved["model"]["merges"]]
    tokenizer_json.write_text(json.dumps(saved, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


@contextmanager
def stand_in_checkpoints(report: Report) -> Iterator[list[Path]]:
    """Hugging Face caches holding a stand-in checkpoint each, one per seed; removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="gpt2-stand-in-") as folder:
        seeds = {Path(folder) / f"seed-{seed}": seed for seed in SEEDS}
        report(f"creating stand-in checkpoints (seeds {', '.join(map(str, SEEDS))}) to check against")
        create_stand_ins(seeds)
        yield list(seeds)


def attach(
    root: Path, targets: list[Snippet], options: Options, *, timeout: float, report: Report
) -> dict[str, tuple[bytes, Article]]:
    """Each of `targets`' published output by name, checked against stand-ins, with what its record says of it (and
    `options`, the project's, of the article)."""
    texts = {}
    for snippet in targets:
        if not (path := root / PUBLISHED_DIR / f"{snippet.name}.txt").exists():
            raise RecorderError(
                f"{snippet.relative(root)} needs GPT-2's weights and {path.relative_to(root)} "
                "does not exist: only outputs the article published can be attached. Record it "
                "for real with network access (`make record`)."
            )
        texts[snippet.name] = path.read_text(encoding="utf-8")
    with stand_in_checkpoints(report) as caches:
        trials = trial_outputs(root, list(texts), caches, timeout)
    attached = {}
    for snippet in targets:
        name, label = snippet.name, f"{PUBLISHED_DIR}/{snippet.name}.txt"
        exact, by_form = check(name, texts[name], [trial[name] for trial in trials], label=label)
        report(
            f"{snippet.relative(root)}: {counted(exact, 'line')} equal, "
            f"{counted(by_form, 'weight-dependent line')} of the same form"
        )
        title, stated, prose = options.article(name)
        attached[name] = (texts[name].encode(), Article(title, label, stated, prose, exact, by_form))
    return attached


def to_confirm(snippets: dict[str, Snippet], records: dict[str, Record], probe: Callable[[], bool]) -> list[Snippet]:
    """Outputs taken from the article are executed whenever GPT-2 can be loaded (`probe`: whether the hub
    answers)."""
    pending = [
        snippet
        for name, snippet in snippets.items()
        if snippet.runs_on is Origin.WEIGHTS and name in records and not records[name].origin.executed
    ]
    return pending if pending and hub.model_within_reach(probe) else []


def compare(root: Path, runs: list[Run], records: dict[str, Record], report: Report) -> None:
    """Say whether each run of an output taken from the article, now on the real model, prints what the article did."""
    for run in runs:
        if run.snippet.name in records and not records[run.snippet.name].origin.executed:
            old = output_path(root, run.snippet.name).read_bytes()
            report(
                f"  confirmed: {run.snippet.relative(root)} prints exactly the published output"
                if old == run.stdout
                else f"  DIFFERENT: {run.snippet.relative(root)} now prints, on the real model:\n"
                f"{run.stdout.decode()}  instead of the published:\n{old.decode()}"
            )


def offline_hint(root: Path, targets: list[Snippet]) -> str:
    """What to do instead when GPT-2 is out of reach, for those of `targets` the article published."""
    if in_article := [s.name for s in targets if (root / PUBLISHED_DIR / f"{s.name}.txt").exists()]:
        return (
            f"\nOr, to attach the article's published outputs for {', '.join(in_article)} "
            "after checking them against stand-in checkpoints: `make record PUBLISHED=1`."
        )
    return ""

"""Plain helpers for the tests (fixtures live in conftest.py)."""

from __future__ import annotations

import functools
import io
import logging
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ZENSICAL = str(Path(sys.executable).with_name("zensical"))  # installed beside this interpreter
SEEDS = (1, 2)  # of the stand-in checkpoints: lines that differ between the two depend on weight values
# What a project copy needs to record outputs and build the site, copied, and the code, linked: mkdocs-llmstxt
# takes its `preprocess` module by path from the copy, and a command run in the copy imports `recorder` from
# there, so a partial recorder/ would hide the subpackages it lacks.
PROJECT_PARTS = ("compat", "docs", "outputs", "overrides", "published", "snippets", "mkdocs.yml", "requirements.txt")


def copy_project(copy: Path) -> Path:
    """The parts of the project a build needs, copied into `copy`, with this checkout's recorder/ linked."""
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            # docs/generated/ is the state this checkout keeps: a copy works out its own.
            shutil.copytree(
                source, copy / part, ignore=shutil.ignore_patterns("__pycache__", ".record.lock", "generated")
            )
        else:
            (copy / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / part)
    (copy / "recorder").symlink_to(ROOT / "recorder", target_is_directory=True)
    return copy


def run_in(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """Run a command in `folder`, offline, capturing text; `python` means this interpreter."""
    command = [sys.executable if argv[0] == "python" else argv[0], *argv[1:]]
    return subprocess.run(
        command, cwd=folder, env=offline_env(), capture_output=True, text=True, timeout=300, check=False
    )


def zensical_build(project: Path, *, cold: bool = False) -> subprocess.CompletedProcess[str]:
    """`zensical build --strict` in `project`, from which it resolves the snippets' base path; `cold`, without its
    cache of rendered pages, which is put back as it was after: the next build is warm again."""
    if not cold:
        return run_in(project, ZENSICAL, "build", "--strict")
    cache, aside = project / ".cache", project.parent / f"{project.name}.cache-aside"
    if cache.exists():
        cache.rename(aside)
    try:
        return run_in(project, ZENSICAL, "build", "--strict")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        if aside.exists():
            aside.rename(cache)


def offline_env(hub_cache: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment of a child process that cannot reach the hub."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "NO_MKDOCS_2_WARNING": "1", **extra}
    if hub_cache is not None:
        env["HF_HUB_CACHE"] = str(hub_cache)
    else:
        env.pop("HF_HUB_CACHE", None)
    return env


def stand_ins_with_outputs(folder: Path) -> list[dict[str, str]]:
    """In a child of its own, offline: a stand-in checkpoint per seed in `folder`; every snippet's stdout against the
    first, and that of each snippet that loads weights against the second (the others read no weight of a
    checkpoint), run by the record step's own runner. One child, so that torch is imported once for both.

    These runs execute every snippet, so they are the ones coverage measures (tests/snippet_coverage.py), and
    only they: tracing the imports of torch and the making of the checkpoints too took 4 to 5 s longer."""
    from recorder.project.manifest import Origin
    from recorder.project.snippets import discover
    from recorder.record.article import make_stand_ins, run_trials
    from snippet_coverage import coverage_of_snippets, require_measured

    caches = {folder / f"seed-{seed}": seed for seed in SEEDS}
    make_stand_ins(caches, n_layer=1)
    coverage = coverage_of_snippets()
    coverage.start()
    try:
        snippets = discover(ROOT)
        first, second = caches
        weights = [name for name, snippet in snippets.items() if snippet.runs_on is Origin.WEIGHTS]
        outputs = run_trials(ROOT, list(snippets), [first], timeout=300)
        outputs += run_trials(ROOT, weights, [second], timeout=300)
    finally:
        coverage.stop()
        coverage.save()
    require_measured(coverage)
    return outputs


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` with its bytes, to prove nothing changed."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != ".record.lock"
    }


@dataclass(frozen=True)
class Built:
    returncode: int
    stderr: str  # what `mkdocs build` would have printed: its warnings and errors


def build(project: Path) -> Built:
    """`mkdocs build --strict` of a project copy into its own site/, run in this process.

    The same calls as the command line, without paying for a new interpreter and
    MkDocs' imports on each of the many builds the tests make. The command line names the configuration file
    (`-f`) where the YAML tags of mkdocs.yml find it; a build in this process names it with `reading`.
    """
    from mkdocs.commands.build import build as build_site
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    from recorder.engines.config import reading

    printed = io.StringIO()
    handler = logging.StreamHandler(printed)
    handler.setLevel(logging.WARNING)
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        with reading(project / "mkdocs.yml"):
            config = load_config(config_file=str(project / "mkdocs.yml"), site_dir=str(project / "site"), strict=True)
            build_site(config)
    except MkDocsException as error:
        return Built(1, f"{printed.getvalue()}Error: {error}\n")
    finally:
        logger.removeHandler(handler)
    return Built(0, printed.getvalue())


def with_values(text: str) -> str:
    """`text` with each `{{ value NAME }}` replaced by the value the build reads for it."""
    recorded = _recorded_here()
    return re.sub(r"\{\{ value ([-a-z0-9_/]+) \}\}", lambda match: recorded.value(match.group(1)), text)


@functools.cache
def _recorded_here() -> Any:
    """What the build reads of this checkout's outputs, read once per process: the tests never change this checkout,
    and test_figures.py alone asks for it 31 times while it is collected, in every worker (1.4 s each time round)."""
    from recorder.project.config import Project
    from recorder.project.outputs import read_outputs as read

    return read(Project.load(ROOT))


def converted(markdown: str, recorded: Any, *extensions: str) -> str:
    """`markdown`, as the build converts a page with its directives, reading `recorded`, with Python-Markdown's
    `extensions`; raises the build's PageError where a directive cannot render."""
    from markdown import Markdown

    from recorder.engines.extension import RecordedOutputs

    class Reading(RecordedOutputs):
        def read(self) -> Any:
            return recorded

    return Markdown(extensions=[*extensions, Reading()]).convert(markdown)


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as stream:
        stream.write(text)


def edit(path: Path, old: str, new: str) -> str:
    """Replace the first `old` in a file (which must hold it); returns the original text."""
    original = path.read_text(encoding="utf-8")
    assert old in original
    path.write_text(original.replace(old, new, 1), encoding="utf-8")
    return original


def gpt2_tokenizer() -> Any:
    """GPT-2's tokenizer as transformers' GPT2Tokenizer builds it, on the pinned vocab.json and merges.txt (their
    sha256 checked), from `tokenizers` alone: importing transformers' tokenizer imports torch, seconds of a test."""
    from tokenizers import AddedToken, Tokenizer, pre_tokenizers
    from tokenizers.models import BPE

    from recorder.render.tokenizer_files import verified

    files = {published.name: str(published.source) for published in verified()}
    tokenizer = Tokenizer(
        BPE.from_file(
            files["vocab.json"],
            files["merges.txt"],
            dropout=None,
            continuing_subword_prefix="",
            end_of_word_suffix="",
            fuse_unk=False,
        )
    )
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.add_special_tokens([AddedToken("<|endoftext|>", special=True)])
    return tokenizer

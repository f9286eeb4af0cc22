"""`make compat`: run every snippet with several transformers releases and write compat/results.json.

Each snippet runs as a reader runs it, `python snippets/<part>/<stem>.py` from the project's root, offline,
against a stand-in checkpoint with GPT-2's architecture and real tokenizer: the pinned release in
the project's own environment, first, for its output tells which lines depend on weight values
(see compat_verdict); each other release in its own (see compat_envs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recorder import checkpoint, compat_envs, compat_table, store
from recorder.compat_verdict import Printed, verdict, weight_dependent_lines
from recorder.pinned import MODEL_ID, REVISION
from recorder.record import now
from recorder.runner import QUIET_LIBRARIES, Report
from recorder.snippets import VERSIONED_PACKAGES, Snippet, discover

# The last 4.x, the first 5.x, the pinned one and the newest that installs here: the columns of the table.
RELEASES = ("4.57.6", "5.0.0", "5.17.0", "5.24.0")
STAND_IN_SEED = 1
# Python's version and those of the packages named on its command line.
_VERSIONS = ("import json, platform, sys; from importlib.metadata import distributions as found; "
             "print(json.dumps({'python': platform.python_version(), "
             "**{name: next((d.version for d in found(name=name)), None) for name in sys.argv[1:]}}))")


def run_snippet(python: Path, root: Path, snippet: Snippet, hub_cache: Path, *, timeout: float) -> Printed:
    """The snippet run by `python` from `root`, offline, with `hub_cache` as the Hugging Face cache."""
    # Not what the record step's own environment adds: a reader's shell has no PYTHONPATH.
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(QUIET_LIBRARIES, HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(hub_cache))
    try:
        result = subprocess.run([str(python), snippet.relative(root)], cwd=root, env=env, capture_output=True,
                                timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Printed("", f"did not finish within {timeout:g} s")
    if result.returncode == 0:
        return Printed(result.stdout.decode("utf-8", errors="replace"))
    errors = result.stderr.decode("utf-8", errors="replace").strip().splitlines()
    return Printed("", errors[-1].strip() if errors else f"exited with status {result.returncode}")


def versions(python: Path) -> dict[str, str | None]:
    """Python's version and those of the packages a model snippet's output can depend on, in that environment."""
    result = subprocess.run([str(python), "-c", _VERSIONS, *VERSIONED_PACKAGES], capture_output=True, text=True,
                            check=False)
    if result.returncode != 0:
        raise compat_table.CompatError(
            f"{python} could not report its package versions ({result.stderr.strip() or 'no message'}). "
            f"Remove its environment (rm -r {python.parent.parent}) and run `make compat` again.")
    return json.loads(result.stdout)


def plan(root: Path, releases: tuple[str, ...]) -> dict[str, list[str] | None]:
    """What to install for each release (None: the pinned one, in this environment), or why nothing can run."""
    if found := store.problems(root):
        raise compat_table.CompatError(
            "the table compares the snippets with their recorded outputs, which are out of date:\n  "
            + "\n  ".join(problem.message for problem in found) + "\nRun `make record` first.")
    pinned = compat_envs.pinned_release(root)
    if pinned not in releases:
        raise compat_table.CompatError(f"the releases to check ({', '.join(releases)}) leave out {pinned}, the "
                                       "one requirements.txt pins. Add it to RELEASES in recorder/compat.py.")
    modules = set().union(*(snippet.imports for snippet in discover(root).values()))
    return {release: None if release == pinned else compat_envs.requirements(root, modules, release)
            for release in releases}


def check_releases(root: Path, installs: dict[str, list[str] | None], hub_cache: Path, *,
                   interpreter: Callable[[str, list[str] | None], Path], timeout: float,
                   report: Report) -> dict[str, Any]:
    """Run every snippet with each release (`interpreter` gives its Python) against the checkpoint in
    `hub_cache`; returns the table."""
    snippets = discover(root)
    recorded = {name: store.output_path(root, name).read_text(encoding="utf-8") for name in snippets}
    pinned = next(release for release, wanted in installs.items() if wanted is None)
    weight_dependent: dict[str, set[int]] = {}
    table: dict[str, Any] = {  # each release's cells and versions fill in below, in the columns' order
        "model": {"id": MODEL_ID, "revision": REVISION, "stand_in": {
            "seed": STAND_IN_SEED, "about": "GPT-2's architecture and real tokenizer, random weights"}},
        "reference": pinned,
        "releases": dict.fromkeys(installs),
        "snippets": {name: {**compat_table.checked_against(root, snippet), "results": dict.fromkeys(installs)}
                     for name, snippet in snippets.items()}}
    for number, release in enumerate(sorted(installs, key=lambda release: release != pinned), 1):
        report(f"transformers {release} ({number}/{len(installs)})")
        python = interpreter(release, installs[release])
        table["releases"][release] = {"checked_at": now(), "versions": versions(python)}
        for index, (name, snippet) in enumerate(snippets.items(), 1):
            started = time.perf_counter()
            printed = run_snippet(python, root, snippet, hub_cache, timeout=timeout)
            if release == pinned:
                weight_dependent[name] = weight_dependent_lines(snippet.relative(root), recorded[name], printed,
                                                                release)
            results = table["snippets"][name]["results"]
            results[release] = verdict(recorded[name], printed, weight_dependent[name])
            report(f"  [{index}/{len(snippets)}] {snippet.relative(root)}: {results[release]['verdict']}"
                   f"  {time.perf_counter() - started:.1f} s")
    return table


def make_compat(root: Path, *, timeout: float, report: Report) -> None:
    installs = plan(root, RELEASES)
    with tempfile.TemporaryDirectory(prefix="gpt2-stand-in-") as folder:
        report(f"creating a stand-in checkpoint (seed {STAND_IN_SEED}) in {folder}")
        checkpoint.create(Path(folder), seed=STAND_IN_SEED)
        table = check_releases(root, installs, Path(folder), timeout=timeout, report=report,
                               interpreter=lambda release, wanted: Path(sys.executable) if wanted is None
                               else compat_envs.prepare(root, release, wanted, report))
    compat_table.write(root, table)
    verdicts = [cell["verdict"] for row in table["snippets"].values() for cell in row["results"].values()]
    summary = ", ".join(f"{verdicts.count(kind)} {kind}" for kind in dict.fromkeys(verdicts))
    report(f"wrote {compat_table.RESULTS}: {len(table['snippets'])} snippets × {len(table['releases'])} "
           f"releases ({summary})")

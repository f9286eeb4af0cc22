"""`make bench`: time the build against the physical limit and mkdocs-jupyter.

Everything happens in a temporary folder: a full-size stand-in GPT-2 (12
layers, random weights, GPT-2's tokenizer) in its own Hugging Face cache, a
copy of the project that only the benchmark's record step may fill from it,
the limit's script and the peer's site. The variants take turns, ROUNDS
times, each round starting one variant later; the table shows medians.

- limit: one plain `python` running the snippets' code inline, the model loaded once;
- cold record: `make record FORCE=1`, in benchmark mode (`bench.project_copy`);
- cold make site: as `make site` runs it (`recorder.site`): the record step in a child, MkDocs getting ready meanwhile;
- peer: the snippets as one jupytext page that mkdocs-jupyter executes, cache off;
- no-op make site: `make site` with nothing changed, against a plain build of the
  same pages without the hook (its directives then stay as text).

Before timing, untimed: the limit prints what the record step records, and `make site`
re-runs only what changed, importing torch only for a snippet that needs it.

    python -m bench.run

Where a ratio misses its goal, run the variant's command under pyinstrument to
see where its time goes, e.g. `python -m pyinstrument -m recorder record` for
the record step of a no-op `make site`.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench import checks, measure, project_copy, report
from bench.generated import PLAIN_CONFIG, limit_script, write_peer_site
from bench.measure import Finished, Sample
from recorder import checkpoint
from recorder.runner import QUIET_LIBRARIES
from recorder.snippets import discover

ROUNDS = 3
PLAIN_CONFIG_FILE = "mkdocs-plain.yml"
INSTALLED = Path(sys.prefix) / ".installed"  # the Makefile's mark of an installed venv
TORCH_FREE = "snippets/parameter_count.py"  # imports nothing
MODEL_FREE = "snippets/row_lookup.py"  # imports torch, loads no model
RATIOS = [
    report.Ratio("cold record / limit", "cold record", "limit", "seconds", 1.10),
    report.Ratio("cold make site / peer", "cold make site", "peer", "seconds", 0.85),
    report.Ratio("no-op make site / plain mkdocs build", "no-op make site", "plain mkdocs build", "seconds", 1.3),
    report.Ratio("peak memory: cold record / limit", "cold record", "limit", "peak_mib", 1.10),
]


class Bench:
    """The temporary workspace and one method per thing the benchmark runs in it."""

    def __init__(self, folder: Path) -> None:
        self.cache = folder / "hub"
        self.copy = project_copy.make(folder / "project")
        (self.copy / PLAIN_CONFIG_FILE).write_text(PLAIN_CONFIG, encoding="utf-8")
        self.limit_script = folder / "limit.py"
        self.limit_script.write_text(limit_script(self.copy), encoding="utf-8")
        self.peer_site = folder / "peer"
        write_peer_site(self.copy, self.peer_site)
        # A `make bench FORCE=1` must not reach the copy's `make site` through MAKEFLAGS.
        inherited = {name: value for name, value in os.environ.items()
                     if name not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}}
        self.env = {**inherited, **QUIET_LIBRARIES, "HF_HUB_OFFLINE": "1",
                    "HF_HUB_CACHE": str(self.cache), "NO_MKDOCS_2_WARNING": "1"}
        self.edits = 0
        checkpoint.create_apart({self.cache: 1}, n_layer=12)

    def _run(self, *argv: str | Path, cwd: Path, profile_imports: bool = False) -> Finished:
        env = {**self.env, "PYTHONPROFILEIMPORTTIME": "1"} if profile_imports else self.env
        return measure.run(argv, cwd=cwd, env=env)

    def limit(self) -> Finished:
        return self._run(sys.executable, self.limit_script, cwd=self.copy)

    def cold_record(self, *, then_build: bool = False) -> Finished:
        return self._run(sys.executable, "-m", "bench.project_copy", self.copy, *(["--build"] if then_build else []),
                         cwd=project_copy.PROJECT)

    def make_site(self, *, profile_imports: bool = False) -> Finished:
        """`make site` in the copy."""
        return self._run("make", "--no-print-directory", f"VENV={sys.prefix}", "site",
                         cwd=self.copy, profile_imports=profile_imports)

    def plain_build(self) -> Finished:
        return self._run(sys.executable, "-m", "mkdocs", "build", "--strict", "-f", PLAIN_CONFIG_FILE,
                         cwd=self.copy)

    def peer(self) -> Finished:
        return self._run(sys.executable, "-m", "mkdocs", "build", "--strict", cwd=self.peer_site)

    def edit(self, source: str) -> None:
        """A change to the snippet's source that leaves what it prints as it was."""
        self.edits += 1
        with (self.copy / source).open("a", encoding="utf-8") as stream:
            stream.write(f"# edit {self.edits}\n")

    def noop_site(self) -> Sample:
        self.make_site()  # settles what the variant before left, e.g. outputs the benchmark recorded
        finished = self.make_site()
        checks.only_ran(finished, [], "no-op make site")
        return finished.sample

    def site_after_edit(self, source: str | None, *, present: tuple[str, ...], absent: tuple[str, ...]) -> Finished:
        """`make site` after editing `source` (None: nothing): only it re-runs, importing what it should."""
        what = f"make site after editing {source}" if source else "no-op make site"
        if source:
            self.edit(source)
        finished = self.make_site(profile_imports=True)
        checks.only_ran(finished, [source] if source else [], what)
        checks.imports(finished, what, present=present, absent=absent)
        return finished


def verify(bench: Bench) -> None:
    """Untimed: the generated limit does the snippets' work, and the builds run and import what they should."""
    bench.cold_record()
    recorded = "".join((bench.copy / "outputs" / f"{name}.txt").read_text(encoding="utf-8")
                       for name in discover(bench.copy))
    checks.expect(bench.limit().stdout == recorded,
                  f"{bench.limit_script} printed something other than the snippets' recorded outputs.")
    bench.make_site()
    print("checked: the limit's script prints exactly the outputs the record step recorded")

    bench.site_after_edit(None, present=("recorder", "mkdocs"), absent=("torch",))
    print("checked: the no-op make site re-runs nothing and never imports torch")

    bench.site_after_edit(TORCH_FREE, present=("mkdocs",), absent=("torch",))
    print(f"checked: after editing {TORCH_FREE}, only it re-runs and torch is never imported")

    changed = bench.site_after_edit(MODEL_FREE, present=("torch",), absent=("transformers",))
    checks.expect("GPT-2" not in changed.stdout, f"make site after editing {MODEL_FREE} prepared the model.")
    print(f"checked: after editing {MODEL_FREE}, only it re-runs; torch is imported, the model is not loaded")


def measure_rounds(bench: Bench) -> dict[str, list[Sample]]:
    variants: dict[str, Callable[[], Sample]] = {
        "limit": lambda: bench.limit().sample,
        "cold record": lambda: bench.cold_record().sample,
        "cold make site": lambda: bench.cold_record(then_build=True).sample,
        "peer": lambda: bench.peer().sample,
        "no-op make site": bench.noop_site,
        "plain mkdocs build": lambda: bench.plain_build().sample,
    }
    names = list(variants)
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    for number in range(ROUNDS):
        for name in names[number:] + names[:number]:
            sample = variants[name]()
            samples[name].append(sample)
            print(f"round {number + 1}/{ROUNDS}  {name:<20} {sample.seconds:7.2f} s  {sample.peak_mib:6.0f} MiB",
                  flush=True)
    return samples


def main() -> int:
    if not INSTALLED.exists():
        print(f"error: {INSTALLED} is missing: this venv was not installed by the Makefile, and `make "
              "site` in the benchmark's copy would reinstall it. Run `make bench`.", file=sys.stderr)
        return 1
    try:
        with tempfile.TemporaryDirectory(prefix="gpt2-bench-") as folder:
            print(f"preparing {folder}: a full-size stand-in GPT-2, a copy of the project, the peer's site",
                  flush=True)
            bench = Bench(Path(folder))
            verify(bench)
            samples = measure_rounds(bench)
    except (measure.CommandFailed, checks.CheckFailed) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    table = report.medians(samples)
    results = report.evaluate(RATIOS, table)
    print()
    print(report.render(table, results))
    for result in results:
        if not result["met"]:
            print(f"goal missed: {result['name']} is {result['value']}, the goal is <= {result['goal']}")
    print(f"\nwrote {report.write(table, results).relative_to(project_copy.PROJECT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`make bench`: time the build against the physical limit, mkdocs-jupyter and a plain MkDocs build.

Everything happens in a temporary folder: a full-size stand-in GPT-2 (12
layers, random weights, GPT-2's tokenizer) in its own Hugging Face cache, a
copy of the project that only the benchmark's record step may fill from it,
a second copy with PARTS generated parts, the limit's script and the peer's site.

- limit: one plain `python` running the snippets' code inline, the model loaded once;
- cold record: `make record` with every snippet stale, in benchmark mode (`bench.project_copy`);
- cold make site: the same inside `mkdocs build --strict`, as `make site` records what is stale;
- peer: the snippets as one jupytext page that mkdocs-jupyter executes, cache off;
- no-op make site: `make site` with nothing stale, against a plain build of the
  same pages without the plugin (its directives then stay as text); the same
  again in the copy with PARTS more parts.

Each ratio's two variants run back to back, ROUNDS times, taking turns at going
first; a ratio is the median of its rounds' ratios, the table shows medians.
Untimed, first: the limit prints what the record step records.

    python -m bench.run

Where a ratio misses its goal, run the variant's command under pyinstrument to
see where its time goes, e.g. `python -m pyinstrument -m mkdocs build --strict`
in the project for a no-op `make site`.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench import generated, measure, project_copy, report
from bench.measure import Sample
from recorder import checkpoint
from recorder.errors import RecorderError
from recorder.pinned import MANIFEST_NAME, OUTPUTS_DIR
from recorder.runner import QUIET_LIBRARIES
from recorder.snippets import discover

ROUNDS = 5
PARTS = 20
PLAIN_CONFIG = "mkdocs-plain.yml"
# `make` in a copy, with this venv taken as installed: its stamp depends on nothing, and
# naming an existing file keeps `make` from installing the copy (`-e .`) into this venv.
MAKE = ("make", "--no-print-directory", f"VENV={sys.prefix}", f"STAMP={sys.executable}")
NOOP, PLAIN = "no-op make site", "plain mkdocs build"
RATIOS = [
    report.Ratio("cold record / limit", "cold record", "limit", "seconds", 1.15),
    report.Ratio("cold make site / peer", "cold make site", "peer", "seconds", 1.0),
    report.Ratio(f"{NOOP} / {PLAIN}", NOOP, PLAIN, "seconds", 1.3),
    report.Ratio("peak memory: cold record / limit", "cold record", "limit", "peak_mib", 1.10),
    report.Ratio(f"{NOOP} / {PLAIN}, {PARTS} parts", f"{NOOP}, {PARTS} parts", f"{PLAIN}, {PARTS} parts",
                 "seconds", 1.3),
]


class Unexpected(RecorderError):
    """A build did something other than what the benchmark times; the message says what."""


class Bench:
    """The temporary workspace, and each variant as a command run in it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.copy = project_copy.make(folder / "project")
        generated.write_plain_config(self.copy, PLAIN_CONFIG)
        self.limit_script = folder / "limit.py"
        self.limit_script.write_text(generated.limit_script(self.copy), encoding="utf-8")
        self.peer_site = folder / "peer"
        generated.write_peer_site(self.copy, self.peer_site)
        # A `make bench FORCE=1` must not reach the copies' `make` through MAKEFLAGS.
        inherited = {name: value for name, value in os.environ.items()
                     if name not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}}
        self.env = {**inherited, **QUIET_LIBRARIES, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(folder / "hub"),
                    "NO_MKDOCS_2_WARNING": "1"}
        checkpoint.create_apart({folder / "hub": 1}, n_layer=12)

    def run(self, *argv: str | Path, cwd: Path) -> Sample:
        return measure.run(argv, cwd=cwd, env=self.env).sample

    def cold(self, *flags: str) -> Sample:
        return self.run(sys.executable, "-m", "bench.project_copy", self.copy, *flags, cwd=project_copy.PROJECT)

    def noop_site(self, copy: Path) -> Sample:
        manifest = (copy / OUTPUTS_DIR / MANIFEST_NAME).read_bytes()
        sample = self.run(*MAKE, "site", cwd=copy)
        if (copy / OUTPUTS_DIR / MANIFEST_NAME).read_bytes() != manifest:
            raise Unexpected(f"`make site` in {copy} recorded something: it was to find nothing stale.")
        return sample

    def plain_build(self, copy: Path) -> Sample:
        return self.run(sys.executable, "-m", "mkdocs", "build", "--strict", "-f", PLAIN_CONFIG, cwd=copy)

    def prepare(self) -> Path:
        """Untimed: record the copy, check the limit against it, and make the copy with PARTS more parts."""
        self.cold()
        recorded = "".join((self.copy / OUTPUTS_DIR / f"{name}.txt").read_text(encoding="utf-8")
                           for name in discover(self.copy))
        printed = measure.run([sys.executable, self.limit_script], cwd=self.copy, env=self.env).stdout
        if printed != recorded:
            raise Unexpected(f"{self.limit_script} printed something other than the snippets' recorded outputs.")
        print("checked: the limit's script prints exactly the outputs the record step recorded", flush=True)
        parts = shutil.copytree(self.copy, self.folder / f"{PARTS} parts")
        generated.add_parts(parts, PARTS)
        generated.write_plain_config(parts, PLAIN_CONFIG)
        self.run(*MAKE, "record", cwd=parts)  # only the new parts' snippets: they load nothing
        return parts

    def variants(self, parts: Path) -> dict[str, Callable[[], Sample]]:
        return {
            "limit": lambda: self.run(sys.executable, self.limit_script, cwd=self.copy),
            "cold record": self.cold,
            "cold make site": lambda: self.cold("--build"),
            "peer": lambda: self.run(sys.executable, "-m", "mkdocs", "build", "--strict", cwd=self.peer_site),
            NOOP: lambda: self.noop_site(self.copy),
            PLAIN: lambda: self.plain_build(self.copy),
            f"{NOOP}, {PARTS} parts": lambda: self.noop_site(parts),
            f"{PLAIN}, {PARTS} parts": lambda: self.plain_build(parts),
        }


def measure_rounds(variants: dict[str, Callable[[], Sample]]) -> dict[str, list[Sample]]:
    pairs = list(dict.fromkeys((ratio.numerator, ratio.denominator) for ratio in RATIOS))
    samples: dict[str, list[Sample]] = {name: [] for name in variants}
    for number in range(ROUNDS):
        for pair in pairs:
            for name in pair if number % 2 == 0 else reversed(pair):
                samples[name].append(sample := variants[name]())
                print(f"round {number + 1}/{ROUNDS}  {name:<30} {sample.seconds:7.2f} s  {sample.peak_mib:6.0f} MiB",
                      flush=True)
    return samples


def main() -> int:
    try:
        with tempfile.TemporaryDirectory(prefix="gpt2-bench-") as folder:
            print(f"preparing {folder}: a full-size stand-in GPT-2, copies of the project, the peer's site",
                  flush=True)
            bench = Bench(Path(folder))
            samples = measure_rounds(bench.variants(bench.prepare()))
    except (measure.CommandFailed, Unexpected) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    table = report.medians(samples)
    results = report.evaluate(RATIOS, samples)
    print()
    print(report.render(table, results))
    print(f"\nwrote {report.write(table, results).relative_to(project_copy.PROJECT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

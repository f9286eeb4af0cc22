"""`make audit`: Lighthouse (mobile) on every page of the built site, served with gzip; its median scores per page.

Timing-based scores vary from run to run and with whatever else the machine does: hence the median of `--runs`.
Where a page misses a goal, Lighthouse's own report of the run at that category's median is kept in audit/, to
open in a browser: it shows what costs the most, or which audits failed. Exits with 1 when a page misses a goal,
2 when Lighthouse cannot run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from recorder.errors import RecorderError
from tools.local_site import served

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
REPORTS = ROOT / "audit"
CHROME_FLAGS = "--no-sandbox --headless --disable-gpu --disable-background-networking"
GOALS = {"performance": 0.95, "accessibility": 1.0, "best-practices": 0.95, "seo": 0.95}

Report = dict[str, Any]


class LighthouseFailed(RecorderError):
    """Lighthouse could not audit a page; the message says why and what to do."""


class PageResult:
    """A page's runs: its median score per category, and per category the run at its median, whose report
    shows why a category that fails in some runs only failed."""

    def __init__(self, path: str, reports: list[Report]) -> None:
        self.path = path  # relative to the site's root, "" for the home page
        self.runs = {name: [report["categories"][name]["score"] for report in reports] for name in GOALS}
        self.scores = {name: statistics.median(runs) for name, runs in self.runs.items()}
        self.median_run = {name: sorted(range(len(reports)), key=runs.__getitem__)[len(reports) // 2]
                           for name, runs in self.runs.items()}
        self.titles = {name: reports[0]["categories"][name]["title"] for name in GOALS}

    def missed(self) -> list[str]:
        return [name for name, goal in GOALS.items() if self.scores[name] < goal]

    def report_name(self, category: str) -> str:
        """The file in audit/ of the report that shows why `category` missed its goal."""
        return f"{self.path.strip('/').removesuffix('.html').replace('/', '-') or 'index'}-{category}.html"


def site_pages(site: Path) -> list[str]:
    """The path of every HTML page in a built site, as a browser asks for it ("" is the home page)."""
    paths = [file.relative_to(site).as_posix() for file in site.rglob("*.html")]
    pages = [path.removesuffix("index.html") if path.rpartition("/")[2] == "index.html" else path for path in paths]
    return sorted(pages, key=lambda path: (path.count("/"), path))


def lighthouse(url: str, prefix: Path) -> Report:
    """One run on `url`; its reports are left as `prefix`.report.json and `prefix`.report.html."""
    if not LIGHTHOUSE.exists():
        raise LighthouseFailed(f"{LIGHTHOUSE.relative_to(ROOT)} not found: run `npm ci` (installs package-lock.json).")
    result = subprocess.run([LIGHTHOUSE, url, "--output=json", "--output=html", f"--output-path={prefix}", "--quiet",
                             f"--only-categories={','.join(GOALS)}", f"--chrome-flags={CHROME_FLAGS}"],
                            env={**os.environ, "CHROME_PATH": "/usr/bin/chromium"}, capture_output=True, text=True)
    if result.returncode != 0:
        raise LighthouseFailed(f"Lighthouse failed on {url}:\n{result.stderr.strip()}")
    report: Report = json.loads(Path(f"{prefix}.report.json").read_text(encoding="utf-8"))
    if error := report.get("runtimeError"):
        raise LighthouseFailed(f"Lighthouse could not load {url}: {error.get('message', error)}")
    if unscored := [name for name in GOALS if report["categories"][name]["score"] is None]:
        raise LighthouseFailed(f"Lighthouse gave no {', '.join(unscored)} score for {url}: "
                               f"{report.get('runWarnings') or 'see its report'}")
    return report


def describe(result: PageResult) -> list[str]:
    """A page's median scores on one line, then, per category below its goal, its runs and its report."""
    scores = [f"{result.titles[name]} {result.scores[name]:.2f}" + (f" (goal {goal:.2f})" if name in result.missed()
                                                                     else "") for name, goal in GOALS.items()]
    lines = [f"/{result.path}", "  " + "  ".join(scores)]
    for name in result.missed():
        runs = ", ".join(f"{score:.2f}" for score in result.runs[name])
        lines.append(f"  {name} below the goal (runs: {runs}); what costs the most, in Lighthouse's report of the "
                     f"median run: {REPORTS.relative_to(ROOT)}/{result.report_name(name)}")
    return lines


def audit_site(site: Path, runs: int, reports: Path = REPORTS) -> list[PageResult]:
    """Every page's result; for each category a page misses, the report of its median run, in `reports`."""
    shutil.rmtree(reports, ignore_errors=True)  # the reports of an earlier audit would mislead
    results = []
    with served(site) as base_url, tempfile.TemporaryDirectory(prefix="lighthouse-") as folder:
        for number, path in enumerate(site_pages(site)):
            print(f"auditing /{path} ({runs} runs)", file=sys.stderr, flush=True)
            prefixes = [Path(folder) / f"page-{number}-run-{run}" for run in range(runs)]
            result = PageResult(path, [lighthouse(base_url + path, prefix) for prefix in prefixes])
            for name in result.missed():
                reports.mkdir(exist_ok=True)
                shutil.copyfile(f"{prefixes[result.median_run[name]]}.report.html", reports / result.report_name(name))
            results.append(result)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.audit", description=__doc__)
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (default: site/)")
    parser.add_argument("--runs", type=int, default=3, help="runs per page to take the median of (default: 3)")
    args = parser.parse_args(argv)
    try:
        results = audit_site(args.site, args.runs)
    except (LighthouseFailed, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    goals = ", ".join(f"{name} >= {goal:.2f}" for name, goal in GOALS.items())
    print(f"Lighthouse, mobile, median of {args.runs} runs per page; goals: {goals}")
    for result in results:
        print("\n".join(describe(result)))
    missed = [f"/{result.path}" for result in results if result.missed()]
    print(f"{len(missed)} of {len(results)} pages miss a goal: {', '.join(missed)}" if missed
          else f"every page ({len(results)}) meets every goal")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

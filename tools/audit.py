"""`make audit`: Lighthouse (mobile) on every page of the built site, served with gzip; its median scores per page.

Timing-based scores vary from run to run and with whatever else the machine does: hence the median of `--runs`.
Where a page misses a goal, it prints what costs the most: for performance, the audits Lighthouse estimates hold
back a metric the longest, with their largest items; for another category, the failed audits. Exits with 1 when
a page misses a goal, 2 when Lighthouse cannot run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from recorder.errors import RecorderError
from tools.local_site import served

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROME_FLAGS = "--no-sandbox --headless --disable-gpu --disable-background-networking"
GOALS = {"performance": 0.95, "accessibility": 1.0, "best-practices": 0.95, "seo": 0.95}
TIMED_METRICS = ("FCP", "LCP", "TBT", "INP")  # what an audit holds back, in milliseconds (CLS has no unit)
COSTS_SHOWN, ITEMS_SHOWN = 3, 2
# The column of an audit's table that says how much each row costs, in order of preference, and its units.
VALUE_KEYS = ("duration", "total", "wastedMs", "wastedBytes", "totalBytes", "value")
UNITS = {"ms": (1, " ms"), "bytes": (1024, " KiB")}

Report = dict[str, Any]


class LighthouseFailed(RecorderError):
    """Lighthouse could not audit a page; the message says why and what to do."""


class PageResult:
    """A page's runs: its median score per category, each category described from a run at its median,
    so that one failing in some runs only is described from a run where it failed."""

    def __init__(self, path: str, reports: list[Report]) -> None:
        self.path = path  # relative to the site's root, "" for the home page
        scores = {name: [report["categories"][name]["score"] for report in reports] for name in GOALS}
        self.scores = {name: statistics.median(runs) for name, runs in scores.items()}
        self.performance_runs = scores["performance"]
        ordered = {name: sorted(reports, key=lambda report: report["categories"][name]["score"]) for name in GOALS}
        self.median_runs = {name: runs[len(runs) // 2] for name, runs in ordered.items()}
        self.report = self.median_runs["performance"]

    def missed(self) -> list[str]:
        return [name for name, goal in GOALS.items() if self.scores[name] < goal]


def site_pages(site: Path) -> list[str]:
    """The path of every HTML page in a built site, as a browser asks for it ("" is the home page)."""
    paths = [file.relative_to(site).as_posix() for file in site.rglob("*.html")]
    pages = [path.removesuffix("index.html") if path.rpartition("/")[2] == "index.html" else path for path in paths]
    return sorted(pages, key=lambda path: (path.count("/"), path))


def lighthouse(url: str) -> Report:
    if not LIGHTHOUSE.exists():
        raise LighthouseFailed(f"{LIGHTHOUSE.relative_to(ROOT)} not found: run `npm ci` (installs package-lock.json).")
    result = subprocess.run([LIGHTHOUSE, url, "--output=json", "--output-path=stdout", "--quiet",
                             f"--only-categories={','.join(GOALS)}", f"--chrome-flags={CHROME_FLAGS}"],
                            env={**os.environ, "CHROME_PATH": "/usr/bin/chromium"}, capture_output=True, text=True)
    if result.returncode != 0:
        raise LighthouseFailed(f"Lighthouse failed on {url}:\n{result.stderr.strip()}")
    report: Report = json.loads(result.stdout)
    if error := report.get("runtimeError"):
        raise LighthouseFailed(f"Lighthouse could not load {url}: {error.get('message', error)}")
    if unscored := [name for name in GOALS if report["categories"][name]["score"] is None]:
        raise LighthouseFailed(f"Lighthouse gave no {', '.join(unscored)} score for {url}: "
                               f"{report.get('runWarnings') or 'see its report'}")
    return report


def _largest_items(details: Report, origin: str) -> str:
    """The first rows of an audit's table, as "name value" (main-thread work by category, scripts by CPU time)."""
    headings = {h["key"]: h["valueType"] for h in details.get("headings") or [] if h.get("key")}
    name_key = next((key for key, kind in headings.items() if kind in ("text", "url")), None)
    value_key = next((key for key in VALUE_KEYS if key in headings), None)
    scale, unit = UNITS.get(headings.get(value_key or ""), (1, ""))
    rows = [(item.get(name_key), item.get(value_key)) for item in (details.get("items") or [])[:ITEMS_SHOWN]]
    rows = [(name, value.get("value") if isinstance(value, dict) else value) for name, value in rows]  # or numeric
    return ", ".join(f"{str(name).removeprefix(origin)} {value / scale:,.0f}{unit}" for name, value in rows
                     if name is not None and isinstance(value, int | float))


def largest_costs(report: Report) -> list[str]:
    """The audits Lighthouse estimates hold back a timed metric longest, largest first."""
    origin = "/".join(report["finalDisplayedUrl"].split("/", 3)[:3]) + "/"
    costs = []
    for audit in report["audits"].values():
        savings = {metric: ms for metric, ms in (audit.get("metricSavings") or {}).items()
                   if metric in TIMED_METRICS and ms}
        if savings:
            shown = audit.get("displayValue", "").replace("\xa0", " ")  # Lighthouse writes "3.4\xa0s"
            held = ", ".join(f"{metric} {ms:,.0f} ms" for metric, ms in savings.items())
            items = _largest_items(audit.get("details") or {}, origin)
            line = f"{audit['title']}{f': {shown}' if shown else ''} (holds back {held})"
            costs.append((max(savings.values()), line + (f"; largest: {items}" if items else "")))
    return [line for _, line in sorted(costs, key=lambda cost: cost[0], reverse=True)[:COSTS_SHOWN]]


def describe(result: PageResult) -> list[str]:
    """A page's median scores on one line, then what costs the most in each category below its goal."""
    lines = [f"/{result.path}", "  " + "  ".join(
        f"{result.report['categories'][name]['title']} {result.scores[name]:.2f}"
        + ("" if result.scores[name] >= goal else f" (goal {goal:.2f})") for name, goal in GOALS.items())]
    for name in result.missed():
        if name == "performance":
            runs = ", ".join(f"{score:.2f}" for score in result.performance_runs)
            lines.append(f"  performance below the goal (runs: {runs}); largest costs, in the median run:")
            lines += [f"    {cost}" for cost in largest_costs(result.report)]
        else:
            report = result.median_runs[name]
            refs = sorted(report["categories"][name]["auditRefs"], key=lambda ref: ref["weight"], reverse=True)
            failed = [audit for audit in (report["audits"][ref["id"]] for ref in refs if ref["weight"])
                      if audit["score"] is not None and audit["score"] < 1]
            lines.append(f"  {name} below the goal; failed audits:")
            lines += [f"    {audit['title']} ({audit['id']})" for audit in failed[:COSTS_SHOWN]]
    return lines


def audit_site(site: Path, runs: int) -> list[PageResult]:
    results = []
    with served(site) as base_url:
        for path in site_pages(site):
            print(f"auditing /{path} ({runs} runs)", file=sys.stderr, flush=True)
            results.append(PageResult(path, [lighthouse(base_url + path) for _ in range(runs)]))
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
    first = results[0].report
    print(f"Lighthouse {first['lighthouseVersion']} ({first['configSettings']['formFactor']}), median of "
          f"{args.runs} runs per page; goals: " + ", ".join(f"{name} >= {goal:.2f}" for name, goal in GOALS.items()))
    for result in results:
        print("\n".join(describe(result)))
    missed = [f"/{result.path}" for result in results if result.missed()]
    print(f"{len(missed)} of {len(results)} pages miss a goal: {', '.join(missed)}" if missed
          else f"every page ({len(results)}) meets every goal")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

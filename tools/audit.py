"""`make audit`: Lighthouse on every page of the built site, served on 127.0.0.1 with gzip.

Each page is audited `--runs` times (3 by default) with Lighthouse's default
mobile settings, and its median score in each category is compared with the
goals below. For a page that misses one, it prints what costs the most: for
performance, the audits that Lighthouse estimates hold back a metric the
longest, each with its largest items (main-thread work by category, scripts by
CPU time, ...); for another category, the audits that failed. It exits with 1
when any page misses a goal, 2 when Lighthouse cannot run.

Timing-based scores vary from run to run and with whatever else the machine
does: hence the median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recorder.errors import RecorderError
from tools.local_site import served

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = "/usr/bin/chromium"
CHROME_FLAGS = "--no-sandbox --headless --disable-gpu --disable-background-networking"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
GOALS = {"performance": 0.95, "accessibility": 1.0, "best-practices": 0.95, "seo": 0.95}
# Lighthouse's estimates of what an audit holds back, in milliseconds (CLS has no unit).
TIMED_METRICS = ("FCP", "LCP", "TBT", "INP")
COSTS_SHOWN = 3
ITEMS_SHOWN = 2
# The column of an audit's table that says how much each row costs, in order of preference.
VALUE_KEYS = ("duration", "total", "wastedMs", "wastedBytes", "totalBytes", "value")

Report = dict[str, Any]


class LighthouseFailed(RecorderError):
    """Lighthouse could not audit a page; the message says why and what to do."""


@dataclass(frozen=True)
class PageResult:
    path: str  # relative to the site's root, "" for the home page
    scores: dict[str, float]  # median of the runs, per category
    performance_runs: list[float]
    median_runs: dict[str, Report]  # per category, the run whose score in it is the median

    @property
    def report(self) -> Report:
        """The run with the median performance score."""
        return self.median_runs["performance"]

    def missed(self) -> list[str]:
        return [name for name in CATEGORIES if self.scores[name] < GOALS[name]]


def site_pages(site: Path) -> list[str]:
    """The path of every HTML page in a built site, as a browser asks for it ("" is the home page)."""
    pages = []
    for file in site.rglob("*.html"):
        relative = file.relative_to(site).as_posix()
        pages.append(relative.removesuffix("index.html") if file.name == "index.html" else relative)
    return sorted(pages, key=lambda path: (path.count("/"), path))


def lighthouse(url: str) -> Report:
    if not LIGHTHOUSE.exists():
        raise LighthouseFailed(f"{LIGHTHOUSE.relative_to(ROOT)} not found: run `npm ci` (installs package-lock.json).")
    result = subprocess.run(
        [str(LIGHTHOUSE), url, "--output=json", "--output-path=stdout", "--quiet",
         f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={CHROME_FLAGS}"],
        env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        raise LighthouseFailed(f"Lighthouse failed on {url}:\n{result.stderr.strip()}")
    report: Report = json.loads(result.stdout)
    if error := report.get("runtimeError"):
        raise LighthouseFailed(f"Lighthouse could not load {url}: {error.get('message', error)}")
    return report


def page_result(path: str, reports: Sequence[Report]) -> PageResult:
    """Median scores of several runs of one page, and for each category the run at its median.

    A category that fails in some runs only is then described from a run where it failed,
    not from the run whose performance happens to be the median.
    """
    def median_run(category: str) -> Report:
        ordered = sorted(reports, key=lambda report: _score(report, category))
        return ordered[len(ordered) // 2]

    return PageResult(
        path=path,
        scores={name: statistics.median(_score(report, name) for report in reports) for name in CATEGORIES},
        performance_runs=[_score(report, "performance") for report in reports],
        median_runs={name: median_run(name) for name in CATEGORIES},
    )


def _score(report: Report, category: str) -> float:
    score = report["categories"][category]["score"]
    if score is None:
        raise LighthouseFailed(f"Lighthouse gave no {category} score for {report['finalDisplayedUrl']}: "
                               f"{report.get('runWarnings') or 'see its report'}")
    return float(score)


def largest_costs(report: Report, count: int = COSTS_SHOWN) -> list[str]:
    """The audits that Lighthouse estimates hold back a timed metric longest, largest first."""
    costs = []
    for audit in report["audits"].values():
        savings = {metric: ms for metric, ms in (audit.get("metricSavings") or {}).items()
                   if metric in TIMED_METRICS and ms}
        if savings:
            costs.append((max(savings.values()), savings, audit))
    costs.sort(key=lambda cost: cost[0], reverse=True)
    origin = report["finalDisplayedUrl"].split("/", 3)[:3]
    return [_cost_line(savings, audit, "/".join(origin) + "/") for _, savings, audit in costs[:count]]


def _cost_line(savings: dict[str, float], audit: Report, origin: str) -> str:
    held = ", ".join(f"{metric} {ms:,.0f} ms" for metric, ms in savings.items())
    shown = audit.get("displayValue", "").replace("\xa0", " ")  # Lighthouse writes "3.4\xa0s"
    line = audit["title"] + (f": {shown}" if shown else "")
    items = _largest_items(audit.get("details") or {}, origin)
    return f"{line} (holds back {held})" + (f"; largest: {items}" if items else "")


def _largest_items(details: Report, origin: str) -> str:
    """The first rows of an audit's table, as "name value" (main-thread work by category, scripts by CPU time)."""
    headings = {h["key"]: h["valueType"] for h in details.get("headings") or [] if h.get("key")}
    names = [key for key, kind in headings.items() if kind in ("text", "url")]
    values = [key for key in VALUE_KEYS if key in headings]
    if not names or not values:
        return ""
    shown = []
    for item in (details.get("items") or [])[:ITEMS_SHOWN]:
        name, value = item.get(names[0]), item.get(values[0])
        if isinstance(value, dict):  # {"type": "numeric", "value": ...}
            value = value.get("value")
        if name is None or not isinstance(value, int | float):
            continue
        shown.append(f"{str(name).removeprefix(origin)} {_quantity(value, headings[values[0]])}")
    return ", ".join(shown)


def _quantity(value: float, kind: str) -> str:
    if kind == "ms":
        return f"{value:,.0f} ms"
    if kind == "bytes":
        return f"{value / 1024:,.0f} KiB"
    return f"{value:,.0f}"


def failed_audits(report: Report, category: str) -> list[str]:
    """The weighted audits of a category that did not pass, heaviest first."""
    refs = sorted(report["categories"][category]["auditRefs"], key=lambda ref: ref["weight"], reverse=True)
    audits = [report["audits"][ref["id"]] for ref in refs if ref["weight"]]
    return [f"{audit['title']} ({audit['id']})" for audit in audits
            if audit["score"] is not None and audit["score"] < 1][:COSTS_SHOWN]


def describe(result: PageResult) -> list[str]:
    """A page's median scores on one line, then what costs the most in each category below its goal."""
    scores = "  ".join(
        f"{result.report['categories'][name]['title']} {result.scores[name]:.2f}"
        + ("" if result.scores[name] >= GOALS[name] else f" (goal {GOALS[name]:.2f})")
        for name in CATEGORIES
    )
    lines = [f"/{result.path}", f"  {scores}"]
    for name in result.missed():
        if name == "performance":
            runs = ", ".join(f"{score:.2f}" for score in result.performance_runs)
            lines.append(f"  performance below the goal (runs: {runs}); largest costs, in the median run:")
            lines += [f"    {cost}" for cost in largest_costs(result.report)]
        else:
            lines.append(f"  {name} below the goal; failed audits:")
            lines += [f"    {audit}" for audit in failed_audits(result.median_runs[name], name)]
    return lines


def audit_site(site: Path, runs: int) -> list[PageResult]:
    pages = site_pages(site)
    results = []
    with served(site) as base_url:
        for path in pages:
            print(f"auditing /{path} ({runs} runs)", file=sys.stderr, flush=True)
            results.append(page_result(path, [lighthouse(base_url + path) for _ in range(runs)]))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.audit", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (default: site/)")
    parser.add_argument("--runs", type=int, default=3, help="runs per page to take the median of (default: 3)")
    args = parser.parse_args(argv)
    try:
        results = audit_site(args.site, args.runs)
    except (LighthouseFailed, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    first = results[0].report
    print(f"Lighthouse {first['lighthouseVersion']} ({first['configSettings']['formFactor']}), "
          f"median of {args.runs} runs per page; goals: "
          + ", ".join(f"{name} >= {goal:.2f}" for name, goal in GOALS.items()))
    for result in results:
        print("\n".join(describe(result)))
    missed = [f"/{result.path}" for result in results if result.missed()]
    if missed:
        print(f"{len(missed)} of {len(results)} pages miss a goal: {', '.join(missed)}")
        return 1
    print(f"every page ({len(results)}) meets every goal")
    return 0


if __name__ == "__main__":
    sys.exit(main())

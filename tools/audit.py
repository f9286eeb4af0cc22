"""`make audit`: Lighthouse on the built article page, served on 127.0.0.1; prints its scores.

Scores that depend on timing vary from run to run (and with whatever else the
machine is doing), so it reports the run with the median performance score,
and never fails on a score; it fails only when Lighthouse cannot run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from tools.local_site import served

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = "/usr/bin/chromium"
CHROME_FLAGS = "--no-sandbox --headless --disable-gpu --disable-background-networking"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
GOALS = {"performance": 0.95, "accessibility": 1.0, "best-practices": 0.95, "seo": 0.95}


def lighthouse(url: str) -> dict:
    if not LIGHTHOUSE.exists():
        sys.exit(f"{LIGHTHOUSE.relative_to(ROOT)} not found: run `npm ci` (installs package-lock.json).")
    result = subprocess.run(
        [str(LIGHTHOUSE), url, "--output=json", "--output-path=stdout", "--quiet",
         f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={CHROME_FLAGS}"],
        env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        sys.exit(f"Lighthouse failed on {url}:\n{result.stderr.strip()}")
    return json.loads(result.stdout)


def summary(report: dict) -> list[str]:
    """One line per category with its goal, then the audits that kept it below 1."""
    lines = []
    for name in CATEGORIES:
        category = report["categories"][name]
        mark = "meets" if category["score"] >= GOALS[name] else "below"
        lines.append(f"{category['title']:<15} {category['score']:.2f}  ({mark} the goal {GOALS[name]:.2f})")
        for ref in category["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if ref["weight"] and audit["score"] is not None and audit["score"] < 1:
                lines.append(f"    {audit['score']:.2f}  {audit['title']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.audit", description=__doc__)
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (default: site/)")
    parser.add_argument("--page", default="token-embeddings/", help="path of the page to audit")
    parser.add_argument("--runs", type=int, default=3, help="runs to take the median of (default: 3)")
    args = parser.parse_args(argv)
    with served(args.site) as base_url:
        reports = [lighthouse(base_url + args.page) for _ in range(args.runs)]
    reports.sort(key=lambda report: report["categories"]["performance"]["score"])
    report = reports[len(reports) // 2]
    performance = ", ".join(f"{r['categories']['performance']['score']:.2f}" for r in reports)
    print(f"Lighthouse {report['lighthouseVersion']} on {args.page} ({report['configSettings']['formFactor']}), "
          f"median of {len(reports)} runs (performance: {performance}):")
    print("\n".join(summary(report)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

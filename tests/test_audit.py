"""`make audit` is Lighthouse CI (`lhci autorun`) as lighthouserc.json configures it: these tests hold that
configuration to the audit's goals, to every page of the built site, and to the reports it keeps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support import ROOT

# The goals CONTRIBUTING.md states ("Page speed"), each on a page's median of three runs.
GOALS = {"performance": 0.95, "accessibility": 1.0, "best-practices": 0.95, "seo": 0.95}
RUNS = 3


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    return json.loads((ROOT / "lighthouserc.json").read_text(encoding="utf-8"))["ci"]


def autodiscovered(site: Path, depth: int) -> set[str]:
    """The pages `lhci collect` finds in `site`: HTML files at most `depth` folders down, in folders whose
    names hold no dot (Lighthouse CI's rule, in its FallbackServer.readHtmlFilesInDirectory)."""
    pages = set()
    for page in site.rglob("*.htm*"):
        folders = page.relative_to(site).parts[:-1]
        if page.suffix in (".html", ".htm") and len(folders) <= depth and not any("." in f for f in folders):
            pages.add(page.relative_to(site).as_posix())
    return pages


def test_each_goal_is_asserted_on_a_page_s_median_of_three_runs(config: dict[str, Any]) -> None:
    assert config["collect"]["numberOfRuns"] == RUNS
    assert config["assert"] == {
        "assertions": {
            f"categories:{name}": ["error", {"minScore": goal, "aggregationMethod": "median"}]
            for name, goal in GOALS.items()
        }
    }
    assert sorted(config["collect"]["settings"]["onlyCategories"]) == sorted(GOALS)


@pytest.mark.slow
def test_every_page_of_the_built_site_is_audited(config: dict[str, Any], built_site: Path) -> None:
    collect = config["collect"]
    assert collect["staticDistDir"] == "site"  # served compressed by Lighthouse CI's own server, as Pages does
    assert collect["maxAutodiscoverUrls"] == 0, "0 lifts Lighthouse CI's limit of 5 pages"
    assert "url" not in collect and "autodiscoverUrlBlocklist" not in collect
    pages = {page.relative_to(built_site).as_posix() for page in built_site.rglob("*.html")}
    assert {"index.html", "404.html", "tokenization/index.html", "notebooks/tokenization/index.html"} <= pages
    missed = pages - autodiscovered(built_site, collect["staticDirFileDiscoveryDepth"])
    assert not missed, f"lhci would not audit {sorted(missed)}: raise staticDirFileDiscoveryDepth in lighthouserc.json"


def test_every_run_s_report_is_kept_in_audit_with_the_scores_of_each(config: dict[str, Any]) -> None:
    """A page that fails in some runs only has its failing run's report there; audit/manifest.json lists every
    run's scores and marks the page's median run."""
    upload = config["upload"]
    assert upload["target"] == "filesystem", "any other target sends the reports off this machine"
    assert upload["outputDir"] == "audit"
    assert "%%PATHNAME%%" in upload["reportFilenamePattern"] and "%%DATETIME%%" in upload["reportFilenamePattern"]
    assert "audit/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()

"""`make audit`'s decisions and what it prints, on a Lighthouse report cut down from a real run
(Lighthouse 12.2.3 on the article page: performance 0.79, the other categories 1)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from support import ROOT
from tools import audit

FIXTURE = ROOT / "tests" / "fixtures" / "lighthouse-report.json"


@pytest.fixture
def report() -> audit.Report:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def scored(report: audit.Report, **scores: float) -> audit.Report:
    """A copy of `report` with other category scores (best_practices= for "best-practices")."""
    changed = copy.deepcopy(report)
    for name, score in scores.items():
        changed["categories"][name.replace("_", "-")]["score"] = score
    return changed


def test_every_html_page_of_the_site_is_found_as_a_browser_asks_for_it(tmp_path: Path) -> None:
    for page in ("index.html", "404.html", "part/index.html", "notebooks/part/index.html", "assets/main.css"):
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("x", encoding="utf-8")
    assert audit.site_pages(tmp_path) == ["", "404.html", "part/", "notebooks/part/"]


def test_scores_are_medians_per_category_and_costs_come_from_the_median_run(report: audit.Report) -> None:
    runs = [scored(report, performance=0.97, accessibility=0.9), scored(report, performance=0.5),
            scored(report, performance=0.93, seo=0.9)]
    result = audit.PageResult("part/", runs)
    assert result.scores == {"performance": 0.93, "accessibility": 1.0, "best-practices": 1.0, "seo": 1.0}
    assert result.performance_runs == [0.97, 0.5, 0.93]
    assert result.report is runs[2]
    assert result.missed() == ["performance"]


def test_a_page_at_every_goal_is_one_line_of_scores(report: audit.Report) -> None:
    result = audit.PageResult("", [scored(report, performance=0.95, best_practices=0.95, seo=0.95)] * 3)
    assert result.missed() == []
    assert audit.describe(result) == ["/", "  Performance 0.95  Accessibility 1.00  Best Practices 0.95  SEO 0.95"]


def test_a_slow_page_shows_its_three_largest_costs_with_their_largest_items(report: audit.Report) -> None:
    lines = audit.describe(audit.PageResult("token-embeddings/", [report] * 3))
    assert lines[:3] == [
        "/token-embeddings/",
        "  Performance 0.79 (goal 0.95)  Accessibility 1.00  Best Practices 1.00  SEO 1.00",
        "  performance below the goal (runs: 0.79, 0.79, 0.79); largest costs, in the median run:",
    ]
    costs = lines[3:]
    assert len(costs) == audit.COSTS_SHOWN
    assert costs[0] == ("    Minimize main-thread work: 3.4 s (holds back TBT 450 ms); "
                        "largest: Style & Layout 1,369 ms, Script Evaluation 979 ms")
    assert costs[1].endswith("largest: assets/javascripts/bundle.a5f9d56c.min.js 791 ms, Unattributable 373 ms")
    assert costs[2].startswith("    Avoid an excessive DOM size: 940 elements (holds back TBT 250 ms)")


def test_a_category_other_than_performance_below_its_goal_names_its_failed_audits(report: audit.Report) -> None:
    failing = scored(report, performance=0.99, accessibility=0.96)
    failing["audits"]["color-contrast"]["score"] = 0
    result = audit.PageResult("", [failing] * 3)
    assert result.missed() == ["accessibility"]
    assert audit.describe(result)[2:] == [
        "  accessibility below the goal; failed audits:",
        "    Background and foreground colors have a sufficient contrast ratio (color-contrast)",
    ]


def test_a_category_failing_in_most_runs_is_described_from_one_of_them(report: audit.Report) -> None:
    """Not from the run with the median performance, where it may have passed."""
    failing = scored(report, performance=0.97, accessibility=0.96)
    failing["audits"]["color-contrast"]["score"] = 0
    runs = [failing, scored(report, performance=0.98), copy.deepcopy(failing)]
    runs[2]["categories"]["performance"]["score"] = 0.99
    result = audit.PageResult("notebook/", runs)
    assert result.report is runs[1] and result.missed() == ["accessibility"]
    assert audit.describe(result)[3:] == [
        "    Background and foreground colors have a sufficient contrast ratio (color-contrast)"]


def test_the_audit_fails_when_any_page_misses_a_goal(report: audit.Report, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pages = {"": scored(report, performance=0.99), "token-embeddings/": report}
    monkeypatch.setattr(audit, "audit_site", lambda site, runs: [
        audit.PageResult(path, [page] * runs) for path, page in pages.items()])
    assert audit.main(["--site", "site"]) == 1
    assert "1 of 2 pages miss a goal: /token-embeddings/" in capsys.readouterr().out
    pages["token-embeddings/"] = scored(report, performance=0.96)
    assert audit.main(["--site", "site"]) == 0
    assert "every page (2) meets every goal" in capsys.readouterr().out

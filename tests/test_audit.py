"""`make audit`'s decisions, what it prints and the reports it keeps, on a Lighthouse report cut down from a real
run (Lighthouse 12.2.3 on the article page: performance 0.79, the other categories 1)."""

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


def test_scores_are_medians_per_category_each_with_the_run_at_its_median(report: audit.Report) -> None:
    runs = [scored(report, performance=0.97, accessibility=0.9), scored(report, performance=0.5),
            scored(report, performance=0.93, seo=0.9)]
    result = audit.PageResult("part/", runs)
    assert result.scores == {"performance": 0.93, "accessibility": 1.0, "best-practices": 1.0, "seo": 1.0}
    assert result.runs["performance"] == [0.97, 0.5, 0.93]
    assert result.median_run["performance"] == 2
    assert result.missed() == ["performance"]


def test_a_page_at_every_goal_is_one_line_of_scores(report: audit.Report) -> None:
    result = audit.PageResult("", [scored(report, performance=0.95, best_practices=0.95, seo=0.95)] * 3)
    assert result.missed() == []
    assert audit.describe(result) == ["/", "  Performance 0.95  Accessibility 1.00  Best Practices 0.95  SEO 0.95"]


def test_a_page_below_a_goal_names_its_runs_and_the_report_that_shows_what_costs_the_most(
        report: audit.Report) -> None:
    lines = audit.describe(audit.PageResult("part-a/", [report] * 3))
    assert lines == [
        "/part-a/",
        "  Performance 0.79 (goal 0.95)  Accessibility 1.00  Best Practices 1.00  SEO 1.00",
        "  performance below the goal (runs: 0.79, 0.79, 0.79); what costs the most, in Lighthouse's report of "
        "the median run: audit/part-a-performance.html",
    ]


def test_a_category_failing_in_most_runs_is_reported_from_one_of_them(report: audit.Report) -> None:
    """Not from the run with the median performance, where it may have passed."""
    failing = scored(report, performance=0.97, accessibility=0.96)
    runs = [failing, scored(report, performance=0.98), scored(report, performance=0.99, accessibility=0.9)]
    result = audit.PageResult("notebooks/part/", runs)
    assert result.missed() == ["accessibility"]
    assert result.median_run == {"performance": 1, "accessibility": 0, "best-practices": 1, "seo": 1}
    assert result.report_name("accessibility") == "notebooks-part-accessibility.html"


def test_the_report_kept_for_a_missed_goal_is_that_of_its_median_run(
        report: audit.Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site, reports = tmp_path / "site", tmp_path / "audit"
    for page in ("index.html", "404.html"):
        (site / page).parent.mkdir(parents=True, exist_ok=True)
        (site / page).write_text("x", encoding="utf-8")
    (reports / "stale.html").parent.mkdir()
    (reports / "stale.html").write_text("from an earlier audit", encoding="utf-8")
    scores = iter([0.99, 0.99, 0.99, 0.90, 0.50, 0.80])  # the home page's runs, then those of 404.html

    def run(url: str, prefix: Path) -> audit.Report:
        score = next(scores)
        Path(f"{prefix}.report.html").write_text(f"{url} {score}", encoding="utf-8")
        return scored(report, performance=score)

    monkeypatch.setattr(audit, "lighthouse", run)
    results = audit.audit_site(site, 3, reports)
    assert [result.missed() for result in results] == [[], ["performance"]]
    assert sorted(path.name for path in reports.iterdir()) == ["404-performance.html"]
    assert (reports / "404-performance.html").read_text(encoding="utf-8").endswith("/404.html 0.8")


def test_the_audit_fails_when_any_page_misses_a_goal(report: audit.Report, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pages = {"": scored(report, performance=0.99), "part-a/": report}
    monkeypatch.setattr(audit, "audit_site", lambda site, runs: [
        audit.PageResult(path, [page] * runs) for path, page in pages.items()])
    assert audit.main(["--site", "site"]) == 1
    assert "1 of 2 pages miss a goal: /part-a/" in capsys.readouterr().out
    pages["part-a/"] = scored(report, performance=0.96)
    assert audit.main(["--site", "site"]) == 0
    assert "every page (2) meets every goal" in capsys.readouterr().out

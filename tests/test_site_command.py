"""`python -m recorder site` (what `make site` runs when something is stale): record, then build."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import snapshot


@pytest.mark.slow
def test_it_records_what_is_stale_then_builds_strictly(run, project: Path) -> None:
    result = run("python", "-m", "recorder", "site", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "outputs/ is up to date" in result.stdout
    assert "Documentation built" in result.stderr
    assert (project / "site" / "provenance" / "index.html").is_file()


def test_a_failed_record_builds_nothing_and_changes_no_output(run, project: Path) -> None:
    (project / "snippets" / "broken.py").write_text("raise ValueError('broken on purpose')\n", encoding="utf-8")
    before = snapshot(project / "outputs")
    result = run("python", "-m", "recorder", "site", cwd=project)
    assert result.returncode == 1, result.stderr
    assert "snippets/broken.py raised an error" in result.stderr
    assert "Building documentation" not in result.stderr
    assert not (project / "site").exists()
    assert snapshot(project / "outputs") == before


def test_a_configuration_error_met_while_recording_stops_the_build_with_mkdocs_message(run, project: Path) -> None:
    (project / "mkdocs.yml").write_text("site_name: x\ntheme:\n  name: no-such-theme\n", encoding="utf-8")
    result = run("python", "-m", "recorder", "site", cwd=project)
    assert result.returncode == 1, result.stderr
    assert "Unrecognised theme name: 'no-such-theme'" in result.stderr
    assert not (project / "site").exists()

"""`python -m recorder site` (what `make site` runs when something is stale): record, then build."""

from __future__ import annotations

import sys
import textwrap
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


# A record step that commits nothing but says it recorded, then ends only once it sees the built site.
SAYS_RECORDED_THEN_WAITS = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from recorder import site
    site.say_recorded()
    deadline = time.monotonic() + 120
    while not Path(sys.argv[1]).exists():
        if time.monotonic() > deadline:
            sys.exit(3)
        time.sleep(0.05)
""")
BUILD_WITH = textwrap.dedent("""
    import sys
    from pathlib import Path
    from recorder import site
    sys.exit(site.record_then_build(Path(sys.argv[1]), sys.argv[2:]))
""")


@pytest.mark.slow
def test_the_build_starts_once_the_record_step_says_it_recorded_not_once_it_ends(run, project: Path) -> None:
    """What a record run does after committing (Python tearing down torch, 1.5 s) overlaps the build."""
    built = project / "site" / "index.html"
    result = run("python", "-c", BUILD_WITH, str(project), sys.executable, "-c", SAYS_RECORDED_THEN_WAITS,
                 str(built), cwd=project)
    assert result.returncode == 0, result.stderr  # 3: the record step ended without seeing the site
    assert built.is_file()

"""What `make bench` relies on: stand-in outputs recorded never into the project, only into a copy it
made, and `make` in a copy that never installs anything. That its limit prints what the record step
records, `make bench` checks itself before it times anything (`Bench.__init__`)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bench import run as bench_run
from bench.run import (
    MAKE,
    MARKER,
    NOOP,
    PAIRS,
    PLAIN_CONFIG,
    RATIOS,
    ROUNDS,
    ZENSICAL,
    Bench,
    Sample,
    ratios,
    write_plain_config,
    write_plain_pages,
)
from support import ROOT, offline_env, snapshot

# That the command line refuses the stand-in is test_download.py's
# test_a_connection_that_breaks_in_the_weights_fails_fast_and_the_next_run_downloads_them_runs_and_refuses.


# Run from a copy of the project, whose bench/ takes that copy as the project itself: were the check gone, an
# empty cache would stop the record step only after it removed the copy's manifest, never the real one. The
# copy even carries the benchmark's mark, so that the check of the project itself is all that refuses it.
@pytest.mark.parametrize("spelling", [".", "snippets/.."])
def test_the_benchmark_mode_refuses_the_project_itself(run, project: Path, tmp_path: Path, spelling: str) -> None:
    shutil.copytree(ROOT / "bench", project / "bench", ignore=shutil.ignore_patterns("__pycache__"))
    (project / MARKER).write_text("marked, as a copy the benchmark made would be\n")
    before = snapshot(project / "outputs")
    result = run(
        "python",
        "-m",
        "bench.run",
        "--record",
        str(project / spelling),
        cwd=project,
        env=offline_env(tmp_path / "empty"),
    )
    assert result.returncode == 1
    assert f"error: {project} is the project itself" in result.stderr
    assert snapshot(project / "outputs") == before


def test_the_benchmark_mode_refuses_a_folder_it_did_not_make(run, project: Path, tmp_path: Path) -> None:
    before = snapshot(project / "outputs")
    result = run("python", "-m", "bench.run", "--record", str(project), cwd=ROOT, env=offline_env(tmp_path / "empty"))
    assert result.returncode == 1
    assert f"error: {project} is not a copy made by the benchmark" in result.stderr
    assert snapshot(project / "outputs") == before


# Were it installed, `pip install -r requirements.txt` would install the copy (`-e .`) into this venv.
def test_make_in_a_copy_takes_this_venv_as_installed(run, tmp_path: Path) -> None:
    for name in ("Makefile", "requirements.txt", "pyproject.toml"):
        shutil.copyfile(ROOT / name, tmp_path / name)
    result = run(*MAKE, "--dry-run", "record", "site", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all(f"{sys.prefix}/bin/python -m " in line for line in lines), lines


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _article_text(page: Path) -> str:
    parser = _Text()
    parser.feed(re.search(r"<article.*?</article>", page.read_text(encoding="utf-8"), re.S)[0])
    return " ".join("".join(parser.text).split())


# The plain build is the reference of the no-op build's ratio: it must render the same code, outputs, figures,
# values and tables, else the ratio would weigh content, not the plugin and the extension.
def test_the_plain_reference_shows_what_the_site_shows(run, project: Path, built_site: Path) -> None:
    write_plain_config(project)
    write_plain_pages(project)
    result = run("python", "-m", "mkdocs", "build", "--strict", "-f", PLAIN_CONFIG, cwd=project)
    assert result.returncode == 0, result.stderr
    pages = sorted(
        path.relative_to(built_site) for path in built_site.glob("**/index.html") if "notebooks" not in path.parts
    )
    assert len(pages) >= 5
    for page in pages:
        assert "{{" not in (shown := _article_text(project / "site" / page)), page
        assert shown == _article_text(built_site / page), page


def test_each_ratio_divides_runs_made_back_to_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each round runs each ratio's two variants back to back, turning which goes first. A variant in several ratios
    (the no-op `make site`) runs once beside each partner: each ratio divides the runs made beside its own."""
    ran: list[str] = []

    def sample(bench: Bench, name: str, number: int) -> Sample:
        ran.append(name)
        return Sample(seconds=float(len(ran)), peak_mib=len(ran) ** 2, cpu_seconds=1.0)

    monkeypatch.setattr(Bench, "sample", sample)
    timed = Bench.rounds(object.__new__(Bench))

    turns = [pair if number % 2 == 0 else pair[::-1] for number in range(ROUNDS) for pair in PAIRS]
    assert ran == [name for turn in turns for name in turn]
    by_name = {ratio["name"]: ratio["rounds"] for ratio in ratios(timed)}
    for name, top, bottom, measure, _ in RATIOS:
        rounds = timed[(top, bottom)]
        assert all(abs(both[top].seconds - both[bottom].seconds) == 1 for both in rounds), name
        assert by_name[name] == [
            round(getattr(both[top], measure) / getattr(both[bottom], measure), 3) for both in rounds
        ]
    assert any(top == ZENSICAL and bottom == NOOP for _, top, bottom, _, _ in RATIOS)


@pytest.mark.parametrize(
    ("cold_record_seconds", "status", "missed"),
    [(1.0, 0, []), (100.0, 1, ["error: goal missed: cold record / limit. Profile its variant"])],
)
def test_make_bench_fails_naming_each_ratio_that_misses_its_goal(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cold_record_seconds: float,
    status: int,
    missed: list[str],
) -> None:
    """Variants as fast as their partners meet every goal; a cold record 100 times the limit's time misses one, and
    `make bench` fails, naming it, with every ratio still written to the results."""

    class Timed:
        def __init__(self, folder: Path) -> None:
            pass

        def rounds(self) -> dict[tuple[str, str], list[dict[str, Sample]]]:
            seconds = {"cold record": cold_record_seconds}
            return {pair: [{name: Sample(seconds.get(name, 1.0), 1.0, 1.0) for name in pair}] for pair in PAIRS}

    monkeypatch.setattr(bench_run, "Bench", Timed)
    monkeypatch.setattr(bench_run, "RESULTS", tmp_path / "results.json")
    monkeypatch.setattr(bench_run, "PROJECT", tmp_path)
    assert bench_run.main([]) == status
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert [ratio["name"] for ratio in written["ratios"]] == [name for name, *_ in RATIOS]
    said = capsys.readouterr().err
    assert said.count("goal missed") == len(missed) and all(line in said for line in missed), said

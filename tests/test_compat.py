"""The version table: how a run is judged, how `make compat` runs the snippets and builds its
environments, the page it gives, and when a row is stale.

Nothing here creates a virtual environment or loads a model: the releases are stand-in
interpreters (this one, told which release it plays) and the snippets print plain text.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from recorder.__main__ import main
from recorder.project import compat_table, manifest, staleness
from recorder.project.compat_table import CompatError, View
from recorder.project.config import Project
from recorder.project.errors import RecorderError
from recorder.project.findings import Severity
from recorder.project.gpt2 import MODEL_ID, REVISION
from recorder.project.manifest import Article, Model, Origin, Record
from recorder.project.snippets import discover, sha256_file
from recorder.record import step
from recorder.render import compat_page
from recorder.tools import compat, pr_compat
from recorder.tools.compat import Printed, verdict, weight_dependent_lines
from support import ROOT

RECORDED = "True\n[0.052651, -0.010756]\ntorch.Size([1, 5])\n"
# The pinned release against a stand-in: other weight values, so line 2 depends on them.
REFERENCE = Printed("True\n[0.512290, 0.020567]\ntorch.Size([1, 5])\n")


def test_a_release_that_prints_the_recorded_lines_is_the_same() -> None:
    weight_dependent = weight_dependent_lines("snippets/x.py", RECORDED, REFERENCE, "5.17.0")
    assert weight_dependent == {2}
    other_values = Printed("True\n[-0.118803, 0.734000]\ntorch.Size([1, 5])\n")
    assert verdict(RECORDED, other_values, weight_dependent) == {"verdict": "same"}


def test_a_weight_independent_line_must_be_identical() -> None:
    printed = Printed("True\n[0.512290, 0.020567]\ntorch.Size([1, 5, 768])\n")
    assert verdict(RECORDED, printed, {2}) == {
        "verdict": "differs",
        "lines": [
            {"line": 3, "recorded": "torch.Size([1, 5])", "printed": "torch.Size([1, 5, 768])", "compared": "exactly"},
        ],
    }


def test_a_weight_dependent_line_must_keep_its_form() -> None:
    printed = Printed("True\n[0.51, 0.02]\ntorch.Size([1, 5])\n")
    assert verdict(RECORDED, printed, {2}) == {
        "verdict": "differs",
        "lines": [
            {"line": 2, "recorded": "[0.052651, -0.010756]", "printed": "[0.51, 0.02]", "compared": "by form"},
        ],
    }


def test_missing_and_extra_lines_differ() -> None:
    shorter = verdict(RECORDED, Printed("True\n[0.512290, 0.020567]\n"), {2})
    assert shorter["lines"] == [{"line": 3, "recorded": "torch.Size([1, 5])", "printed": None, "compared": "exactly"}]
    longer = verdict(RECORDED, Printed(REFERENCE.stdout + "done\n"), {2})
    assert longer["lines"] == [{"line": 4, "recorded": None, "printed": "done", "compared": "exactly"}]


def test_an_error_is_the_verdict_whatever_was_printed() -> None:
    failed = Printed("True\n", "AttributeError: 'GPT2Model' object has no attribute 'wte'")
    assert verdict(RECORDED, failed, {2}) == {"verdict": "error", "error": failed.error}


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        (Printed("", "OSError: no such file"), "snippets/x.py fails with transformers 5.17.0, the pinned release"),
        (Printed("True\n"), "snippets/x.py prints 1 lines with transformers 5.17.0 .* its recorded output has 3"),
    ],
)
def test_the_pinned_release_must_print_the_recorded_lines(reference: Printed, message: str) -> None:
    with pytest.raises(CompatError, match=message):
        weight_dependent_lines("snippets/x.py", RECORDED, reference, "5.17.0")


# Snippets of a small project of two parts, `tokens` and `vectors`. Each prints what the release it
# runs with ($RELEASE) makes of it; release 1.0 is the pinned one, against whose recorded outputs
# every release is compared.
SNIPPETS = {
    "tokens/steady": 'print("True")\n',
    "tokens/environment": 'import os, sys\nprint(os.environ["HF_HUB_OFFLINE"], os.environ["HF_HUB_CACHE"], '
    '"PYTHONPATH" in os.environ, '
    "os.path.realpath(sys.path[0]) == os.path.dirname(os.path.realpath(__file__)))\n",
    "vectors/row": 'import os\nprint("[0.123456, -0.654321]" if os.environ["RELEASE"] == "1.0" else "[0.1, -0.6]")\n',
    "vectors/shape": "import os\n"
    'print("torch.Size([1, 5])" if os.environ["RELEASE"] == "1.0" else "torch.Size([5])")\n',
    "vectors/broken": 'import os, sys\nprint("<script>alert(1)</script>")\n'
    'if os.environ["RELEASE"] == "2.0":\n'
    '    print("a warning", file=sys.stderr)\n'
    '    raise ImportError("cannot import name <GPT2Model>")\n',
}
# What the site shows for each: the real model's values where it has them.
OUTPUTS = {
    "tokens/steady": "True\n",
    "tokens/environment": "1 {cache} False True\n",
    "vectors/row": "[0.052651, -0.010756]\n",
    "vectors/shape": "torch.Size([1, 5])\n",
    "vectors/broken": "<script>alert(1)</script>\n",
}


def small_project(root: Path, hub_cache: Path) -> Path:
    """Snippets, outputs recorded as `make record` would (manifest included), requirements.txt, and the
    configuration file that makes the folder a project, listing the record step's plugin."""
    for name, source in SNIPPETS.items():
        (root / "snippets" / f"{name}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / "snippets" / f"{name}.py").write_text(source, encoding="utf-8")
    (root / "requirements.txt").write_text("transformers==1.0\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text("plugins:\n  - recorded-outputs\n", encoding="utf-8")
    records = {}
    for name, snippet in discover(root).items():
        output = OUTPUTS[name].format(cache=hub_cache).encode()
        (root / "outputs" / f"{name}.txt").parent.mkdir(parents=True, exist_ok=True)
        (root / "outputs" / f"{name}.txt").write_bytes(output)
        records[name] = step.new_record(root, snippet, output, snippet.runs_on, 0.0)
    (root / "outputs" / "manifest.json").write_bytes(manifest.to_bytes(records))
    assert staleness.stale(Project.load(root)) == []
    return root


def release_interpreter(folder: Path, release: str) -> Path:
    """An executable that runs this Python as if transformers `release` were installed."""
    path = folder / f"python-{release}"
    path.write_text(f'#!/bin/sh\nRELEASE={release} exec "{sys.executable}" "$@"\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], list[str]]:
    """A small project, and the table `make compat` makes of it with releases 1.0 (pinned) and 2.0."""
    folder = tmp_path_factory.mktemp("compat")
    hub_cache = folder / "hub"
    root = small_project(folder / "project", hub_cache)
    installs = compat.plan(root, ("1.0", "2.0"))
    assert installs == {"1.0": None, "2.0": []}, "the pinned release installs nothing; the snippets import no package"
    printed: list[str] = []
    table = compat.check_releases(
        root,
        installs,
        hub_cache,
        timeout=30,
        report=printed.append,
        interpreter=lambda release, wanted: [str(release_interpreter(folder, release))],
    )
    return root, table, printed


def results(table: dict[str, Any], release: str) -> dict[str, dict[str, Any]]:
    return {name: row["results"][release] for name, row in table["snippets"].items()}


def test_the_pinned_release_runs_first_and_matches_its_recorded_outputs(checked) -> None:
    root, table, printed = checked
    assert printed[0] == "transformers 1.0 (1/2)" and "transformers 2.0 (2/2)" in printed
    number = list(discover(root)).index("vectors/row") + 1
    assert printed[2] == "checking 5 of 5 rows", "every row: there was no table"
    assert f"  transformers 1.0 [{number}/5] snippets/vectors/row.py: same" in [
        line.rsplit("  ", 1)[0] for line in printed
    ]
    assert table["reference"] == "1.0" and list(table["releases"]) == ["1.0", "2.0"]
    assert {cell["verdict"] for cell in results(table, "1.0").values()} == {"same"}


def test_each_snippet_runs_as_a_reader_runs_it_offline_from_the_project_root(checked) -> None:
    """`environment` printed what it saw: offline, the stand-in's cache, no PYTHONPATH, its folder on the path."""
    _, table, _ = checked
    assert results(table, "2.0")["tokens/environment"] == {"verdict": "same"}


def test_another_release_is_judged_line_by_line(checked) -> None:
    _, table, _ = checked
    other = results(table, "2.0")
    assert other["tokens/steady"] == {"verdict": "same"}
    assert other["vectors/row"]["lines"] == [
        {"line": 1, "recorded": "[0.052651, -0.010756]", "printed": "[0.1, -0.6]", "compared": "by form"}
    ]
    assert other["vectors/shape"]["lines"] == [
        {"line": 1, "recorded": "torch.Size([1, 5])", "printed": "torch.Size([5])", "compared": "exactly"}
    ]
    assert other["vectors/broken"] == {"verdict": "error", "error": "ImportError: cannot import name <GPT2Model>"}


def test_the_table_records_what_each_release_ran_with_and_what_it_checked(checked) -> None:
    root, table, _ = checked
    for about in table["releases"].values():
        assert about["versions"]["python"] == ".".join(map(str, sys.version_info[:3]))
        assert set(about["versions"]) == {
            "python",
            "torch",
            "transformers",
            "tokenizers",
            "safetensors",
            "huggingface_hub",
        }
        assert about["checked_at"].endswith("+00:00")
    written = json.loads((root / compat_table.RESULTS).read_text(encoding="utf-8"))
    assert written["about"] == compat.HEADER
    assert sorted(written["snippets"]) == sorted(SNIPPETS)
    for name, row in written["snippets"].items():
        assert row["sources"] == {f"snippets/{name}.py": sha256_file(root / "snippets" / f"{name}.py")}
        assert row["output_sha256"] == sha256_file(root / "outputs" / f"{name}.txt")


def test_a_snippet_that_outlives_its_timeout_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "snippets" / "part").mkdir(parents=True)
    (tmp_path / "snippets" / "part" / "slow.py").write_text("import time\ntime.sleep(30)\n", encoding="utf-8")
    snippet = discover(tmp_path)["part/slow"]
    printed = compat.run_snippet([sys.executable], tmp_path, snippet, tmp_path, timeout=0.5)
    assert printed.error == "did not finish within 0.5 s"


def test_outputs_out_of_date_stop_the_run_before_anything_runs(tmp_path: Path) -> None:
    root = small_project(tmp_path / "project", tmp_path / "hub")
    (root / "snippets" / "tokens" / "steady.py").write_text('print("False")\n', encoding="utf-8")
    with pytest.raises(CompatError, match=r"(?s)out of date:.*snippets/tokens/steady.py changed.*make record"):
        compat.plan(root, ("1.0", "2.0"))
    (root / "snippets" / "tokens" / "steady.py").write_text(SNIPPETS["tokens/steady"], encoding="utf-8")
    with pytest.raises(CompatError, match=r"leave out 1.0, the one requirements.txt pins"):
        compat.plan(root, ("2.0",))
    (root / "requirements.txt").write_text("torch==2.13.0  # CPU\n", encoding="utf-8")
    with pytest.raises(CompatError, match=r"requirements.txt does not pin transformers. Pin it as transformers=="):
        compat.plan(root, ("1.0", "2.0"))


def page(root: Path, parts: dict[str, str] | None = None) -> BeautifulSoup:
    found = compat_table.view(root, discover(root))
    assert isinstance(found, View), found
    return BeautifulSoup(compat_page.render(found, manifest.read(root), None, parts or {}), "html.parser")


def notices(root: Path) -> list[str]:
    """What `python -m recorder check` says of the table of the project at `root`: notices, never problems."""
    found = compat_table.notices(compat_table.view(root, discover(root)))
    assert all(finding.severity is Severity.NOTICE for finding in found), found
    return [finding.message for finding in found]


def row_cells(document: BeautifulSoup, name: str) -> list[Any]:
    link = document.find("a", string=f"{name}.py")
    assert link is not None, name
    return link.find_parent("tr").find_all("td")


def test_the_page_shows_a_row_per_snippet_and_a_column_per_release(checked) -> None:
    root, table, _ = checked
    document = page(root)
    results_table = document.find("table")
    heads = [th.get_text(" ", strip=True) for th in results_table.thead.find_all("th")]
    assert heads == ["Example", "1.0 (pinned)", "2.0"]
    links = results_table.select("tbody th[scope=row] a")
    assert [a.get_text() for a in links] == [f"{name}.py" for name in sorted(SNIPPETS)]
    assert [a["href"] for a in links] == [f"generated/snippets/{name}.py" for name in sorted(SNIPPETS)]
    assert [cell.get_text() for cell in row_cells(document, "tokens/steady")] == ["same", "same"]
    versions = [item.get_text() for item in document.select(".compat-versions li")]
    assert [line.split(" · ")[0] for line in versions] == ["transformers 1.0", "transformers 2.0"]
    python = table["releases"]["2.0"]["versions"]["python"]
    assert f"Python {python} · checked on {table['releases']['2.0']['checked_at'][:10]}" in versions[1]


def test_the_rows_are_grouped_by_part_titled_and_ordered_as_the_navigation_names_them(checked) -> None:
    root, table, _ = checked
    # Titled and ordered as the mapping says (the navigation's, in a build), not alphabetically.
    titles = {"vectors": "Part «2» <i>", "tokens": "Part 1"}
    document = page(root, titles)
    groups = document.find("table").find_all("tbody", recursive=False)
    assert len(groups) == len(titles)
    for group, (part, title) in zip(groups, titles.items(), strict=True):
        header, *rows = group.find_all("tr", recursive=False)
        heading = header.find_all(["th", "td"])
        assert len(heading) == 1 and heading[0].name == "th" and heading[0]["scope"] == "rowgroup"
        assert heading[0].get_text() == title and heading[0]["colspan"] == str(1 + len(table["releases"]))
        assert [row.th.get_text() for row in rows] == [
            f"{name}.py" for name in sorted(SNIPPETS) if name.startswith(f"{part}/")
        ]
    assert document.find("i") is None, "a title is text, never markup"
    # A part the mapping leaves out still shows, after the others, under its folder's name.
    named_one = page(root, {"vectors": "Part 2"}).find("table").find_all("tbody", recursive=False)
    assert [group.select_one("th[scope=rowgroup]").get_text() for group in named_one] == ["Part 2", "tokens"]


def linked_section(document: BeautifulSoup, cell: Any) -> Any:
    """The section a cell's link leads to."""
    target = document.find(id=cell.a["href"].removeprefix("#"))
    assert target is not None and target.name == "section"
    return target


def test_a_difference_or_an_error_is_one_click_away_as_literal_text(checked) -> None:
    root, _, _ = checked
    document = page(root)
    shape = row_cells(document, "vectors/shape")[1]
    assert shape.a.get_text() == "differs: 1 line"
    section = linked_section(document, shape)
    assert section.h3.get_text() == "vectors/shape.py with transformers 2.0: differs"
    assert section.pre.get_text() == (
        "line 1, compared exactly\n  site:    torch.Size([1, 5])\n  printed: torch.Size([5])"
    )
    row = row_cells(document, "vectors/row")[1]
    assert "weight values, compared by form" in linked_section(document, row).pre.get_text()
    broken = row_cells(document, "vectors/broken")[1]
    assert broken.a.get_text() == "error"
    assert linked_section(document, broken).pre.get_text() == "ImportError: cannot import name <GPT2Model>"
    assert document.find("gpt2model") is None, "text from the file is escaped, never markup"
    assert len(document.find_all("section")) == 3, "a section for each cell that is not the same, no more"
    assert not [section["id"] for section in document.find_all("section") if "/" in section["id"]], (
        "a fragment with a slash reads as a path"
    )


def test_a_snippet_changed_since_the_table_was_made_is_not_yet_checked(checked, tmp_path: Path) -> None:
    root, _, _ = checked
    copy = tmp_path / "project"
    subprocess.run(["cp", "-r", str(root), str(copy)], check=True)
    assert notices(copy) == []
    (copy / "snippets" / "vectors" / "shape.py").write_text(
        SNIPPETS["vectors/shape"] + "# now commented\n", encoding="utf-8"
    )
    (copy / "outputs" / "vectors" / "row.txt").write_text("[0.052651, -0.010757]\n", encoding="utf-8")
    document = page(copy)
    for name, changed in (
        ("vectors/shape", "snippets/vectors/shape.py (or a snippet it imports)"),
        ("vectors/row", "outputs/vectors/row.txt"),
    ):
        cells = row_cells(document, name)
        assert len(cells) == 1 and cells[0]["colspan"] == "2"
        assert cells[0].get_text() == f"not yet checked: {changed} changed since compat/results.json was made"
        assert document.find(id=f"compat-{name.replace('/', '-')}-2.0") is None, "no old verdict"
    assert notices(copy) == [
        "2 rows of the version table are not yet checked since compat/results.json was made (a snippet or its "
        "output changed): run `make compat`, which checks only those, and commit compat/results.json."
    ]


def rerecorded(root: Path, name: str, source: str) -> None:
    """`snippets/NAME.py` rewritten as `source`, printing what it printed, and recorded again, as `make record` does."""
    (root / "snippets" / f"{name}.py").write_text(source, encoding="utf-8")
    current = step.Session(Project.load(root), discover(root), manifest.read(root))
    output = (root / "outputs" / f"{name}.txt").read_bytes()
    snippet = current.snippets[name]
    step.save(root, current, {name: (output, step.new_record(root, snippet, output, snippet.runs_on, 0.0))})
    assert staleness.stale(current.project) == []


@pytest.fixture
def one_row_not_yet_checked(checked, tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    """A copy of the checked project whose `vectors/shape` changed since, its output recorded again: a folder for
    the stand-in interpreters, the copy and its table as it was."""
    root, table, _ = checked
    copy = tmp_path / "project"
    subprocess.run(["cp", "-r", str(root), str(copy)], check=True)
    rerecorded(copy, "vectors/shape", SNIPPETS["vectors/shape"] + "# now commented\n")
    return tmp_path, copy, table


def test_make_compat_checks_only_the_rows_not_yet_checked_and_keeps_the_others(one_row_not_yet_checked) -> None:
    folder, root, before = one_row_not_yet_checked
    printed: list[str] = []
    table = compat.check_releases(
        root,
        {"1.0": None, "2.0": []},
        folder / "hub",
        timeout=30,
        report=printed.append,
        interpreter=lambda release, wanted: [str(release_interpreter(folder, release))],
        previous=compat_table.read(root),
    )
    assert "checking 1 of 5 rows, not yet checked" in printed
    ran = [line.rsplit("  ", 1)[0] for line in printed if line.startswith("  transformers")]
    assert ran == [
        "  transformers 1.0 [1/1] snippets/vectors/shape.py: same",
        ("  transformers 2.0 [1/1] snippets/vectors/shape.py: differs"),
    ]
    assert table["snippets"]["vectors/shape"]["results"] == before["snippets"]["vectors/shape"]["results"]
    assert table["snippets"]["vectors/shape"]["sources"] != before["snippets"]["vectors/shape"]["sources"]
    assert {name: row for name, row in table["snippets"].items() if name != "vectors/shape"} == {
        name: row for name, row in before["snippets"].items() if name != "vectors/shape"
    }
    assert notices(root) == []
    assert json.loads((root / compat_table.RESULTS).read_text(encoding="utf-8"))["snippets"] == table["snippets"]


def test_make_compat_with_every_row_checked_runs_nothing(checked, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _, _ = checked
    monkeypatch.setattr(compat, "RELEASES", ("1.0", "2.0"))
    monkeypatch.setattr(compat, "create_stand_ins", pytest.fail)
    printed: list[str] = []
    assert compat.make_compat(root, timeout=30, report=printed.append) is False
    assert printed == ["every row of compat/results.json is checked: nothing to run (FORCE=1 checks every row again)."]


def test_a_release_that_now_runs_with_other_versions_has_every_row_checked_again(one_row_not_yet_checked) -> None:
    folder, root, _ = one_row_not_yet_checked
    previous = compat_table.read(root)
    previous["releases"]["2.0"]["versions"]["tokenizers"] = "0.0.1"
    printed: list[str] = []
    compat.check_releases(
        root,
        {"1.0": None, "2.0": []},
        folder / "hub",
        timeout=30,
        report=printed.append,
        interpreter=lambda release, wanted: [str(release_interpreter(folder, release))],
        previous=previous,
    )
    assert (
        "transformers 2.0 now run with other versions than compat/results.json records: every row is checked again"
        in printed
    )
    assert "checking 5 of 5 rows" in printed


def test_the_pull_request_job_checks_the_rows_left_unchecked_and_says_what_to_commit(
    one_row_not_yet_checked, tmp_path: Path
) -> None:
    folder, root, _ = one_row_not_yet_checked
    summary = tmp_path / "summary.md"

    def make_compat(project: Path) -> None:
        compat.check_releases(
            project,
            {"1.0": None, "2.0": []},
            folder / "hub",
            timeout=30,
            report=lambda line: None,
            interpreter=lambda release, wanted: [str(release_interpreter(folder, release))],
            previous=compat_table.read(project),
        )

    assert pr_compat.run(root, make_compat, summary) is False
    assert summary.read_text(encoding="utf-8") == (
        "## Rows of the version table not yet checked\n\n"
        "- snippets/vectors/shape.py (or a snippet it imports) changed since compat/results.json was made\n\n"
        "| Example | 1.0 | 2.0 |\n| --- | --- | --- |\n| `vectors/shape.py` | same | differs: 1 line |\n\n"
        f"**{pr_compat.INSTRUCTION}**\n"
    )
    assert pr_compat.run(root, pytest.fail, summary) is True, "nothing left unchecked: nothing runs"
    assert summary.read_text(encoding="utf-8").endswith(pr_compat.CHECKED)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "compat/results.json does not exist. Run `make compat`"),
        ("{", "compat/results.json is not a valid version table"),
        ('{"releases": {}, "snippets": {}, "reference": "5.17.0"}', "compat/results.json is not a valid version table"),
        (
            '{"releases": {"5.17.0": {}}, "reference": "5.17.0", '
            '"snippets": {"part/x": {"results": {"5.17.0": {"verdict": "differs"}}}}}',
            "compat/results.json is not a valid version table .KeyError: 'lines'.. Restore it",
        ),
    ],
)
def test_a_missing_or_broken_table_names_the_file_and_the_fix(
    tmp_path: Path, content: str | None, message: str
) -> None:
    if content is not None:
        (tmp_path / "compat").mkdir()
        (tmp_path / "compat" / "results.json").write_text(content, encoding="utf-8")
    with pytest.raises(CompatError, match=message):
        compat_table.read(tmp_path)


def test_recorder_check_mentions_a_stale_table_without_failing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A row made for the snippet as it is, then its source changed since.
    snippet = next(iter(discover(project).values()))
    source = snippet.relative(project)
    results_path = project / compat_table.RESULTS
    table = json.loads(results_path.read_text(encoding="utf-8"))
    table["snippets"][snippet.name] = {
        **compat_table.checked_against(project, snippet),
        "results": {release: {"verdict": "same"} for release in table["releases"]},
    }
    table["snippets"][snippet.name]["sources"][source] = "0" * 64
    results_path.write_text(json.dumps(table), encoding="utf-8")

    assert main(["--root", str(project), "check"]) == 0
    notices = [line for line in capsys.readouterr().err.splitlines() if line.startswith("notice: ")]
    # The committed table is whole: the one row changed here is the only one not yet checked.
    assert len(compat_table.unchecked(project, compat_table.read(project), discover(project))) == 1
    assert notices == [
        "notice: 1 row of the version table is not yet checked since compat/results.json was made (a snippet or "
        "its output changed): run `make compat`, which checks only those, and commit compat/results.json."
    ]


def test_requirements_pin_what_the_snippets_import_with_the_release_under_test(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text(
        "torch==2.13.0  # CPU\nPyYAML==6.0.4\ntransformers==5.17.0\nhuggingface_hub==1.33.0\n"
    )
    wanted = compat.requirements(tmp_path, {"torch", "transformers", "yaml", "xml", "collections"}, "4.57.6")
    assert wanted == ["PyYAML==6.0.4", "torch==2.13.0", "transformers==4.57.6"]
    # A library transformers depends on is at the version the release asks for, even when a snippet
    # imports it itself: transformers 4.57.6 cannot install beside huggingface_hub 1.33.0.
    wanted = compat.requirements(tmp_path, {"transformers", "huggingface_hub"}, "4.57.6")
    assert wanted == ["huggingface_hub", "transformers==4.57.6"]
    with pytest.raises(RecorderError, match=r"a snippet imports `einops`, which requirements\.txt does not pin"):
        compat.requirements(tmp_path, {"einops"}, "4.57.6")


def test_another_release_runs_in_an_environment_of_its_own_that_uv_keeps(tmp_path: Path) -> None:
    """Not laid over .venv, whose packages a reader does not have (PyYAML is one)."""
    python = compat.in_environment(tmp_path, [])
    ran = subprocess.run(
        [*python, "-c", "import importlib.util, sys; print(importlib.util.find_spec('yaml'))"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (ran.returncode, ran.stdout) == (0, "None\n"), ran.stderr
    assert (tmp_path / ".compat" / "uv-cache").is_dir()
    wanted = ["torch==2.13.0", "transformers==4.57.6"]
    # Where torch's CPU build is, uv reads from UV_FIND_LINKS, set by the Makefile for .venv and these alike.
    assert compat.in_environment(tmp_path, wanted)[-3:] == [
        "--with=torch==2.13.0",
        "--with=transformers==4.57.6",
        "python",
    ]


def test_a_release_that_cannot_start_is_named_with_the_fix() -> None:
    failing = [sys.executable, "-c", "raise SystemExit('No solution found when resolving `--with` dependencies')"]
    with pytest.raises(
        CompatError,
        match=r"(?s)transformers 5.0.0's Python could not start.*No solution found"
        r".*Check that uv can install it here, then run `make compat` again",
    ):
        compat.release_versions(failing, "5.0.0")


@pytest.mark.slow
def test_the_built_page_shows_every_snippet_and_release_of_the_committed_table(built_site: Path) -> None:
    table = compat_table.read(ROOT)
    document = BeautifulSoup((built_site / "compatibility" / "index.html").read_text(encoding="utf-8"), "html.parser")
    results_table = document.select_one("article .compatibility table")
    heads = [th.get_text(" ", strip=True).removesuffix(" (pinned)") for th in results_table.thead.find_all("th")]
    assert heads == ["Example", *table["releases"]]
    # Each part under its title in the navigation, in the navigation's order.
    project = Project.load(ROOT)
    pages = {part.page: part.name for part in project.parts()}
    snippets = discover(ROOT)
    expected = [
        (title, pages[page_file])
        for entry in project.nav
        if isinstance(entry, dict)
        for title, page_file in entry.items()
        if isinstance(page_file, str) and page_file in pages
    ]
    expected = [(title, part) for title, part in expected if any(s.part == part for s in snippets.values())]
    groups = results_table.find_all("tbody", recursive=False)
    assert [group.select_one("th[scope=rowgroup]").get_text() for group in groups] == [title for title, _ in expected]
    rows = [a.get_text() for a in results_table.select("tbody th[scope=row] a")]
    assert rows == [f"{name}.py" for _, part in expected for name, snippet in snippets.items() if snippet.part == part]
    assert len(rows) == len(snippets), "every snippet has a row, in a part the navigation names"


def a_record(origin: Origin, counts: tuple[int, int] | None = None) -> Record:
    """A record of `origin`; taken from the article, with the counts (exact, weight-dependent) of its check."""
    article = Article("An article", "published/part/example.txt", {}, None, *counts) if counts else None
    return Record(
        source="snippets/part/example.py",
        output="outputs/part/example.txt",
        output_sha256="0" * 64,
        sources={"snippets/part/example.py": "1" * 64},
        origin=origin,
        model=Model(MODEL_ID, REVISION, {}),
        versions={},
        recorded_at="2027-01-02T03:04:05+00:00",
        seconds=0.0,
        article=article,
    )


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (a_record(Origin.ARTICLE_PRINTED, (2, 0)), "same"),
        (a_record(Origin.ARTICLE_PRINTED, (0, 2)), "same form"),
        (a_record(Origin.ARTICLE_PRINTED, (3, 1)), "same, 1 line by form"),
        (a_record(Origin.WEIGHTS), "same, weight-dependent lines by form"),
        (a_record(Origin.TOKENIZER), "same"),
        (None, "same"),
    ],
)
def test_a_same_cell_says_what_was_compared(entry: Record | None, said: str) -> None:
    assert compat_page.same(entry) == said


def test_the_site_s_same_cells_say_form_only_where_the_record_has_no_weight_independent_line() -> None:
    """On the real table: a published output whose every line depends on weight values reads "same form"."""
    records = manifest.read(ROOT)
    document = page(ROOT)
    for name, entry in records.items():
        published = entry.article
        cells = {cell.get_text() for cell in row_cells(document, name)}
        if published is not None and published.weight_dependent_lines and not published.exact_lines:
            assert cells <= {"same form"} or any(cell.startswith(("differs", "error")) for cell in cells), name
        else:
            assert "same form" not in cells, name
    assert "same form" in document.get_text(), "the row of values is compared by form only"

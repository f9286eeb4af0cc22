"""`python -m recorder diff`: the recorded outputs of the working tree against a git ref, as Markdown,
checked on a small git repository of synthetic outputs."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from recorder.__main__ import main
from recorder.project import manifest
from recorder.project.errors import RecorderError
from recorder.project.gpt2 import REVISION, WEIGHTS_SHA256, short
from recorder.project.manifest import Article, Model, Origin, Record
from recorder.tools.diff import Outputs, render, report

# Snippets are named "<part>/<stem>", their outputs are outputs/<part>/<stem>.txt.
GREETING_NAME, FIGURE_NAME = "part-one/greeting", "part-two/figure"
GREETING = "hello\nworld\n"
FIGURE = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">\n'
    '  <title>Rows 0 &amp; 1 of the table</title>\n  <rect width="4" height="4"/>\n</svg>\n'
)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


ARTICLE = "An article"


def entry(name: str, **changes: Any) -> Record:
    """A record shaped like the ones `make record` writes: by default of an output taken from the article."""
    return replace(
        Record(
            source=f"snippets/{name}.py",
            output=f"outputs/{name}.txt",
            output_sha256="0" * 64,
            sources={f"snippets/{name}.py": "2" * 64},
            origin=Origin.ARTICLE_PRINTED,
            model=Model("gpt2", REVISION, {}),
            versions={"python": "3.11.7", "transformers": "5.17.0"},
            recorded_at="2026-11-30T09:45:57+00:00",
            seconds=0.0,
            article=Article(ARTICLE, f"published/{name}.txt", {"revision": REVISION}, None, 2, 0),
        ),
        **changes,
    )


def executed(name: str) -> Record:
    """The record of an output the record step executed with no model."""
    return entry(name, origin=Origin.NO_MODEL, model=None, article=None)


def write(root: Path, texts: dict[str, str], entries: dict[str, Record]) -> None:
    """Replace the outputs and the manifest of `root`."""
    folder = root / "outputs"
    for old in folder.rglob("*.txt"):
        old.unlink()
    for name, text in texts.items():
        (folder / f"{name}.txt").parent.mkdir(exist_ok=True)
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    (folder / "manifest.json").write_bytes(manifest.to_bytes(entries))


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def records(root: Path) -> dict[str, Record]:
    return manifest.read(root)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository whose first commit records a text output and a figure."""
    # No user configuration, and no repository above tmp_path to be found by mistake.
    for variable, value in {
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }.items():
        monkeypatch.setenv(variable, value)
    root = tmp_path / "repo"
    (root / "outputs").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    write(
        root,
        {GREETING_NAME: GREETING, FIGURE_NAME: FIGURE},
        {GREETING_NAME: entry(GREETING_NAME), FIGURE_NAME: executed(FIGURE_NAME)},
    )
    commit(root, "first outputs")
    return root


def test_a_changed_output_shows_its_text_diff_and_what_changed_in_its_provenance(repo: Path) -> None:
    entries = records(repo)
    entries[GREETING_NAME] = replace(
        entries[GREETING_NAME],
        origin=Origin.WEIGHTS,
        recorded_at="2026-12-01T00:00:00+00:00",
        model=Model("gpt2", REVISION, {"model.safetensors": WEIGHTS_SHA256}),
        article=None,
    )
    write(repo, {GREETING_NAME: "hello\nthere\n", FIGURE_NAME: FIGURE}, entries)

    markdown = report(repo)

    assert markdown.startswith("## 1 recorded output changed since `HEAD`\n")
    assert "### `part-one/greeting`: changed" in markdown
    assert (
        "```diff\n--- HEAD:outputs/part-one/greeting.txt\n+++ outputs/part-one/greeting.txt\n"
        "@@ -1,2 +1,2 @@\n hello\n-world\n+there\n```"
    ) in markdown
    assert (
        f"| origin | Published in the article *{ARTICLE}* · GPT-2 `gpt2@{short()}` | Executed by the record step · "
        f"GPT-2 `gpt2@{short()}`, weights sha256 `{WEIGHTS_SHA256[:12]}…` verified |"
    ) in markdown
    assert f"| sha256 of model.safetensors | — | `{WEIGHTS_SHA256}` |" in markdown
    assert "recorded_at" not in markdown and "`part-two/figure`" not in markdown


def test_nothing_changed_is_one_line_even_when_re_recorded(repo: Path) -> None:
    entries = records(repo)
    entries[GREETING_NAME] = replace(entries[GREETING_NAME], recorded_at="2026-12-01T00:00:00+00:00", seconds=1.5)
    write(repo, {GREETING_NAME: GREETING, FIGURE_NAME: FIGURE}, entries)

    assert report(repo) == "No recorded output changed since `HEAD`.\n"


def test_a_provenance_change_alone_is_reported(repo: Path) -> None:
    entries = records(repo)
    versions = {**entries[GREETING_NAME].versions, "transformers": "5.24.0"}
    entries[GREETING_NAME] = replace(entries[GREETING_NAME], versions=versions)
    write(repo, {GREETING_NAME: GREETING, FIGURE_NAME: FIGURE}, entries)

    markdown = report(repo)

    assert "### `part-one/greeting`: changed\n\nSame text; its provenance changed." in markdown
    assert "| transformers | `5.17.0` | `5.24.0` |" in markdown
    assert "```diff" not in markdown


def test_what_the_article_states_of_an_output_is_part_of_its_provenance(repo: Path) -> None:
    entries = records(repo)
    article = replace(entries[GREETING_NAME].article, prose="Both are hello.", stated={"transformers": "5.18.0"})
    entries[GREETING_NAME] = replace(entries[GREETING_NAME], origin=Origin.ARTICLE_PROSE, article=article)
    write(repo, {GREETING_NAME: GREETING, FIGURE_NAME: FIGURE}, entries)

    markdown = report(repo)

    assert "| the article states it as | — | “Both are hello.” |" in markdown
    assert "| the article states its transformers | — | `5.18.0` |" in markdown
    assert f"| the article states its revision | `{REVISION}` | — |" in markdown


@pytest.mark.parametrize(
    ("title", "said"),
    [
        ("Rows 0 &amp; 1 of the table", "Figure “Rows 0 & 1 of the table” changed."),
        (
            "Rows 0 &amp; 2 of the table",
            "Figure changed: was “Rows 0 & 1 of the table”, now “Rows 0 & 2 of the table”.",
        ),
    ],
)
def test_a_figure_is_named_by_its_title_instead_of_diffed(repo: Path, title: str, said: str) -> None:
    changed = FIGURE.replace('width="4"', 'width="5"').replace("Rows 0 &amp; 1 of the table", title)
    write(repo, {GREETING_NAME: GREETING, FIGURE_NAME: changed}, records(repo))

    markdown = report(repo)

    assert f"### `part-two/figure`: changed\n\n{said}\n" in markdown
    assert "<svg" not in markdown and "```" not in markdown


def test_added_and_removed_outputs_are_reported_by_name_in_order(repo: Path) -> None:
    """Here with a part removed (its only output goes) and a part added."""
    entries = records(repo)
    del entries[GREETING_NAME]
    entries["part-three/farewell"] = executed("part-three/farewell")
    write(repo, {"part-three/farewell": "bye\n", FIGURE_NAME: FIGURE}, entries)

    markdown = report(repo)

    assert markdown.startswith("## 2 recorded outputs changed since `HEAD`\n")
    assert (
        "### `part-three/farewell`: added\n\n```diff\n--- /dev/null\n+++ outputs/part-three/farewell.txt\n"
        "@@ -0,0 +1 @@\n+bye\n```"
    ) in markdown
    assert "| origin | — | Executed by the record step · no model |" in markdown
    assert (
        "### `part-one/greeting`: removed\n\n```diff\n--- HEAD:outputs/part-one/greeting.txt\n+++ /dev/null\n"
        "@@ -1,2 +0,0 @@\n-hello\n-world\n```"
    ) in markdown
    assert f"| origin | Published in the article *{ARTICLE}* · GPT-2 `gpt2@{short()}` | — |" in markdown
    assert markdown.index("`part-one/greeting`") < markdown.index("`part-three/farewell`")


def test_outputs_of_the_same_stem_in_two_parts_are_told_apart(repo: Path) -> None:
    """Both parts may have a `token_ids`: each is its own output, named with its part."""
    first, second = "part-one/token_ids", "part-two/token_ids"
    entries = records(repo) | {first: entry(first), second: entry(second)}
    texts = {GREETING_NAME: GREETING, FIGURE_NAME: FIGURE, first: "[1, 2]\n", second: "[1, 2]\n"}
    write(repo, texts, entries)
    commit(repo, "a token_ids in each part")
    write(repo, texts | {second: "[1, 3]\n"}, entries)

    markdown = report(repo)

    assert markdown.startswith("## 1 recorded output changed since `HEAD`\n")
    assert (
        "### `part-two/token_ids`: changed\n\n```diff\n--- HEAD:outputs/part-two/token_ids.txt\n"
        "+++ outputs/part-two/token_ids.txt\n@@ -1 +1 @@\n-[1, 2]\n+[1, 3]\n```"
    ) in markdown
    assert f"`{first}`" not in markdown


def test_a_figure_added_or_removed_is_named_by_its_title() -> None:
    figure = Outputs({FIGURE_NAME: entry(FIGURE_NAME)}, {FIGURE_NAME: FIGURE})
    nothing = Outputs({}, {})

    assert "New figure: “Rows 0 & 1 of the table”." in render(nothing, figure, "`HEAD`")
    assert "Removed figure: “Rows 0 & 1 of the table”." in render(figure, nothing, "`HEAD`")


def test_any_text_stays_inside_its_fence_and_a_missing_last_newline_shows() -> None:
    before = Outputs({"quote": entry("quote")}, {"quote": "a\n"})
    after = Outputs({"quote": entry("quote")}, {"quote": "a\n```\nb"})

    markdown = render(before, after, "`HEAD`")

    assert "````diff\n" in markdown and markdown.rstrip().endswith("````")
    assert "+b\n\\ No newline at end of file\n````" in markdown


def test_by_default_the_base_is_the_merge_base_with_origin_main(repo: Path) -> None:
    branch_point = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")
    entries = records(repo)
    write(repo, {GREETING_NAME: "hello\nbranch\n", FIGURE_NAME: FIGURE}, entries)
    commit(repo, "the branch changes greeting")
    git(repo, "checkout", "-q", "main")
    write(repo, {GREETING_NAME: GREETING, FIGURE_NAME: FIGURE.replace('width="4"', 'width="6"')}, entries)
    git(repo, "update-ref", "refs/remotes/origin/main", commit(repo, "main moves on: the figure changes"))
    git(repo, "checkout", "-q", "feature")

    markdown = report(repo)

    assert markdown.startswith(
        f"## 1 recorded output changed since the merge base with `origin/main` (`{branch_point[:7]}`)\n"
    )
    assert "-world\n+branch\n" in markdown and "`part-two/figure`" not in markdown
    git(repo, "update-ref", "-d", "refs/remotes/origin/main")
    assert report(repo) == "No recorded output changed since `HEAD`.\n"


def test_a_named_base_is_compared_with(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo, {GREETING_NAME: "hello\nagain\n", FIGURE_NAME: FIGURE}, records(repo))
    commit(repo, "greeting changes")

    assert main(["--root", str(repo), "diff", "HEAD~1"]) == 0
    assert "### `part-one/greeting`: changed" in capsys.readouterr().out
    assert main(["--root", str(repo), "diff"]) == 0
    assert capsys.readouterr().out == "No recorded output changed since `HEAD`.\n"


def test_an_unknown_ref_or_a_folder_outside_git_fails_naming_the_cause_and_the_fix(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(repo), "diff", "no-such-branch"]) == 1
    error = capsys.readouterr().err
    assert "`no-such-branch` is not a commit" in error and "Pass a branch, tag or commit" in error

    elsewhere = tmp_path / "not-a-repository"
    elsewhere.mkdir()
    with pytest.raises(RecorderError, match=r"not-a-repository is not a git repository.*run it in a clone"):
        report(elsewhere)


@pytest.mark.parametrize(
    ("committed", "said"),
    [
        ("not json", "HEAD:outputs/manifest.json is not JSON (Expecting value: line 1 column 1 (char 0))."),
        ('{"snippets": {}}', "HEAD:outputs/manifest.json is not a manifest of schema 2 (its schema: None)."),
        ('{"schema": 2, "outputs": {}}', "HEAD:outputs/manifest.json: `snippets` is not a mapping of snippet names"),
        ('{"schema": 2, "snippets": []}', "HEAD:outputs/manifest.json: `snippets` is not a mapping of snippet names"),
        (
            '{"schema": 2, "snippets": {"part-one/greeting": "an entry"}}',
            "HEAD:outputs/manifest.json: record `part-one/greeting`: expected a mapping of its fields, not 'an entry'.",
        ),
    ],
    ids=["not JSON", "no schema", "no snippets", "snippets not a mapping", "an entry that is no record"],
)
def test_a_malformed_manifest_at_the_base_fails_naming_it_and_the_fix(
    repo: Path, committed: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good = (repo / "outputs" / "manifest.json").read_bytes()
    (repo / "outputs" / "manifest.json").write_text(committed, encoding="utf-8")
    commit(repo, "a manifest edited by hand")
    (repo / "outputs" / "manifest.json").write_bytes(good)

    assert main(["--root", str(repo), "diff", "HEAD"]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"error: {said}"), error
    assert error.rstrip().endswith("Compare with another commit: `python -m recorder diff REF`."), error

"""Attaching the article's published outputs: accepted only where the snippet agrees."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

import pytest

from recorder.__main__ import main
from recorder.project import manifest, staleness
from recorder.project.config import Options, Project, ProjectError, Statements
from recorder.project.errors import RecorderError
from recorder.project.gpt2 import REVISION
from recorder.project.manifest import Origin
from recorder.project.provenance import counted
from recorder.project.snippets import discover
from recorder.record import article as published_module
from recorder.record.article import check, form
from support import ROOT, edit, snapshot

# The article's published outputs, `published/<part>/<stem>.txt`, by snippet name.
PUBLISHED = {
    path.relative_to(ROOT / "published").with_suffix("").as_posix(): path
    for path in sorted((ROOT / "published").rglob("*.txt"))
}
MANIFEST = manifest.read(ROOT)
# A published output with lines that depend on weight values, and one without any.
WEIGHT_DEPENDENT = next(name for name in sorted(PUBLISHED) if MANIFEST[name].article.weight_dependent_lines)
WEIGHT_INDEPENDENT = next(name for name in sorted(PUBLISHED) if not MANIFEST[name].article.weight_dependent_lines)


def options_of(root: Path) -> Options:
    """The record step's options as the configuration of `root` gives them, checked."""
    return Project.load(root).options


def stale(root: Path) -> list:
    """Every way the recorded outputs of the project at `root` disagree with its snippets and configuration."""
    return staleness.stale(Project.load(root))


# The output the article states in a sentence rather than printing it.
IN_PROSE = "token-embeddings/wte_is_parameter"
PAGES = {part.name: part.page for part in Project.load(ROOT).parts()}
TRIALS = ["True\n[0.015366, -0.028914]\n", "True\n[0.512290, 0.020567]\n"]


def test_form_keeps_text_and_decimals_but_not_digits() -> None:
    assert form("[0.052651, -0.022184,") == form("[-0.138050, 0.143493,") == "[<6>, <6>,"
    assert form("torch.Size([1, 5])") != form("torch.Size([1, 5, 768])")
    assert form("0.05") != form("0.050")


def test_weight_independent_lines_must_be_equal() -> None:
    with pytest.raises(RecorderError, match=r"published/x.txt line 1 is 'False'.*does not depend on weight"):
        check("x", "False\n[0.052651, 0.010756]\n", TRIALS, label="published/x.txt")


def test_weight_dependent_lines_must_have_the_same_form() -> None:
    with pytest.raises(RecorderError, match=r"line 2 .* does not have the form"):
        check("x", "True\n[0.05, 0.01]\n", TRIALS, label="published/x.txt")


def test_line_counts_must_agree() -> None:
    with pytest.raises(RecorderError, match=r"has 1 lines but snippets/x\.py prints 2"):
        check("x", "True\n", TRIALS, label="published/x.txt")


def test_matching_text_is_accepted_line_by_line() -> None:
    assert check("x", "True\n[0.052651, -0.010756]\n", TRIALS, label="published/x.txt") == (1, 1)


def test_what_the_article_states_is_read_from_the_plugin_options_in_mkdocs_yml(project: Path) -> None:
    options = options_of(project)
    assert options.published_article == "Understanding GPT-2 Token Embeddings"
    assert options.published_with == {WEIGHT_DEPENDENT: {"revision": REVISION, "transformers": "5.17.0"}}, (
        "only where it states it"
    )
    assert options.published_in_prose == {IN_PROSE: "Both values are True."}
    assert options.article(IN_PROSE) == Statements(
        title="Understanding GPT-2 Token Embeddings", stated={}, prose="Both values are True."
    )
    assert options.article(WEIGHT_DEPENDENT).prose is None, "printed in the article"
    edit(project / "mkdocs.yml", 'transformers: "5.17.0"', "transformers: 5.17")
    with pytest.raises(ProjectError, match=r"^mkdocs.yml: plugin `recorded-outputs`, option `published_with`: .*quote"):
        options_of(project)


@pytest.mark.parametrize("option", ["published_with", "published_in_prose"])
def test_an_option_written_with_no_entries_holds_none(project: Path, option: str) -> None:
    config = (project / "mkdocs.yml").read_text(encoding="utf-8")
    written = re.search(rf"(?m)^      {option}:\n(?:        .*\n)+", config)
    assert written, f"mkdocs.yml lists no {option}"
    (project / "mkdocs.yml").write_text(config.replace(written[0], f"      {option}:\n"), encoding="utf-8")
    options = options_of(project)
    assert getattr(options, option) == {}
    assert options.article(IN_PROSE).title == "Understanding GPT-2 Token Embeddings"


def test_a_sentence_in_prose_must_be_text(project: Path) -> None:
    edit(project / "mkdocs.yml", '"Both values are True."', "true")
    with pytest.raises(
        ProjectError, match=r"option `published_in_prose`: expected a mapping of outputs to the sentence"
    ):
        options_of(project)


@pytest.mark.parametrize(("option", "named"), [("published_with", WEIGHT_DEPENDENT), ("published_in_prose", IN_PROSE)])
def test_a_statement_about_an_output_the_article_did_not_publish_is_refused(
    run, project: Path, option: str, named: str
) -> None:
    """Refused where the configuration is read, so the state, every build and the record step refuse it alike."""
    unpublished = next(name for name in sorted(discover(ROOT)) if name not in PUBLISHED)
    edit(project / "mkdocs.yml", f"{named}:", f"{unpublished}:")
    refused = rf"`{option}`: names {unpublished}, but published/{unpublished}.txt does not exist"
    with pytest.raises(RecorderError, match=refused):
        options_of(project)
    checked = run("python", "-m", "recorder", "check", cwd=project)
    assert checked.returncode == 1 and re.search(refused, checked.stderr), checked.stderr
    assert "Traceback" not in checked.stderr


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        ('transformers: "5.17.0"', 'transformers: "5.18.0"', "what the article states of its run"),
        ('"Both values are True."', '"Both are True."', "the sentence the article states it in"),
        ("published_article: Understanding", "published_article: Reading", "the article's title"),
    ],
)
def test_an_output_whose_statements_changed_in_mkdocs_yml_is_stale_until_attached_again(
    run, project: Path, old: str, new: str, what: str
) -> None:
    edit(project / "mkdocs.yml", old, new)
    found = stale(project)
    named = {WEIGHT_DEPENDENT} if "transformers" in old else {IN_PROSE} if "Both" in old else set(PUBLISHED)
    assert {problem.snippet for problem in found} == named
    assert all(
        f"mkdocs.yml says something else of this output, taken from the article, than its record does ({what}). "
        "Run `make record PUBLISHED=1` to attach it again" in problem.message
        for problem in found
    ), found
    checked = run("python", "-m", "recorder", "check", cwd=project)
    assert checked.returncode == 1 and found[0].message in checked.stderr


def test_the_article_states_the_pinned_revision_and_release_where_its_output_s_page_says_it_does() -> None:
    """The note on the output's page says the article's revision and release are the ones pinned here."""
    stated = options_of(ROOT).published_with
    pinned = next(
        line.partition("==")[2]
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.startswith("transformers==")
    )
    assert stated[WEIGHT_DEPENDENT] == {"revision": REVISION, "transformers": pinned.split()[0]}
    page = (ROOT / "docs" / PAGES[WEIGHT_DEPENDENT.partition("/")[0]]).read_text(encoding="utf-8")
    assert (
        "The article states that these values were read from GPT-2 at revision {{ value pinned_revision }}, "
        "with Transformers {{ value pinned_transformers }}"
    ) in page


def test_each_attached_output_s_counts_are_what_the_stand_ins_print(stand_in_outputs: list[dict[str, str]]) -> None:
    """The record's counts, from which its provenance says "every line reproduced" or "form only", are those of
    the check against the stand-ins as they print now."""
    records = manifest.read(ROOT)
    for name in PUBLISHED:
        counts = check(
            name, PUBLISHED[name].read_text(encoding="utf-8"), [run[name] for run in stand_in_outputs], label=name
        )
        published = records[name].article
        assert published is not None and counts == (published.exact_lines, published.weight_dependent_lines), name
    assert records[WEIGHT_DEPENDENT].article.exact_lines == 0, "the row has no weight-independent line"


def test_each_published_text_is_named_after_a_snippet_of_its_part_that_loads_weights() -> None:
    """`published/<part>/<stem>.txt`: the article published only what the real weights print."""
    snippets = discover(ROOT)
    assert PUBLISHED and WEIGHT_DEPENDENT in PUBLISHED
    for name in PUBLISHED:
        assert name.count("/") == 1, f"published/{name}.txt is not in a part's folder"
        assert name in snippets, f"published/{name}.txt names no snippet: snippets/{name}.py does not exist"
        assert snippets[name].runs_on is Origin.WEIGHTS, f"snippets/{name}.py loads no weights; run it instead"


@pytest.fixture
def record_published(
    project: Path,
    stand_in_caches: tuple[Path, Path],
    stand_in_outputs: list[dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Callable[..., tuple[int, str, str]]:
    """`python -m recorder record --published ...` in the project copy, run in this process with
    the session's stand-in checkpoints and what the snippets printed against them: the copy's
    snippets print the same (their code is unchanged, or changed in a comment only)."""

    def session_trials(root: Path, names: list[str], hub_caches: list[Path], timeout: float) -> list[dict[str, str]]:
        assert hub_caches == list(stand_in_caches)
        return [{name: outputs[name] for name in names} for outputs in stand_in_outputs]

    monkeypatch.setattr(published_module, "stand_in_checkpoints", lambda report: nullcontext(list(stand_in_caches)))
    monkeypatch.setattr(published_module, "trial_outputs", session_trials)

    def record(*flags: str) -> tuple[int, str, str]:
        status = main(["--root", str(project), "record", "--published", *flags])
        printed = capsys.readouterr()
        return status, printed.out, printed.err

    return record


@pytest.mark.slow
def test_attach_after_a_snippet_edit_keeps_the_published_text(run, project: Path, record_published) -> None:
    snippet = project / "snippets" / f"{WEIGHT_DEPENDENT}.py"
    snippet.write_text(snippet.read_text() + "\n# The row is 768 values long; the article shows eight.\n")
    assert run("python", "-m", "recorder", "check", cwd=project).returncode == 1

    status, printed, errors = record_published()

    assert status == 0, errors
    counts = MANIFEST[WEIGHT_DEPENDENT].article
    assert (
        f"snippets/{WEIGHT_DEPENDENT}.py: {counted(counts.exact_lines, 'line')} equal, "
        f"{counted(counts.weight_dependent_lines, 'weight-dependent line')} of the same form"
    ) in printed
    outputs = project / "outputs"
    assert (outputs / f"{WEIGHT_DEPENDENT}.txt").read_bytes() == PUBLISHED[WEIGHT_DEPENDENT].read_bytes()
    entry = manifest.read(project)[WEIGHT_DEPENDENT]
    assert entry.origin is Origin.ARTICLE_PRINTED and entry.model is not None and entry.model.files == {}
    assert entry.article is not None and entry.article.text == f"published/{WEIGHT_DEPENDENT}.txt"
    assert entry.article.weight_dependent_lines == counts.weight_dependent_lines
    assert run("python", "-m", "recorder", "check", cwd=project).returncode == 0


@pytest.mark.slow
def test_attach_again_says_what_it_leaves_and_changes_no_byte(project: Path, record_published) -> None:
    """`make record PUBLISHED=1 FORCE=1` on recorded outputs: the same texts, the same records, the same manifest."""
    before = snapshot(project / "outputs")

    status, printed, errors = record_published("--force")

    assert status == 0, errors
    others = [name for name in manifest.read(project) if name not in PUBLISHED]
    assert (
        f"left {len(others)} snippets as recorded, which need no GPT-2 weights and whose outputs are never taken "
        f"from the article ({', '.join(f'snippets/{name}.py' for name in others)}): `make record` runs them."
    ) in printed
    assert f"attached {len(PUBLISHED)} published outputs ({len(PUBLISHED)} of them as recorded already" in printed
    assert snapshot(project / "outputs") == before


@pytest.mark.slow
def test_attach_records_the_sentence_of_an_output_the_article_states_in_prose(project: Path, record_published) -> None:
    edit(project / "mkdocs.yml", '"Both values are True."', '"Both are True."')

    status, _, errors = record_published()

    assert status == 0, errors
    entries = manifest.read(project)
    assert entries[IN_PROSE].article.prose == "Both are True."
    assert [name for name in PUBLISHED if entries[name].article.prose] == [IN_PROSE]
    assert stale(project) == []


@pytest.mark.slow
def test_a_wrong_published_text_is_refused_and_nothing_changes(project: Path, record_published) -> None:
    name = WEIGHT_INDEPENDENT
    text = (project / "published" / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    wrong = text[-1] + " (edited)"
    (project / "published" / f"{name}.txt").write_text("\n".join([*text[:-1], wrong]) + "\n")
    before = snapshot(project / "outputs")

    status, _, errors = record_published("--force")

    assert status == 1
    assert f"published/{name}.txt line {len(text)} is {wrong!r}, but snippets/{name}.py prints {text[-1]!r}" in errors
    assert "Fix the snippet" in errors
    assert snapshot(project / "outputs") == before


def test_a_new_model_snippet_without_a_published_text_needs_a_real_run(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused before any stand-in is made, naming where its published text would be."""
    part = WEIGHT_DEPENDENT.split("/")[0]
    (project / "snippets" / part / "new_model.py").write_text(
        "from transformers import AutoModelForCausalLM\n\n"
        f"model = AutoModelForCausalLM.from_pretrained('gpt2', revision='{REVISION}')\nprint(model.config.n_embd)\n"
    )
    monkeypatch.setattr(published_module, "stand_in_checkpoints", pytest.fail)
    before = snapshot(project / "outputs")

    assert main(["--root", str(project), "record", "--published"]) == 1

    errors = capsys.readouterr().err
    assert (
        f"snippets/{part}/new_model.py needs GPT-2's weights and published/{part}/new_model.txt does not exist: "
        "only outputs the article published can be attached. Record it for real"
    ) in errors
    assert snapshot(project / "outputs") == before

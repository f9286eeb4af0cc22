"""One state, one check: `recorder check`, MkDocs and Zensical, cold or with Zensical's cache warm, refuse exactly the
same trees, each drift for its own reason alone, with the project's message and no traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from recorder.check import state
from recorder.project.config import Part, Project
from recorder.project.directives import Example, Figure, parse
from recorder.project.values import templates
from support import ROOT, ZENSICAL, append, build, copy_project, edit, offline_env, run_in, zensical_build

PROJECT = Project.load(ROOT)
PARTS = PROJECT.parts()


def check(project: Path) -> subprocess.CompletedProcess[str]:
    return run_in(project, "python", "-m", "recorder", "check")


def _a_figure() -> str:
    """A snippet a page shows as a figure: its output is in no notebook, so a hand edit of it is one drift."""
    for part in PARTS:
        for directive in parse(PROJECT.page(part.page)[0]):
            if isinstance(directive, Figure):
                return directive.name
    raise AssertionError("no page shows a figure")


def _an_open_field() -> tuple[str, str, str]:
    """A template line with a `{}`, where a page quotes nothing: (its part, the line, the line with a value named)."""
    for part in PARTS:
        for template in templates(ROOT, part.name):
            for line in template.lines:
                if "{}" in line:
                    return part.name, line, line.replace("{}", "{never_quoted}", 1)
    raise AssertionError("no template leaves a field open")


def _change_snippet(project: Path) -> list[str]:
    name = next(name for name in project.joinpath("outputs", PARTS[0].name).glob("*.txt")).stem
    append(project / "snippets" / PARTS[0].name / f"{name}.py", "\n# edited\n")
    return [f"snippets/{PARTS[0].name}/{name}.py", "changed since its output was recorded", "make record"]


def _edit_output(project: Path) -> list[str]:
    figure = _a_figure()
    append(project / "outputs" / f"{figure}.txt", "\n")
    return [f"outputs/{figure}.txt differs from what `make record` wrote", "git checkout"]


def _declare_unquoted_value(project: Path) -> list[str]:
    part, line, named = _an_open_field()
    values = project / "snippets" / part / "values.yml"
    values.write_text(values.read_text(encoding="utf-8").replace(line, named, 1), encoding="utf-8")
    return [f"value `{part}/never_quoted` is declared in snippets/{part}/values.yml but no page quotes it"]


def _quote_a_value_in_a_tag(project: Path) -> list[str]:
    """A value that only the conversion finds lost: Markdown leaves an HTML tag's attributes as written."""
    part = PARTS[-1]
    append(project / "docs" / part.page, '\nThe model: <abbr title="{{ value pinned_model }}">it</abbr>.\n')
    return [f"docs/{part.page}", "`{{ value pinned_model }}` stands", "Keep values out of HTML blocks, HTML tags"]


def _restate_a_published_output(project: Path) -> list[str]:
    """What the configuration says of an output taken from the article: it is recorded with the output."""
    name, prose = next(iter(PROJECT.options.published_in_prose.items()))
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(f'"{prose}"', '"Another sentence."', 1), "utf-8")
    return [f"snippets/{name}.py: mkdocs.yml says something else of this output", "make record PUBLISHED=1"]


DRIFTS: dict[str, Callable[[Path], list[str]]] = {
    "a snippet": _change_snippet,
    "an output": _edit_output,
    "values.yml": _declare_unquoted_value,
    "a page (a value in an HTML tag)": _quote_a_value_in_a_tag,
    "mkdocs.yml (what it says of a published output)": _restate_a_published_output,
}


@pytest.mark.slow
@pytest.mark.parametrize("drift", DRIFTS)
def test_each_drift_fails_check_and_both_engines_cold_and_warm_for_its_own_reason(tmp_path: Path, drift: str) -> None:
    project = copy_project(tmp_path / "project")
    warmed = zensical_build(project)
    assert warmed.returncode == 0, warmed.stderr
    said = DRIFTS[drift](project)

    problems = state.current(Project.load(project)).problems
    assert len(problems) == 1, f"{drift} fails for more than its own reason: {problems}"
    assert all(part in problems[0] for part in said), problems[0]

    checked, mkdocs = check(project), build(project)
    warm, cold = zensical_build(project), zensical_build(project, cold=True)
    for who, code, printed in (
        ("recorder check", checked.returncode, checked.stderr),
        ("mkdocs build", mkdocs.returncode, mkdocs.stderr),
        ("zensical build, cache warm", warm.returncode, warm.stdout + warm.stderr),
        ("zensical build, cold", cold.returncode, cold.stdout + cold.stderr),
    ):
        assert code != 0, f"{who} passed {drift}"
        assert problems[0] in printed, f"{who} did not give the project's message:\n{printed}"
        assert "Traceback" not in printed, f"{who} printed a traceback:\n{printed}"


def test_an_include_the_page_writes_of_a_missing_file_is_named_by_the_state_without_a_traceback(tmp_path: Path) -> None:
    """pymdownx.snippets raises its own error while a page is converted: the state reports it as the page's problem."""
    project = copy_project(tmp_path / "project")
    part = PARTS[-1]
    append(project / "docs" / part.page, '\n```python\n--8<-- "nowhere/missing.py"\n```\n')
    problems = state.current(Project.load(project)).problems
    assert len(problems) == 1 and problems[0].startswith(f"docs/{part.page}: Snippet at path 'nowhere/missing.py'")
    checked = check(project)
    assert checked.returncode == 1 and problems[0] in checked.stderr and "Traceback" not in checked.stderr


@pytest.mark.slow
def test_an_undone_drift_builds_again_warm(tmp_path: Path) -> None:
    """The state is kept by content: the same files give the same state, which a warm build takes as it is."""
    project = copy_project(tmp_path / "project")
    snippet = project / "snippets" / PARTS[0].name / "vocabulary_size.py"
    snippet = snippet if snippet.exists() else next((project / "snippets" / PARTS[0].name).glob("*.py"))
    original = snippet.read_bytes()
    assert zensical_build(project).returncode == 0
    append(snippet, "\n# edited\n")
    assert zensical_build(project).returncode != 0
    snippet.write_bytes(original)
    again = zensical_build(project)
    assert again.returncode == 0, again.stdout + again.stderr


@pytest.mark.slow
def test_another_configuration_file_and_docs_folder_built_from_another_folder(tmp_path: Path) -> None:
    """`mkdocs build -f OTHER.yml`, with no mkdocs.yml beside it and another docs folder, run from elsewhere: the
    state is the one of the file given, and a part's Colab link opens its notebook in that folder."""
    project = copy_project(tmp_path / "project")
    (project / "docs").rename(project / "pages")
    config = (project / "mkdocs.yml").read_text(encoding="utf-8")
    (project / "site.yml").write_text(f"docs_dir: pages\n{config}", encoding="utf-8")
    (project / "mkdocs.yml").unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    commit = "0123456789abcdef" * 2 + "01234567"
    on_github = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "example/site", "GITHUB_SHA": commit}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(project / "site.yml")],
        cwd=elsewhere,
        env=offline_env(**on_github),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (project / "pages" / "generated" / "state.json").is_file(), "the state of the file given"
    assert (project / "site" / "generated" / "outputs" / "manifest.json").is_file()
    page = (project / "site" / PARTS[0].name / "index.html").read_text(encoding="utf-8")
    assert "recorded-output" in page and "{{" not in page
    colab = f"https://colab.research.google.com/github/example/site/blob/{commit}/pages/{PARTS[0].notebook}"
    assert f'href="{colab}"' in page

    append(project / "pages" / PARTS[0].page, f"\n{{{{ value {PARTS[0].name}/unknown_here }}}}\n")
    refused = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(project / "site.yml")],
        cwd=elsewhere,
        env=offline_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert refused.returncode != 0
    said = refused.stdout + refused.stderr
    assert f"pages/{PARTS[0].page}: unknown value" in said and "Traceback" not in said, said


@pytest.mark.slow
def test_zensical_run_from_another_folder_says_why_it_cannot(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_in(elsewhere, ZENSICAL, "build", "--strict", "-f", str(project / "mkdocs.yml"))
    printed = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"run it from {project.resolve()}" in printed and "Traceback" not in printed, printed


def _templated_example() -> tuple[Part, Example]:
    """A part's example, shown with a section, whose output a template of the part's values.yml reads."""
    for part in PARTS:
        read = {template.output for template in templates(ROOT, part.name)}
        for directive in parse(PROJECT.page(part.page)[0]):
            if isinstance(directive, Example) and directive.section and directive.name.partition("/")[2] in read:
                return part, directive
    raise AssertionError("no page shows, with a section, an example whose output a template reads")


def _rename(project: Path, part: Part, example: Example) -> list[str]:
    old = project / "snippets" / example.file
    old.rename(old.with_name("renamed_here.py"))
    return [
        f"snippets/{part.name}/values.yml: `{old.stem}` reads the output of snippets/{example.file}, which does not "
        "exist. Rename the key after the snippet whose output the template reads",
        f"docs/{part.page}: snippets/{example.file} does not exist. Fix the directive's file name",
        f"snippets/{example.file} was renamed snippets/{part.name}/renamed_here.py, and its output is recorded under "
        "its old name. Run `make record`, which records it under the new name and drops the old output.",
        f"docs/{part.notebook} cannot be regenerated while the code or outputs docs/{part.page} shows cannot be "
        "rendered: once they can, run `make record`",
    ]


def _delete(project: Path, part: Part, example: Example) -> list[str]:
    (project / "snippets" / example.file).unlink()
    return [
        f"snippets/{part.name}/values.yml: `{Path(example.file).stem}` reads the output of snippets/{example.file}, "
        "which does not exist. Rename the key after the snippet whose output the template reads (its file's name "
        "without .py), or remove the template",
        f"docs/{part.page}: snippets/{example.file} does not exist. Fix the directive's file name, or remove the "
        "directive with its snippet.",
        f"outputs/manifest.json records `{example.name}`, but snippets/{example.file} does not exist. Run "
        "`make record` to drop its output.",
        f"docs/{part.notebook} cannot be regenerated while",
    ]


def _move_section(project: Path, part: Part, example: Example) -> list[str]:
    snippet = project / "snippets" / example.file
    for edge in ("start", "end"):
        edit(snippet, f"[{edge}:{example.section}]", f"[{edge}:moved_here]")
    return [
        f"docs/{part.page}: snippets/{example.file} has no `# --8<-- [start:{example.section}]` marker. Mark the "
        f"lines the page shows with [start:{example.section}] and [end:{example.section}], or fix the section name.",
        f"snippets/{example.file} changed since its output was recorded. Run `make record`",
        f"docs/{part.notebook} cannot be regenerated while",
    ]


BREAKS: dict[str, Callable[[Path, Part, Example], list[str]]] = {
    "a renamed snippet": _rename,
    "a deleted snippet": _delete,
    "a renamed section": _move_section,
}


@pytest.mark.parametrize("change", BREAKS)
def test_one_check_names_everything_a_change_breaks_each_once_with_its_fix(
    project: Path, change: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The values template, the output, the directive and the notebook, in one round: not one a run."""
    from recorder.__main__ import main

    part, example = _templated_example()
    said = BREAKS[change](project, part, example)
    assert main(["--root", str(project), "check"]) == 1
    printed = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("notice: ")]
    assert len(printed) == len(said), "\n".join(printed)
    for line, expected in zip(printed, said, strict=True):
        assert line.startswith(expected), f"{line!r} does not say {expected!r}"


def test_the_state_is_kept_by_content_not_by_file_times(project: Path) -> None:
    before = state.current(Project.load(project))
    for path in state.inputs(Project.load(project)):
        path.touch()
    assert state.current(Project.load(project)) == before
    append(project / "docs" / PARTS[0].page, "\nOne more sentence.\n")
    after = state.current(Project.load(project))
    assert after.digest != before.digest and not after.problems


def test_the_code_that_judges_and_words_the_state_is_an_input_of_it() -> None:
    """An edit of the recorder (a rule of staleness, the wording of a page) is a new state, not the kept one."""
    code = {path for path in (ROOT / "recorder").rglob("*.py") if "__pycache__" not in path.parts}
    assert {ROOT / "recorder" / "project" / "staleness.py", ROOT / "recorder" / "render" / "page.py"} <= code
    assert code <= set(state.inputs(PROJECT))


def test_a_kept_state_that_is_damaged_is_worked_out_anew(project: Path) -> None:
    loaded = Project.load(project)
    digest = state.current(loaded).digest
    kept = state.generated_dir(loaded) / state.STATE_FILE
    kept.write_text("{not json", encoding="utf-8")
    assert state.current(loaded).digest == digest
    assert re.search(r'"digest": "[0-9a-f]{64}"', kept.read_text(encoding="utf-8"))


# What a page says of outputs that were not run against GPT-2 (as the provenance line, the part's origins and the
# notebooks word it), and what they said before those words were derived from the records.
NOT_RUN = re.compile(
    r"did not run (?:its|their) snippets? against GPT-2|not run against GPT-2 by the (?:build|record step)|"
    r"not loaded by the record step|"
    r"machines that build this site cannot|nothing here could recompute|not re-run by the build",
    re.IGNORECASE,
)


@pytest.mark.slow
def test_a_build_whose_model_outputs_were_executed_says_so_and_nowhere_that_they_could_not_be(tmp_path: Path) -> None:
    """As the publish workflow records them: every published output executed against the pinned weights."""
    from dataclasses import replace

    from recorder.project import manifest
    from recorder.project.gpt2 import FILE_SHA256, MODEL_ID, REVISION, WEIGHTS_FILE
    from recorder.project.manifest import Model, Origin
    from recorder.project.snippets import discover, versions_for
    from recorder.record.step import record

    project = copy_project(tmp_path / "project")
    entries, snippets = manifest.read(project), discover(project)
    published = [name for name, entry in entries.items() if not entry.origin.executed]
    assert published, "no published output: nothing to turn into an executed one"
    for name in published:
        entries[name] = replace(
            entries[name],
            origin=Origin.WEIGHTS,
            article=None,
            model=Model(MODEL_ID, REVISION, {WEIGHTS_FILE: FILE_SHA256[WEIGHTS_FILE]}),
            versions={"python": entries[name].versions.get("python"), **versions_for(snippets[name])},
        )
    (project / "outputs" / "manifest.json").write_bytes(manifest.to_bytes(entries))
    record(project, report=lambda line: None)  # nothing to run: it writes what follows, the notebooks
    built = build(project)
    assert built.returncode == 0, built.stderr

    texts = {
        page.relative_to(project / "site").as_posix(): page.read_text(encoding="utf-8")
        for page in (project / "site").rglob("*.html")
    }
    texts |= {
        notebook.name: notebook.read_text(encoding="utf-8")
        for notebook in (project / "docs" / "notebooks").glob("*.ipynb")
    }
    said = {where: found.group(0) for where, text in texts.items() if (found := NOT_RUN.search(text))}
    assert not said, f"pages that say the model outputs were not run: {said}"
    page = texts["provenance/index.html"]  # where the origins of every output are counted
    assert (
        "ran against GPT-2&#x27;s weights, their sha256 verified" in page
        or "ran against GPT-2's weights, their sha256 verified" in page
    )

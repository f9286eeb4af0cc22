"""The state every check and build reads: worked out once from content, kept by content, from the configuration file
an engine reads, and one round of findings for a change (the drifts themselves: tests/test_drift_guard.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from recorder.check import state
from recorder.engines.config import TAKES_A_VALUE, configuration_file
from recorder.project.config import Part, Project
from recorder.project.directives import Example, parse
from recorder.project.values import templates
from support import ROOT, ZENSICAL, append, build, copy_project, edit, offline_env, run_in

PROJECT = Project.load(ROOT)
PARTS = PROJECT.parts()


def check(project: Path) -> subprocess.CompletedProcess[str]:
    return run_in(project, "python", "-m", "recorder", "check")


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["build", "--strict"], "mkdocs.yml"),
        (["build", "-f", "other.yml", "--strict"], "other.yml"),
        (["serve", "-a", "127.0.0.1:8000", "--config-file", "other.yml"], "other.yml"),
        (["build", "--config-file=other.yml"], "other.yml"),
        (["build", "-fother.yml"], "other.yml"),
        (["build", "-sf", "other.yml"], "other.yml"),  # short options clustered, as both engines take them
        (["build", "-cqf", "other.yml"], "other.yml"),
        (["serve", "-oa", "127.0.0.1:8000", "-sfother.yml"], "other.yml"),
        (["gh-deploy", "-cm", "a message", "-f", "other.yml"], "other.yml"),  # `-m` takes the next argument
        (["gh-deploy", "-sb", "pages", "-f", "other.yml"], "other.yml"),
        (["build", "-d", "-f", "-f", "other.yml"], "other.yml"),  # a folder named `-f`, as click reads it
        (["build", "--site-dir", "-f", "--config-file=other.yml"], "other.yml"),
        (["build", "--", "-f", "other.yml"], "mkdocs.yml"),  # arguments, not options
        (["build", "-f"], "mkdocs.yml"),  # a command line the engine itself refuses, naming its own usage
        (["build", "-f", "--strict"], "--strict"),  # as click reads it: the engine then finds no such file
    ],
)
def test_the_configuration_file_is_the_one_the_engine_s_command_line_names(argv: list[str], named: str) -> None:
    assert configuration_file(argv) == (Path.cwd() / named).resolve()


# The options of an engine's commands that take a value, as click declares them. Read in a child: a process that has
# loaded Zensical's package takes itself for Zensical (recorder/engines/config.py).
DECLARED_OPTIONS = """
import click, importlib, json, sys
commands = importlib.import_module(sys.argv[1]).cli.commands.values()
print(json.dumps(sorted({
    name
    for command in commands
    for option in command.params
    if isinstance(option, click.Option) and not option.is_flag and not option.count
    for name in option.opts
})))
"""


@pytest.mark.parametrize("engine", ["mkdocs.__main__", "zensical.main"])
def test_each_option_of_the_engine_s_commands_that_takes_a_value_is_read_as_one(engine: str) -> None:
    """The options of the pinned engine's commands as click declares them: the command line is read as it reads it."""
    result = subprocess.run(
        [sys.executable, "-c", DECLARED_OPTIONS, engine], capture_output=True, text=True, check=True, env=offline_env()
    )
    declared = set(json.loads(result.stdout))
    assert "-f" in declared  # the option that names the configuration file, read from the engine's own command
    assert declared <= TAKES_A_VALUE, f"read as flags: {sorted(declared - TAKES_A_VALUE)}"


@pytest.mark.slow
def test_another_configuration_file_and_docs_folder_built_from_another_folder(tmp_path: Path) -> None:
    """`mkdocs build -f OTHER.yml`, with no mkdocs.yml beside it and another docs folder, run from elsewhere: the
    state is the one of the file given, and a part's Colab link opens its notebook in that folder. Then `-sf`."""
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
    refused = subprocess.run(  # its short options clustered, as a reader may type them
        [sys.executable, "-m", "mkdocs", "build", "-sf", str(project / "site.yml")],
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


def test_another_release_of_an_installed_library_is_another_state(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library the snippets run with is an input too: another release of it is worked out anew, not the kept
    state (which may say the outputs are up to date when they were recorded with the other release)."""
    loaded = Project.load(project)
    before = state.current(loaded)
    folder = tmp_path / "site-packages"
    (folder / "transformers-99.0.0.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(folder))
    assert state.digest(loaded) != before.digest
    assert state.current(loaded).digest != before.digest


def test_a_copy_missing_from_the_generated_folder_is_written_again(project: Path) -> None:
    """The kept state holds only while every copy it wrote is there: a snippet's copy or the tokenizer's vocab.json
    deleted from docs/generated/ is restored by the next check, not left for the site to link to nothing."""
    loaded = Project.load(project)
    kept = state.current(loaded)
    generated = state.generated_dir(loaded)
    gone = [generated / copy for copy in kept.copies if copy.startswith("snippets/") or copy.endswith("vocab.json")]
    assert len(gone) > 1 and any(path.name == "vocab.json" for path in gone)
    for path in gone:
        path.unlink()
    assert state.current(loaded).digest == kept.digest
    assert all(path.is_file() for path in gone)


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

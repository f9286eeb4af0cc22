"""End to end, in a copy of the project: every drift between snippets, outputs and pages fails every check and
build, under both engines, warm and cold, for its own reason, with the project's message."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mkdocs.utils.meta import get_data

from recorder.__main__ import main as command_line
from recorder.check import state
from recorder.project import manifest
from recorder.project.config import Part, Project
from recorder.project.directives import Figure, parse
from recorder.project.manifest import Origin
from recorder.project.snippets import Snippet, discover
from recorder.project.values import templates
from support import ROOT, append, build, copy_project, edit, snapshot, zensical_build

PROJECT = Project.load(ROOT)
PARTS = PROJECT.parts()
SNIPPETS = discover(ROOT)
MANIFEST = manifest.read(ROOT)
Drift = Callable[[Path], object]  # makes a drift in a copy of the project


def first_template(part: Part) -> tuple[str, str, list[str]] | None:
    """The part's first template line that names values: the output it reads ("<part>/<stem>"), the line, and the
    names."""
    for template in templates(ROOT, part.name):
        for line in template.lines:
            if names := [name for name in template.names if f"{{{name}}}" in line]:
                return f"{part.name}/{template.output}", line, names
    return None


def open_field(part: Part) -> tuple[str, str] | None:
    """The part's first template line with a `{}`, where a page quotes nothing: (the part, the line)."""
    for template in templates(ROOT, part.name):
        for line in template.lines:
            if "{}" in line:
                return part.name, line
    return None


def line_of(output: str, line: str) -> int:
    """Where a template line of `output` ("<part>/<stem>") stands in its template, from 1."""
    part, _, stem = output.partition("/")
    template = next(found for found in templates(ROOT, part) if found.output == stem and line in found.lines)
    return template.lines.index(line) + 1


def examples(part: Part) -> list[Snippet]:
    """The part's snippets with a recorded output, in name order."""
    return [snippet for name, snippet in SNIPPETS.items() if snippet.part == part.name and name in MANIFEST]


def shared(part: Part) -> str | None:
    """A module of the part's folder that its snippets import, as a path under snippets/, if any."""
    imported = sorted(
        {
            path.relative_to(ROOT / "snippets").as_posix()
            for snippet in examples(part)
            for path in snippet.sources[1:]
            if path.parent.name == part.name
        }
    )
    return imported[0] if imported else None


def a_figure() -> str:
    """A snippet a page shows as a figure: its output is in no notebook, so a hand edit of it is one drift."""
    for part in PARTS:
        for directive in parse(PROJECT.page(part.page)[0]):
            if isinstance(directive, Figure):
                return directive.name
    raise AssertionError("no page shows a figure")


def figure_writer_users() -> list[str]:
    """The snippets that import the figure writer every part shares."""
    users = sorted(name for name, snippet in SNIPPETS.items() if ROOT / "snippets" / "svg_figure.py" in snippet.sources)
    assert len({name.split("/")[0] for name in users}) > 1, "the figure writer is no longer shared by several parts"
    return users


def drifts() -> dict[str, tuple[Drift, list[str], int]]:
    """Every kind of drift between the snippets, their outputs and the pages: how to make it in a copy of the
    project, what its problem says, and how many problems it makes (one each, but for a shared module's users)."""
    part = PARTS[0]
    file = f"{examples(part)[0].name}.py"  # as a page names it
    page = f"docs/{part.page}"
    module = next(found for part in PARTS if (found := shared(part)))
    output, line, names = next(found for part in PARTS if (found := first_template(part)))
    open_part, open_line = next(found for part in PARTS if (found := open_field(part)))
    values = f"snippets/{output.partition('/')[0]}/values.yml"
    users, figure = figure_writer_users(), a_figure()
    prose, sentence = next(iter(PROJECT.options.published_in_prose.items()))
    return {
        "a changed snippet": (
            lambda project: append(project / "snippets" / file, "\n# edited\n"),
            [f"snippets/{file}", "changed since its output was recorded", "make record"],
            1,
        ),
        "a changed shared module": (
            lambda project: append(project / "snippets" / module, "\n# edited\n"),
            [f"snippets/{module} changed since its output was recorded", "make record"],
            sum(ROOT / "snippets" / module in found.sources for found in SNIPPETS.values()),
        ),
        "a changed module every part shares": (
            lambda project: append(project / "snippets" / "svg_figure.py", "\n# edited\n"),
            [f"snippets/{name}.py: snippets/svg_figure.py changed since its output was recorded" for name in users],
            len(users),
        ),
        "a hand-edited output": (
            lambda project: append(project / "outputs" / f"{figure}.txt", "\n"),
            [f"outputs/{figure}.txt differs from what `make record` wrote", "git checkout"],
            1,
        ),
        "an output no snippet owns": (
            lambda project: (project / "outputs" / part.name / "gone.txt").write_text("left behind\n"),
            [f"outputs/{part.name}/gone.txt belongs to no snippet", "Run `make record`, which removes it"],
            1,
        ),
        "an example without a recorded output": (
            lambda project: append(project / page, f"\n{{{{ example {module} }}}}\n"),
            [f"snippets/{module} has no recorded output", "make record"],
            1,
        ),
        "an unknown value": (
            lambda project: append(project / page, f"\nIt is {{{{ value {part.name}/vocabulary }}}}.\n"),
            [page, f"unknown value `{part.name}/vocabulary`", f"Declare it in snippets/{part.name}/values.yml"],
            1,
        ),
        "an unknown value in a figure caption": (
            lambda project: append(
                project / page, f'\n{{{{ figure {file} "Rows {{{{ value {part.name}/we_id }}}}." }}}}\n'
            ),
            [page, f"unknown value `{part.name}/we_id`", f"Declare it in snippets/{part.name}/values.yml"],
            1,
        ),
        "an unknown directive": (
            lambda project: append(project / page, "\n{{ chart lookup.svg }}\n"),
            [
                page,
                "unknown directive",
                "Use code, example, figure, provenance, compatibility, parts, origins or value",
            ],
            1,
        ),
        "a block directive in a sentence": (
            lambda project: append(project / page, f"\nSee {{{{ example {file} }}}} here.\n"),
            [page, "`{{ example ... }}` must stand alone on its own line"],
            1,
        ),
        "a block directive followed by words": (
            lambda project: append(project / page, f"\n{{{{ example {file} }}}} and more\n"),
            [page, "`{{ example ... }}` must stand alone on its own line"],
            1,
        ),
        "a page including a missing file": (
            lambda project: append(project / page, f"\n{{{{ code {part.name}/row_lookups.py:lookup }}}}\n"),
            [page, f"snippets/{part.name}/row_lookups.py does not exist", "Fix the directive's file name"],
            1,
        ),
        "a page including a missing section": (
            lambda project: append(project / page, f"\n{{{{ example {file}:lookups }}}}\n"),
            [page, f"snippets/{file} has no `# --8<-- [start:lookups]` marker", "or fix the section name"],
            1,
        ),
        "a page's own include of a missing file": (
            lambda project: append(project / page, '\n```python\n--8<-- "nowhere/missing.py"\n```\n'),
            [f"{page}: Snippet at path 'nowhere/missing.py'"],
            1,
        ),
        "a value in an HTML tag": (
            lambda project: append(project / page, '\nThe model: <abbr title="{{ value pinned_model }}">it</abbr>.\n'),
            [page, "`{{ value pinned_model }}` stands", "Keep values out of HTML blocks, HTML tags"],
            1,
        ),
        "a value its output no longer fits": (
            lambda project: edit(project / values, f" {line}\n", f" was {line}\n"),
            [f"value `{names[0]}`", f"line {line_of(output, line)} of outputs/{output}.txt", values],
            1,
        ),
        "a declared value no page quotes": (
            lambda project: edit(
                project / "snippets" / open_part / "values.yml", open_line, open_line.replace("{}", "{never_quoted}", 1)
            ),
            [f"value `{open_part}/never_quoted` is declared in snippets/{open_part}/values.yml but no page quotes it"],
            1,
        ),
        "what mkdocs.yml says of an output taken from the article": (
            lambda project: edit(project / "mkdocs.yml", f'"{sentence}"', '"Another sentence."'),
            [f"snippets/{prose}.py: mkdocs.yml says something else of this output", "make record PUBLISHED=1"],
            1,
        ),
    }


DRIFTS = drifts()


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project, built once by Zensical so that its cache of rendered pages is warm; each drift is made
    in it and undone after."""
    project = copy_project(tmp_path_factory.mktemp("warm") / "project")
    built = zensical_build(project)
    assert built.returncode == 0, built.stdout + built.stderr
    return project


@contextmanager
def undone(project: Path) -> Iterator[None]:
    """Whatever the block changes in the project's inputs is undone after it, and so is the state kept for them in
    docs/generated/: a drift lasts one case, and the tree as it was is known again without being worked out anew."""
    folders = [project / name for name in ("snippets", "outputs", "docs", "published")]
    inputs = [path for folder in folders for path in folder.rglob("*") if path.is_file()] + [project / "mkdocs.yml"]
    before = {path: path.read_bytes() for path in inputs}
    try:
        yield
    finally:
        for path in (path for folder in folders for path in folder.rglob("*") if path.is_file()):
            if path not in before:
                path.unlink()
        for path, data in before.items():
            if path.read_bytes() != data:
                path.write_bytes(data)


@pytest.mark.slow
@pytest.mark.parametrize("drift", DRIFTS)
def test_each_drift_fails_check_mkdocs_and_zensical_warm_and_cold_for_its_own_reason(
    warm: Path, drift: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One table of every drift, each refused by `recorder check`, MkDocs and Zensical with its cache warm and cold,
    with the project's message and no traceback, for its own reason alone, and outputs/ left as it was."""
    make, said, count = DRIFTS[drift]
    with undone(warm):
        make(warm)
        outputs = snapshot(warm / "outputs")
        problems = state.current(Project.load(warm)).problems
        assert len(problems) == count, f"{drift} fails for other reasons than its own: {problems}"
        assert all(any(part in problem for problem in problems) for part in said), problems
        checked = command_line(["--root", str(warm), "check"])
        printed = capsys.readouterr().err
        mkdocs = build(warm)
        hot, cold = zensical_build(warm), zensical_build(warm, cold=True)
        for who, code, shown in (
            ("recorder check", checked, printed),
            ("mkdocs build", mkdocs.returncode, mkdocs.stderr),
            ("zensical build, cache warm", hot.returncode, hot.stdout + hot.stderr),
            ("zensical build, cold", cold.returncode, cold.stdout + cold.stderr),
        ):
            assert code != 0, f"{who} passed {drift}"
            assert all(problem in shown for problem in problems), f"{who} did not give the project's message:\n{shown}"
            assert "Traceback" not in shown, f"{who} printed a traceback:\n{shown}"
        assert snapshot(warm / "outputs") == outputs, f"{drift}: a check changed outputs/"
    again = zensical_build(warm)  # undone: the tree as it was builds again, and its cache is warm for the next case
    assert again.returncode == 0, f"{drift}, undone: {again.stdout + again.stderr}"


def recordable_example() -> tuple[Part, Snippet, str]:
    """An example that records without GPT-2's files, shown on its page with a section, and whose output no value
    reads (a template matches its whole output): (part, snippet, section)."""
    for part in PARTS:
        read = {template.output for template in templates(ROOT, part.name)}
        markdown = get_data((ROOT / "docs" / part.page).read_text(encoding="utf-8"))[0]
        for file, section in re.findall(r"^[ \t]*\{\{ example [-\w]+/(\w+\.py):([-\w]+)", markdown, re.M):
            snippet = SNIPPETS.get(f"{part.name}/{file.removesuffix('.py')}")
            if snippet is not None and snippet.runs_on is Origin.NO_MODEL and snippet.path.stem not in read:
                return part, snippet, section
    pytest.fail("no example of any part records without GPT-2's files")


@pytest.mark.slow
def test_removed_section_is_a_build_error_even_when_recorded(run, project: Path) -> None:
    part, snippet, section = recordable_example()
    path = project / "snippets" / f"{snippet.name}.py"
    edit(path, f"# --8<-- [start:{section}]\n", "")
    edit(path, f"# --8<-- [end:{section}]\n", "")
    assert run("python", "-m", "recorder", "record", cwd=project).returncode == 0
    result = build(project)
    assert result.returncode != 0
    assert f"docs/{part.page}: snippets/{snippet.name}.py has no `# --8<-- [start:{section}]` marker" in result.stderr


@pytest.mark.slow
def test_record_fixes_what_it_can_and_the_build_passes_again(run, project: Path) -> None:
    _, snippet, _ = recordable_example()
    path = project / "snippets" / f"{snippet.name}.py"
    path.write_text(path.read_text(encoding="utf-8") + 'print("one more line")\n', encoding="utf-8")
    before = snapshot(project / "outputs")
    result = run("python", "-m", "recorder", "record", cwd=project)
    assert result.returncode == 0, result.stderr
    assert f"[1/1] snippets/{snippet.name}.py" in result.stdout
    after = snapshot(project / "outputs")
    assert {name for name in after if after[name] != before.get(name)} == {f"{snippet.name}.txt", "manifest.json"}
    assert after[f"{snippet.name}.txt"] == before[f"{snippet.name}.txt"] + b"one more line\n"
    assert build(project).returncode == 0


def test_a_wrong_directive_on_any_page_stops_the_build_before_a_page_renders(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page's error stops the build in moments, naming it, however many pages and notebooks come before it."""
    from mkdocs.commands import build as mkdocs_build

    rendered = []
    populate = mkdocs_build._populate_page
    monkeypatch.setattr(
        mkdocs_build,
        "_populate_page",
        lambda page, *args, **kwargs: rendered.append(page) or populate(page, *args, **kwargs),
    )
    last = sorted(PARTS, key=lambda part: part.page)[-1]  # MkDocs renders the pages in file order
    edit(project / "docs" / last.page, "\n\n", "\n\n{{ chart lookup.svg }}\n\n")
    result = build(project)
    assert result.returncode != 0
    assert f"docs/{last.page}: unknown directive" in result.stderr
    assert rendered == [], f"rendered {[page.file.src_uri for page in rendered]} before stopping"

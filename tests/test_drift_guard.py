"""End to end, in a copy of the project: any drift between snippets and pages fails the build, on every part."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mkdocs.utils.meta import get_data

from recorder.project import manifest
from recorder.project.config import Part, Project
from recorder.project.manifest import Origin
from recorder.project.snippets import Snippet, discover
from recorder.project.values import templates
from support import ROOT, build, edit, snapshot

PARTS = Project.load(ROOT).parts()
SNIPPETS = discover(ROOT)
MANIFEST = manifest.read(ROOT)


def first_template(part: Part) -> tuple[str, str, list[str]] | None:
    """The part's first template line that names values: the output it reads, the line, and the names."""
    for template in templates(ROOT, part.name):
        for line in template.lines:
            if names := [name for name in template.names if f"{{{name}}}" in line]:
                return template.output, line, names
    return None


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


def appended(path: Path, text: str) -> tuple[Path, str, str]:
    """An edit that adds `text` at the end of `path` (a new file holding it, if there is none)."""
    original = path.read_text(encoding="utf-8") if path.exists() else ""
    return path, original, original + text


def drifts(project: Path, part: Part) -> dict[str, tuple[tuple[Path, str, str], list[str]]]:
    """Each drift of `part` that fails the build: (path, its text, its drifted text) and what the error says."""
    snippet = examples(part)[0]
    module = shared(part)
    page = project / "docs" / part.page
    file = f"{snippet.name}.py"  # as a page names it
    cases = {
        "a changed snippet": (
            appended(project / "snippets" / f"{snippet.name}.py", "\n# edited\n"),
            [f"snippets/{snippet.name}.py", "changed since its output was recorded", "make record"],
        ),
        "a hand-edited output": (
            appended(project / "outputs" / f"{snippet.name}.txt", "edited\n"),
            [f"outputs/{snippet.name}.txt differs from what `make record` wrote", "git checkout"],
        ),
        "an output no snippet owns": (
            appended(project / "outputs" / part.name / "gone.txt", "left behind\n"),
            [f"outputs/{part.name}/gone.txt belongs to no snippet", "Run `make record`, which removes it"],
        ),
        "an unknown value": (
            appended(page, f"\nIt is {{{{ value {part.name}/vocabulary }}}}.\n"),
            [
                f"docs/{part.page}",
                f"unknown value `{part.name}/vocabulary`",
                f"Declare it in snippets/{part.name}/values.yml",
            ],
        ),
        "an unknown value in a figure caption": (
            appended(page, f'\n{{{{ figure {file} "Rows {{{{ value {part.name}/we_id }}}}." }}}}\n'),
            [
                f"docs/{part.page}",
                f"unknown value `{part.name}/we_id`",
                f"Declare it in snippets/{part.name}/values.yml",
            ],
        ),
        "an unknown directive": (
            appended(page, "\n{{ chart lookup.svg }}\n"),
            [
                f"docs/{part.page}",
                "unknown directive",
                "Use code, example, figure, provenance, compatibility, parts, origins or value",
            ],
        ),
        "a page including a missing file": (
            appended(page, f"\n{{{{ code {part.name}/row_lookups.py:lookup }}}}\n"),
            [
                f"docs/{part.page}",
                f"snippets/{part.name}/row_lookups.py does not exist",
                "Fix the directive's file name",
            ],
        ),
        "a page including a missing section": (
            appended(page, f"\n{{{{ example {file}:lookups }}}}\n"),
            [
                f"docs/{part.page}",
                f"snippets/{snippet.name}.py has no `# --8<-- [start:lookups]` marker",
                "or fix the section name",
            ],
        ),
    }
    if module is not None:  # a part whose snippets share setup
        cases["a changed shared module"] = (
            appended(project / "snippets" / module, "\n# edited\n"),
            [f"snippets/{module} changed since its output was recorded", "make record"],
        )
        cases["an example without a recorded output"] = (
            appended(page, f"\n{{{{ example {module} }}}}\n"),
            [f"snippets/{module} has no recorded output", "make record"],
        )
    values = project / "snippets" / part.name / "values.yml"
    if (found := first_template(part)) is not None:  # a value read from an output the template no longer fits
        output, line, names = found
        text = values.read_text(encoding="utf-8")
        cases["a value its output no longer fits"] = (
            (values, text, text.replace(f" {line}\n", f" was {line}\n", 1)),
            [
                f"value `{names[0]}`",
                f"line {line_of(part, output, line)} of outputs/{part.name}/{output}.txt",
                f"snippets/{part.name}/values.yml",
            ],
        )
        cases["a declared value no page quotes"] = (
            (values, text, text.replace(f"{{{names[0]}}}", "{never_quoted}", 1)),
            [f"value `{part.name}/never_quoted` is declared in snippets/{part.name}/values.yml but no page quotes it"],
        )
    return cases


def line_of(part: Part, output: str, line: str) -> int:
    """Where a template line stands in its template, from 1."""
    template = next(
        template for template in templates(ROOT, part.name) if template.output == output and line in template.lines
    )
    return template.lines.index(line) + 1


@pytest.mark.slow
def test_each_drift_fails_with_its_own_message_and_passes_once_restored(built_site: Path, project: Path) -> None:
    # `built_site` is the unmodified project, built: the copy builds before any drift.
    cases = {(case, part.name): found for part in PARTS for case, found in drifts(project, part).items()}
    figure_writer = project / "snippets" / "svg_figure.py"
    users = sorted(name for name, snippet in SNIPPETS.items() if ROOT / "snippets" / "svg_figure.py" in snippet.sources)
    assert len({name.split("/")[0] for name in users}) > 1, "the figure writer is no longer shared by several parts"
    cases[("a changed module every part shares", "snippets")] = (
        appended(figure_writer, "\n# edited\n"),
        [f"snippets/{name}.py: snippets/svg_figure.py changed since its output was recorded" for name in users],
    )
    assert any(case == "a value its output no longer fits" for case, _ in cases), "no part declares a value"
    assert any(case == "a changed shared module" for case, _ in cases), "no part shares setup among its snippets"
    messages = {}
    for case, ((path, original, changed), expected) in cases.items():
        path.write_text(changed, encoding="utf-8")
        outputs = snapshot(project / "outputs")
        result = build(project)
        assert snapshot(project / "outputs") == outputs, f"{case}: the build changed outputs/"
        if original:
            path.write_text(original, encoding="utf-8")
        else:
            path.unlink()
        assert result.returncode != 0, case
        for text in expected:
            assert text in result.stderr, f"{case}: {text!r} not in:\n{result.stderr}"
        messages[case] = result.stderr
    assert len(set(messages.values())) == len(cases)
    assert build(project).returncode == 0


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

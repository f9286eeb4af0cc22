"""Values read through templates that match whole outputs: every declared value reads, and each way a template
and its output can part says which value, which output line and which template."""

from __future__ import annotations

from pathlib import Path
from string import Formatter

import pytest

from recorder.project.config import Project
from recorder.project.errors import PageError
from recorder.project.outputs import read_outputs
from recorder.project.values import Template, TemplateError, templates
from support import ROOT

PARTS = Project.load(ROOT).parts()


def template(*lines: str) -> Template:
    """A template of the output of `snippets/demo/printed.py`, as a values file would declare it."""
    names = tuple(name for line in lines for _, name, _, _ in Formatter().parse(line) if name)
    return Template("demo", "printed", lines, names)


def test_every_declared_value_of_every_part_reads_from_its_output() -> None:
    shown = read_outputs(Project.load(ROOT))
    assert shown.values and not shown.unreadable, shown.unreadable
    for part in PARTS:
        for found in templates(ROOT, part.name):
            for name in found.names:
                assert shown.value(f"{part.name}/{name}"), f"{part.name}/{name} reads nothing"


def test_a_template_reads_each_value_and_skips_what_it_leaves_open() -> None:
    read = template("{count} entries, {} skipped", "rank {rank}: {{literal}}").read(
        "50,257 entries, 3 skipped\nrank 9: {literal}\n"
    )
    assert read == {"count": "50,257", "rank": "9"}


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            "50,257 items\nrank 9: x\n",
            [
                "value `count`",
                "line 1 of outputs/demo/printed.txt reads '50,257 items'",
                "template line '{count} entries' in snippets/demo/values.yml",
            ],
        ),
        (
            "50,257 entries\n",
            ["value `count`, `rank`", "outputs/demo/printed.txt has 1 lines, the template 2", "from line 2 on"],
        ),
        ("50,257 entries\nrank 9: x\nmore\n", ["has 3 lines, the template 2", "matches the whole output"]),
    ],
)
def test_an_output_that_no_longer_fits_names_the_value_the_line_and_the_template(
    output: str, expected: list[str]
) -> None:
    with pytest.raises(TemplateError) as error:
        template("{count} entries", "rank {rank}: {}").read(output)
    for text in expected:
        assert text in str(error.value)


def test_a_value_named_twice_in_a_template_must_read_the_same_in_both_places() -> None:
    """How a template states that two lines of its output agree (two seeds, the same rows)."""
    assert template("seed 1: {rows}", "seed 2: {rows}").read("seed 1: [3, 5]\nseed 2: [3, 5]\n") == {"rows": "[3, 5]"}
    with pytest.raises(TemplateError) as error:
        template("seed 1: {rows}", "seed 2: {rows}").read("seed 1: [3, 5]\nseed 2: [3, 6]\n")
    for text in (
        "value `rows` reads both '[3, 5]' and '[3, 6]' in outputs/demo/printed.txt",
        "snippets/demo/values.yml names it twice",
        "Fix the snippet",
    ):
        assert text in str(error.value)


def test_a_malformed_values_file_names_itself_and_the_fix(tmp_path: Path) -> None:
    folder = tmp_path / "snippets" / "demo"
    folder.mkdir(parents=True)
    (folder / "printed.py").write_text("print(1)\n")
    for text, message in [
        ("printed: [1, 2\n", "is not valid YAML"),
        ("printed: 3\n", "`printed` needs a template: the text of the output it reads"),
        ("printed: '{A}'\n", "value `A` is not a name"),
        ("printed: '{a'\n", "Write a literal brace as `{{` or `}}`"),
    ]:
        (folder / "values.yml").write_text(text)
        with pytest.raises(TemplateError, match=r"snippets/demo/values\.yml|template line") as error:
            templates(tmp_path, "demo")
        assert message in str(error.value), text


def test_a_template_whose_snippet_is_gone_keeps_its_names_and_says_how_to_fix_it(tmp_path: Path) -> None:
    """A renamed or deleted snippet: its values are still known, so that pages quoting them are not told of another
    cause, and the template names the fix."""
    folder = tmp_path / "snippets" / "demo"
    folder.mkdir(parents=True)
    (folder / "printed.py").write_text("print(1)\n")
    (folder / "values.yml").write_text("renamed: '{a} and {b}'\nprinted: '{c}'\n")
    found = {template.output: template for template in templates(tmp_path, "demo")}
    assert found["printed"].orphaned is None
    assert found["renamed"].names == ("a", "b")
    assert found["renamed"].orphaned == (
        "snippets/demo/values.yml: `renamed` reads the output of snippets/demo/renamed.py, which does not exist. "
        "Rename the key after the snippet whose output the template reads (its file's name without .py), or remove "
        "the template and the values it names from the pages."
    )


def test_a_value_two_outputs_print_differently_reads_from_neither_and_names_both(project: Path) -> None:
    """Templates of two outputs may name one value, which binds them: a number one snippet types to the output
    that prints it. When the two print different text, the value is refused, naming both outputs."""
    part = PARTS[0].name
    first_lines = {
        path: path.read_text(encoding="utf-8").split("\n")
        for path in sorted((project / "outputs" / part).glob("*.txt"))
    }
    first, second = [path for path, lines in first_lines.items() if lines[0].strip()][:2]
    assert first_lines[first][0] != first_lines[second][0]
    (project / "snippets" / part / "values.yml").write_text(
        "".join(
            f"{path.stem}: |\n  {{shared}}\n" + "  {}\n" * (len(first_lines[path]) - 2) for path in (first, second)
        ),
        encoding="utf-8",
    )
    shown = read_outputs(Project.load(project))
    with pytest.raises(PageError) as error:
        shown.value(f"{part}/shared")
    for text in (
        f"value `{part}/shared` reads",
        f"outputs/{part}/{first.stem}.txt",
        f"outputs/{part}/{second.stem}.txt",
        "must print the same",
    ):
        assert text in str(error.value)

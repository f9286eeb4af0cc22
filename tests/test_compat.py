"""The version table: how a snippet's run with another release is judged, and reading the committed table."""

from __future__ import annotations

from pathlib import Path

import pytest

from recorder import compat_table
from recorder.compat_verdict import Printed, verdict, weight_dependent_lines

RECORDED = "True\n[0.052651, -0.010756]\ntorch.Size([1, 5])\n"
# The pinned release against a stand-in: other weight values, so line 2 depends on them.
REFERENCE = Printed("True\n[0.512290, 0.020567]\ntorch.Size([1, 5])\n")


def test_a_release_that_prints_the_recorded_lines_is_the_same() -> None:
    weight_dependent = weight_dependent_lines("x", RECORDED, REFERENCE, "5.17.0")
    assert weight_dependent == {2}
    other_values = Printed("True\n[-0.118803, 0.734000]\ntorch.Size([1, 5])\n")
    assert verdict(RECORDED, other_values, weight_dependent) == {"verdict": "same"}


def test_a_weight_independent_line_must_be_identical() -> None:
    printed = Printed("True\n[0.512290, 0.020567]\ntorch.Size([1, 5, 768])\n")
    assert verdict(RECORDED, printed, {2}) == {"verdict": "differs", "lines": [
        {"line": 3, "recorded": "torch.Size([1, 5])", "printed": "torch.Size([1, 5, 768])", "compared": "exactly"},
    ]}


def test_a_weight_dependent_line_must_keep_its_form() -> None:
    printed = Printed("True\n[0.51, 0.02]\ntorch.Size([1, 5])\n")
    assert verdict(RECORDED, printed, {2}) == {"verdict": "differs", "lines": [
        {"line": 2, "recorded": "[0.052651, -0.010756]", "printed": "[0.51, 0.02]", "compared": "by form"},
    ]}


def test_missing_and_extra_lines_differ() -> None:
    shorter = verdict(RECORDED, Printed("True\n[0.512290, 0.020567]\n"), {2})
    assert shorter["lines"] == [{"line": 3, "recorded": "torch.Size([1, 5])", "printed": None, "compared": "exactly"}]
    longer = verdict(RECORDED, Printed(REFERENCE.stdout + "done\n"), {2})
    assert longer["lines"] == [{"line": 4, "recorded": None, "printed": "done", "compared": "exactly"}]


def test_an_error_is_the_verdict_whatever_was_printed() -> None:
    failed = Printed("True\n", "AttributeError: 'GPT2Model' object has no attribute 'wte'")
    assert verdict(RECORDED, failed, {2}) == {"verdict": "error", "error": failed.error}


@pytest.mark.parametrize(("reference", "message"), [
    (Printed("", "OSError: no such file"), "snippets/x.py fails with transformers 5.17.0, the pinned release"),
    (Printed("True\n"), "snippets/x.py prints 1 lines with transformers 5.17.0 .* outputs/x.txt has 3"),
])
def test_the_pinned_release_must_print_the_recorded_lines(reference: Printed, message: str) -> None:
    with pytest.raises(compat_table.CompatError, match=message):
        weight_dependent_lines("x", RECORDED, reference, "5.17.0")


@pytest.mark.parametrize(("content", "message"), [
    (None, "compat/results.json does not exist. Run `make compat`"),
    ("{", "compat/results.json is not a valid version table"),
    ('{"releases": {}, "snippets": {}, "reference": "5.17.0"}', "compat/results.json is not a valid version table"),
])
def test_a_missing_or_broken_table_names_the_file_and_the_fix(tmp_path: Path, content: str | None,
                                                               message: str) -> None:
    if content is not None:
        (tmp_path / "compat").mkdir()
        (tmp_path / "compat" / "results.json").write_text(content, encoding="utf-8")
    with pytest.raises(compat_table.CompatError, match=message):
        compat_table.read(tmp_path)

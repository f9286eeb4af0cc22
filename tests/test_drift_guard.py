"""End to end, in a copy of the project: any drift between snippets and pages fails the build."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import build, edit, snapshot


@pytest.mark.slow
def test_each_drift_fails_with_its_own_message_and_passes_once_restored(built_site: Path, project: Path) -> None:
    # `built_site` is the unmodified project, built: the copy builds before any drift.
    cases = {
        "a changed snippet": (
            project / "snippets" / "row_lookup.py", "[0, 1, 3]", "[0, 1, 4]",
            ["snippets/row_lookup.py", "changed since its output was recorded", "make record"],
        ),
        "a changed shared module": (
            project / "snippets" / "pinned_gpt2.py", '"Software is changing how we"', '"Software is changing"',
            ["snippets/pinned_gpt2.py changed since its output was recorded", "make record"],
        ),
        "a hand-edited output": (
            project / "outputs" / "software_row.txt", "0.052651", "0.052652",
            ["outputs/software_row.txt differs from what `make record` wrote", "git checkout"],
        ),
        "an unknown value": (
            project / "docs" / "token-embeddings.md", "{{ value vocab_size }}", "{{ value vocabulary }}",
            ["docs/token-embeddings.md", "unknown value `vocabulary`", "extra.recorded_values"],
        ),
        "an unknown value in a figure caption": (
            project / "docs" / "token-embeddings.md", "{{ value we_token_id }}", "{{ value we_id }}",
            ["docs/token-embeddings.md", "unknown value `we_id`", "extra.recorded_values"],
        ),
        "an unknown directive": (
            project / "docs" / "index.md", "\n\n", "\n\n{{ chart lookup.svg }}\n\n",
            ["docs/index.md", "unknown directive", "Use code, example, figure, provenance, compatibility or value"],
        ),
        "an example without a recorded output": (
            project / "docs" / "index.md", "\n\n", "\n\n{{ example pinned_gpt2.py:load }}\n\n",
            ["snippets/pinned_gpt2.py has no recorded output", "make record"],
        ),
        "a page including a missing file": (
            project / "docs" / "index.md", "\n\n", "\n\n{{ code row_lookups.py:lookup }}\n\n",
            ["docs/index.md", "snippets/row_lookups.py does not exist", "Fix the directive's file name"],
        ),
        "a page including a missing section": (
            project / "docs" / "index.md", "\n\n", "\n\n{{ example row_lookup.py:lookups }}\n\n",
            ["docs/index.md", "snippets/row_lookup.py has no `# --8<-- [start:lookups]` marker",
             "or fix the section name"],
        ),
    }
    messages = {}
    for case, (path, old, new, expected) in cases.items():
        original = edit(path, old, new)
        outputs = snapshot(project / "outputs")
        result = build(project)
        assert snapshot(project / "outputs") == outputs, f"{case}: the build changed outputs/"
        path.write_text(original, encoding="utf-8")
        assert result.returncode != 0, case
        for text in expected:
            assert text in result.stderr, f"{case}: {text!r} not in:\n{result.stderr}"
        messages[case] = result.stderr
    assert len(set(messages.values())) == len(cases)
    assert build(project).returncode == 0


@pytest.mark.slow
def test_removed_section_is_a_build_error_even_when_recorded(run, project: Path) -> None:
    snippet = project / "snippets" / "parameter_count.py"
    edit(snippet, "# --8<-- [start:count]\n", "")
    edit(snippet, "# --8<-- [end:count]\n", "")
    assert run("python", "-m", "recorder", "record", cwd=project).returncode == 0
    result = build(project)
    assert result.returncode != 0
    assert "docs/token-embeddings.md: snippets/parameter_count.py has no `# --8<-- [start:count]` marker" in result.stderr


@pytest.mark.slow
def test_record_fixes_what_it_can_and_the_build_passes_again(run, project: Path) -> None:
    edit(project / "snippets" / "row_lookup.py", "[0, 1, 3]", "[0, 1, 4]")
    before = snapshot(project / "outputs")
    result = run("python", "-m", "recorder", "record", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "[1/1] snippets/row_lookup.py" in result.stdout
    after = snapshot(project / "outputs")
    assert {name for name in after if after[name] != before.get(name)} == {"row_lookup.txt", "manifest.json"}
    assert "[-0.6000,  0.3000,  0.7000]" in after["row_lookup.txt"].decode()
    assert build(project).returncode == 0

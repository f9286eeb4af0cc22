"""The strict build checks links between pages: a broken link or anchor stops it, naming both."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import build, edit

BROKEN = {  # planted link -> what the build must say about it
    "token-embeddings.md#no-such-heading": "the doc 'token-embeddings.md' does not contain an anchor "
                                           "'#no-such-heading'",
    "no-such-page.md": "the target is not found among documentation files",
    "token-embeddings/": "unrecognized relative link 'token-embeddings/'",  # a folder: MkDocs cannot check it
}


@pytest.mark.slow
def test_a_broken_link_or_anchor_fails_the_build_naming_the_page_and_the_target(project: Path) -> None:
    links = " ".join(f"[broken]({target})" for target in BROKEN)
    edit(project / "docs" / "index.md", "## Parts\n", f"## Parts\n\nSee {links}.\n")
    result = build(project)
    assert result.returncode == 1
    for target, message in BROKEN.items():
        line = next((line for line in result.stderr.splitlines() if f"'{target}'" in line), None)
        assert line is not None, f"{target}: not reported in\n{result.stderr}"
        assert line.startswith("Doc file 'index.md' contains") and message in line, line

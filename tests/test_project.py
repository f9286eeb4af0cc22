"""mkdocs.yml's `extra:` as the record step reads it: checked once, reloaded when edited."""

from __future__ import annotations

from pathlib import Path

import pytest

from recorder.project import Project
from recorder.store import RecordError
from support import edit


def test_the_pages_with_a_notebook_come_from_mkdocs_yml_and_an_edit_is_seen(project: Path) -> None:
    assert Project.load(project).notebooks == ("token-embeddings.md",)
    edit(project / "mkdocs.yml", "notebooks: [token-embeddings.md]", "notebooks: [token-embeddings.md, index.md]")
    assert Project.load(project).notebooks == ("token-embeddings.md", "index.md")


@pytest.mark.parametrize("entry", ["notebooks: token-embeddings.md", "notebooks: [token-embeddings.ipynb]"])
def test_a_malformed_notebooks_entry_names_mkdocs_yml_and_the_fix(project: Path, entry: str) -> None:
    edit(project / "mkdocs.yml", "notebooks: [token-embeddings.md]", entry)
    with pytest.raises(RecordError, match=r"mkdocs.yml has extra.notebooks: .*List the pages of docs/"):
        Project.load(project)

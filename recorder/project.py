"""The project as mkdocs.yml describes it to the record step and the pages.

`extra:` in mkdocs.yml holds what the site states and the code reads:
`recorded_values` (numbers the prose quotes), `published_with` (what the
article's run used) and `notebooks` (the pages with a companion notebook).
Each is checked here, once, with a message that names mkdocs.yml and the fix.

The record step loads the configuration without plugins (`load`): none of
this depends on them, and loading them (mkdocs-jupyter above all) would cost
every run a second. One process loads it once: a record run and the forks
the tests make of one reuse it. The MkDocs hook wraps the configuration
MkDocs loaded (`from_config`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig

from recorder.store import RecordError

CONFIG_FILE = "mkdocs.yml"


@dataclass(frozen=True)
class Project:
    root: Path  # absolute, so that paths in messages work from anywhere
    config: MkDocsConfig
    recorded_values: dict[str, dict[str, str]]
    published_with: dict[str, str]
    notebooks: tuple[str, ...]  # pages of docs/ with a companion notebook, e.g. "token-embeddings.md"

    @classmethod
    def load(cls, root: Path) -> Project:
        """The project in `root`, its mkdocs.yml read once per process while it stays unchanged."""
        path = root.resolve() / CONFIG_FILE
        stat = path.stat()
        return _load(path, stat.st_mtime_ns, stat.st_size)

    @classmethod
    def from_config(cls, config: MkDocsConfig) -> Project:
        extra = config.extra
        return cls(
            root=Path(config.config_file_path).resolve().parent,
            config=config,
            recorded_values=_recorded_values(extra.get("recorded_values", {})),
            published_with=_published_with(extra.get("published_with")),
            notebooks=_notebooks(extra.get("notebooks", [])),
        )

    @property
    def docs_dir(self) -> Path:
        return Path(self.config.docs_dir)


@cache
def _load(path: Path, mtime_ns: int, size: int) -> Project:  # the stat makes an edited file a new key
    return Project.from_config(load_config(config_file=str(path), plugins=[]))


def _recorded_values(values: Any) -> dict[str, dict[str, str]]:
    if not isinstance(values, dict) or not all(
        isinstance(spec, dict) and set(spec) == {"output", "pattern"} for spec in values.values()
    ):
        raise RecordError("mkdocs.yml: each extra.recorded_values entry needs exactly `output` and `pattern`.")
    return values


def _published_with(versions: Any) -> dict[str, str]:
    if not (isinstance(versions, dict) and versions
            and all(isinstance(key, str) and isinstance(value, str) for key, value in versions.items())):
        found = "has no extra.published_with" if versions is None else f"has extra.published_with: {versions!r}"
        raise RecordError(
            f"mkdocs.yml {found}. It must say what the article's outputs were produced with: under `extra:`, "
            'each package with its version, quoted, e.g. `published_with: {transformers: "5.17.0"}`.'
        )
    return dict(versions)


def _notebooks(pages: Any) -> tuple[str, ...]:
    if not (isinstance(pages, list) and all(isinstance(page, str) and page.endswith(".md") for page in pages)):
        raise RecordError(f"mkdocs.yml has extra.notebooks: {pages!r}. List the pages of docs/ that have a "
                           "companion notebook, e.g. `notebooks: [token-embeddings.md]`.")
    return tuple(pages)

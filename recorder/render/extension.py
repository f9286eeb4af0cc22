"""`recorder.render.extension`, the Python-Markdown extension that renders the page directives, under any engine
that runs Python-Markdown extensions (MkDocs with Material, Zensical): its options, and where what a page may show
comes from. It only reads: it records nothing. Its processors are `recorder/render/conversion.py`'s.

Its `state` option is the project's state as the configuration file computes it (`recorder.state.checked`, called
by a YAML tag), so a build whose state cannot be published stops before any page, and an engine's cache of
rendered pages holds as long as that state does. It knows neither the page's path nor its front matter: directives
name their part (`PART/FILE.py`, `PART/NAME`), values come from each part's `values.yml`, and links are written
from the top of the docs folder, where every page is (MkDocs' plugin and Zensical make them relative to the page).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from recorder import repository, state
from recorder.record.project import Project
from recorder.recorded import Recorded, recorded
from recorder.render.conversion import Directives


@lru_cache(maxsize=4)  # a live reload makes a state per edit
def _recorded(config_file: Path, digest: str) -> Recorded:
    """What every page may show, once per state: the state's digest covers every file it is read from."""
    project = Project.load(config_file.parent, config_file)
    return recorded(project, repository.from_environment(os.environ))


class RecordedOutputs(Directives):
    """Options, under `markdown_extensions:` as `- recorder.render.extension:`."""

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "state": [
                "",
                "the project's state: `!!python/object/apply:recorder.state.checked []`, which the engine "
                "computes each time it reads its configuration; empty: worked out here",
            ],
            "project": [".", "the configuration file, or its folder, where `state` is empty"],
            "notebook_pages": [
                False,
                "the engine shows each notebook as a page (mkdocs-jupyter; MkDocs' plugin "
                "says so): link to it, rather than offer only the download",
            ],
        }
        super().__init__(**kwargs)

    def read(self) -> Recorded:
        """What the page may show, in a publishable state; read when a page is converted, not when the extension is
        made: MkDocs makes one to check its options."""
        digest = self.getConfig("state")
        config_file = state.configuration_of(digest)
        if config_file is None:  # no engine computed it: work it out here, from the project's folder
            given = Path(self.getConfig("project")).resolve()
            config_file = given / "mkdocs.yml" if given.is_dir() else given
            digest = state.checked(str(config_file))
        return _recorded(config_file, digest)


def makeExtension(**kwargs: Any) -> RecordedOutputs:
    return RecordedOutputs(**kwargs)

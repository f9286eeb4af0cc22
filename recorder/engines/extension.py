"""`recorder.engines.extension`, the Python-Markdown extension that renders the page directives, under any engine
that runs Python-Markdown extensions (MkDocs with Material, Zensical): its options, and where what a page may show
comes from. It only reads: it records nothing. Its processors are `recorder/render/conversion.py`'s.

Its `state` option is the project's state as the configuration file computes it (`recorder.engines.config.checked`,
called by a YAML tag), so a build whose state has problems stops before any page, and an engine's cache of rendered
pages holds as long as that state does. It knows neither the page's path nor its front matter: directives
name their part (`PART/FILE.py`, `PART/NAME`), values come from each part's `values.yml`, and links are written
from the top of the docs folder, where every page is (MkDocs' plugin and Zensical make them relative to the page).

In a preview (`python -m recorder serve` sets its `preview` option), a state with problems is rendered
anyway, for the author to see it: every page opens with its problems and what the record step said, and a block
or value that cannot be shown, or an output recorded from an older version of its snippet, shows its problem in
its place.
"""

import os
from functools import lru_cache, partial
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from markdown import Markdown

from recorder.check.state import State
from recorder.engines import config as engine_config
from recorder.project import repository
from recorder.project.config import CONFIG_FILE, Project
from recorder.project.directives import Example, Figure
from recorder.project.outputs import Outputs, read_outputs
from recorder.render.conversion import Directives, Pass
from recorder.render.html import banner, problem_inline, problem_note
from recorder.render.page import PreparedPage


@lru_cache(maxsize=4)  # a live reload makes a state per edit
def _recorded(config_file: Path, digest: str) -> Outputs:
    """What every page may show, once per state: the state's digest covers every file it is read from."""
    project = Project.load(config_file.parent, config_file)
    return read_outputs(project, repository.from_environment(os.environ))


class RecordedOutputs(Directives):
    """Options, under `markdown_extensions:` as `- recorder.engines.extension:`."""

    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            "state": [
                "",
                "the project's state: `!!python/object/apply:recorder.engines.config.checked []`, which the engine "
                "computes each time it reads its configuration; empty: worked out here",
            ],
            "project": [".", "the configuration file, or its folder, where `state` is empty"],
            "notebook_pages": [
                False,
                "the engine shows each notebook as a page (mkdocs-jupyter; MkDocs' plugin "
                "says so): link to it, rather than offer only the download",
            ],
            "preview": [False, "a live preview: render a state with problems, saying why on every page"],
            "preview_note": ["", "in a preview, what the record step said when it could not record what is stale"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:
        super().extendMarkdown(md)
        if self.getConfig("preview"):
            md.treeprocessors.register(Pass(md, partial(self.opened, md)), "recorded_preview_banner", 2)

    def checked(self) -> tuple[Path, State]:
        """The configuration file and the state the page is rendered from, read when a page is converted, not when
        the extension is made: MkDocs makes one to check its options."""
        if kept := engine_config.checked_as(self.getConfig("state")):
            return kept
        given = Path(self.getConfig("project")).resolve()  # no engine computed it: work it out here
        return engine_config.check(given / CONFIG_FILE if given.is_dir() else given)

    def read(self) -> Outputs:
        config_file, checked = self.checked()
        return _recorded(config_file, checked.digest)

    def prepared(self, prepared: PreparedPage) -> None:
        """In a preview, each directive that cannot render, and each output recorded from an older version of its
        snippet, shows its problem in its place; elsewhere, the build stops at the first directive that cannot."""
        if not self.getConfig("preview"):
            return super().prepared(prepared)
        prepared.noted(problem_note, problem_inline)
        stale = set(self.checked()[1].stale)
        prepared.outputs = [
            (
                directive,
                problem_note(
                    f"snippets/{directive.file} changed since this output was recorded, and it is not recorded "
                    "again yet: the message at the top of the page says why."
                ),
            )
            if isinstance(directive, Example | Figure) and directive.name in stale
            else (directive, html)
            for directive, html in prepared.outputs
        ]
        return None

    def converted(self, prepared: PreparedPage) -> None:
        """A preview's problems are on its pages: the build goes on."""
        if not self.getConfig("preview"):
            super().converted(prepared)

    def opened(self, md: Markdown, root: Element) -> None:
        """In a preview of a state with problems, the page opens with its problems."""
        checked, note = self.checked()[1], str(self.getConfig("preview_note"))
        if checked.problems or note:
            paragraph = Element("p")
            paragraph.text = md.htmlStash.store(banner(checked.problems, note))
            root.insert(0, paragraph)


def makeExtension(**kwargs: Any) -> RecordedOutputs:
    return RecordedOutputs(**kwargs)

"""The MkDocs plugin `recorded-outputs`: what only MkDocs needs around the pages that the Markdown extension renders.

The project's state is checked by the configuration file itself (`recorder.state.checked`), for MkDocs and Zensical
alike, and the copies the site publishes are plain files of the docs folder. This plugin adds what MkDocs alone
has: the companion notebooks as pages (mkdocs-jupyter), each part in llms.txt, the repository's links from
GITHUB_*, and pymdownx.snippets' base path from the project's folder wherever MkDocs runs. It never records.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from recorder import repository, state
from recorder.errors import PageError, RecorderError
from recorder.pinned import GENERATED
from recorder.record.project import PLUGIN, Project
from recorder.render import notebook_page

log = logging.getLogger(f"mkdocs.plugins.{PLUGIN}")
EXTENSION = "recorder.render.extension"
# A link the extension writes from the top of the docs folder to a copy inside the site.
_COPY_LINK = re.compile(rf'href="({GENERATED}/[^"]+)"')


class PluginConfig(Config):
    """`- recorded-outputs:` under `plugins:`: the record step's options (recorder/record/project.py reads and checks
    them), declared here for MkDocs' own validation."""

    published_article = c.Type(str)
    published_with = c.Type(dict, default={})
    llms_section = c.Type(str, default="Series")


class RecordedOutputsPlugin(BasePlugin[PluginConfig]):
    def on_config(self, config: MkDocsConfig) -> None:
        if EXTENSION not in config.markdown_extensions:
            raise PluginError(f"{Path(config.config_file_path).name} lists the `{PLUGIN}` plugin but not the "
                              f"`{EXTENSION}` Markdown extension, which renders the pages' directives: add "
                              f"`- {EXTENSION}` under `markdown_extensions:`.")
        try:
            self.project = Project.load(Path(config.config_file_path).parent, Path(config.config_file_path))
            self.parts = {part.name: part for part in self.project.parts()}
            found = state.current(self.project)  # kept: the configuration worked it out moments ago
        except RecorderError as error:
            raise PluginError(str(error)) from None
        if found.failure:
            # Abort, as MkDocs stops a build: its preview then reports the message alone, without a traceback.
            raise Abort(f"Error: {found.failure}")
        config.mdx_configs[EXTENSION] = {**config.mdx_configs.get(EXTENSION, {}), "notebook_pages": True,
                                         "project": str(self.project.config_file)}
        config.mdx_configs["pymdownx.snippets"] = self.project.snippet_settings()
        self.repository = self._repository(config)

    def _repository(self, config: MkDocsConfig) -> repository.Repository | None:
        """The repository named by the environment (see recorder/repository.py), which also gives every page
        its edit link; set here rather than with !ENV in mkdocs.yml, which cannot join two variables."""
        found = repository.from_environment(os.environ)
        if found is not None:
            config.repo_url, config.repo_name = found.url, found.name
            config.edit_uri = repository.edit_uri(self._docs_path())
        elif unset := repository.missing(os.environ):
            log.info("%s not set: pages link to the copies inside the site, not to the repository.", ", ".join(unset))
        return found

    def _docs_path(self) -> str:  # the pages' folder as the repository names it, e.g. "docs"
        return self.project.docs_dir.resolve().relative_to(self.project.root).as_posix()

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        self.list_parts_in_llms_txt(config)
        return files

    def list_parts_in_llms_txt(self, config: MkDocsConfig) -> None:
        """Each part's page after the pages mkdocs.yml lists in `llms_section`, and its notebook
        under Notebooks, in the navigation's order (MkDocs has not built it yet: as mkdocs.yml lists it).
        Public for the benchmark, whose plain build lists the same pages."""
        llmstxt = config.plugins.get("llmstxt")
        if llmstxt is None:
            return
        sections = llmstxt.config.sections
        pages, notebooks = sections.setdefault(self.config.llms_section, []), sections.setdefault("Notebooks", [])
        listed = {next(iter(item)) if isinstance(item, dict) else item for item in [*pages, *notebooks]}
        for part in self.parts.values():
            if part.page not in listed:
                pages.append({part.page: str(self.project.page(part.page)[1].get("description", ""))})
            if part.notebook not in listed:
                notebooks.append({part.notebook: f"The examples of {part.title} as one notebook, with their outputs"})

    def on_page_context(self, context: dict[str, Any], *, page: Page, config: MkDocsConfig,
                        nav: Navigation) -> dict[str, Any]:
        """The links the theme's overrides show on a notebook's page: its file at the built commit, and Colab."""
        found = self.repository
        if found is None:
            return context
        path = f"{self._docs_path()}/{page.file.src_uri}"
        context["view_url"] = found.at_commit(path)
        if page.file.src_uri.endswith(".ipynb"):
            page.edit_url = None  # generated by `make record`: an edit by hand fails the build
            context["colab_url"] = found.colab(path)
        return context

    @event_priority(50)
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Links to the copies inside the site relative to the page (as Zensical makes every link of stashed HTML); a
        notebook's page without its remote loaders. Before the plugins that read the page (mkdocs-llmstxt)."""
        if not page.file.src_uri.endswith(".ipynb"):
            return _COPY_LINK.sub(lambda link: f'href="{get_relative_url(link[1], page.url)}"', html)
        try:
            return notebook_page.without_remote_loaders(notebook_page.without_styles(html))
        except PageError as error:
            raise PluginError(f"docs/{page.file.src_uri}: {error}") from None

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        """A notebook page runs the scripts of its copy buttons last: it keeps its Lighthouse score above 0.95."""
        if not page.file.src_uri.endswith(".ipynb"):
            return output
        try:
            return notebook_page.with_copy_scripts_last(output)
        except PageError as error:
            raise PluginError(f"docs/{page.file.src_uri}: {error}") from None

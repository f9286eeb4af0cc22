"""The MkDocs plugin `recorded-outputs`: what only MkDocs needs around the pages that the Markdown extension renders.

The project's state is checked by the configuration file itself (`recorder.engines.config.checked`), for MkDocs and
Zensical alike, and the copies the site serves are plain files of the docs folder. This plugin adds what MkDocs
alone has: the companion notebooks as pages (mkdocs-jupyter), the repository's links from
GITHUB_*, and pymdownx.snippets' base path from the project's folder wherever MkDocs runs. It never records.
"""

import logging
import os
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from recorder.engines import config as engine_config
from recorder.project import repository
from recorder.project.config import GENERATED, PLUGIN, Options, Project
from recorder.project.errors import PageError, RecorderError
from recorder.render import notebook_page
from recorder.render.conversion import EXTENSION
from recorder.render.html import banner

log = logging.getLogger(f"mkdocs.plugins.{PLUGIN}")
# A link the extension writes from the top of the docs folder to a copy inside the site.
_COPY_LINK = re.compile(rf'href="({GENERATED}/[^"]+)"')


class RecordedOutputsPlugin(BasePlugin):
    # The record step's options, which recorder/project/config.py reads and checks as the configuration loads, before
    # MkDocs validates it: declared here only so that MkDocs knows their names.
    config_scheme = tuple((option.name, c.Type(object)) for option in fields(Options))

    def on_config(self, config: MkDocsConfig) -> None:
        if EXTENSION not in config.markdown_extensions:
            raise PluginError(
                f"{Path(config.config_file_path).name} lists the `{PLUGIN}` plugin but not the "
                f"`{EXTENSION}` Markdown extension, which renders the pages' directives: add "
                f"`- {EXTENSION}` under `markdown_extensions:`."
            )
        path, options = Path(config.config_file_path), config.mdx_configs.get(EXTENSION, {})
        # A preview (`python -m recorder serve`) renders the pages anyway, each saying why; in the terminal, too.
        preview = bool(options.get("preview"))
        try:
            self.project = Project.load(path.parent, path)
            self.parts = {part.name: part for part in self.project.parts()}
            # The state of the file MkDocs reads, as the configuration's tag worked it out where the tag found that
            # file; else worked out here. In a preview, shown even with problems.
            kept = engine_config.checked_as(options.get("state", ""))
            if kept is None or kept[0] != path.resolve():
                with engine_config.reading(path, preview=preview):
                    kept = engine_config.check(path.resolve())  # with problems only in a preview
            current = kept[1]
        except engine_config.Unbuildable as error:  # as MkDocs stops a build: the message alone, no traceback
            raise Abort(f"Error: {error}") from None
        except RecorderError as error:
            raise PluginError(str(error)) from None
        self.banner = banner(current.problems, options.get("preview_note", "")) if preview else ""
        if current.failure:
            log.warning(current.failure)
        config.mdx_configs[EXTENSION] = {**options, "state": current.digest, "notebook_pages": True}
        config.mdx_configs["pymdownx.snippets"] = self.project.snippet_settings()
        self.repository = self._repository(config)
        self._list_notebooks(config)

    def _list_notebooks(self, config: MkDocsConfig) -> None:
        """llms.txt lists each part's notebook under Notebooks: MkDocs shows each as a page (mkdocs-jupyter)."""
        if (llmstxt := config.plugins.get("llmstxt")) is not None:
            notebooks = {
                part.notebook: f"The examples of {part.title} as one notebook, with their outputs"
                for part in self.parts.values()
            }
            engine_config.add_unlisted(llmstxt.config.sections, "Notebooks", notebooks)

    def _repository(self, config: MkDocsConfig) -> repository.Repository | None:
        """The repository named by the environment (see recorder/project/repository.py), which also gives every page
        its edit link; set here rather than with !ENV in mkdocs.yml, which cannot join two variables."""
        named = repository.from_environment(os.environ)
        if named is not None:
            config.repo_url, config.repo_name = named.url, named.name
            config.edit_uri = f"edit/main/{self.project.docs_path}/"  # a pull request against the built branch
        elif unset := repository.missing(os.environ):
            log.info("%s not set: pages link to the copies inside the site, not to the repository.", ", ".join(unset))
        return named

    def on_page_context(
        self, context: dict[str, Any], *, page: Page, config: MkDocsConfig, nav: Navigation
    ) -> dict[str, Any]:
        """The links the theme's overrides show on a notebook's page: its file at the built commit, and Colab."""
        named = self.repository
        if named is None:
            return context
        path = f"{self.project.docs_path}/{page.file.src_uri}"
        context["view_url"] = named.at_commit(path)
        if page.file.src_uri.endswith(".ipynb"):
            page.edit_url = None  # generated by `make record`: an edit by hand fails the build
            context["colab_url"] = named.colab(path)
        return context

    @event_priority(50)
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Links to the copies inside the site relative to the page (as Zensical makes every link of stashed HTML); a
        notebook's page without its remote loaders. Before the plugins that read the page (mkdocs-llmstxt)."""
        if not page.file.src_uri.endswith(".ipynb"):
            return _COPY_LINK.sub(lambda link: f'href="{get_relative_url(link[1], page.url)}"', html)
        try:
            html = notebook_page.without_remote_loaders(notebook_page.without_styles(html))
        except PageError as error:
            raise PluginError(f"{self.project.docs_path}/{page.file.src_uri}: {error}") from None
        # The extension opens the other pages of a preview with it; mkdocs-jupyter converts notebooks without it.
        return self.banner + html

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        """A notebook page runs the scripts of its copy buttons last: it keeps its Lighthouse score above 0.95."""
        if not page.file.src_uri.endswith(".ipynb"):
            return output
        try:
            return notebook_page.with_copy_scripts_last(output)
        except PageError as error:
            raise PluginError(f"{self.project.docs_path}/{page.file.src_uri}: {error}") from None

"""The MkDocs plugin `recorded-outputs`: what only MkDocs offers around the pages that the Markdown extension renders.

The pages' directives are rendered by the Markdown extension `recorder.render.extension`, which Zensical runs too.
This plugin adds what MkDocs alone has: the companion notebooks as pages (mkdocs-jupyter), each part in llms.txt,
the links back to the repository from GITHUB_*, and the snippets' sources, the manifest and the pinned
tokenizer files (for Part 1's "Try it" box) inside the site.
It fails the build at once on any drift, with every problem listed; a preview (`mkdocs serve`) shows stale
blocks under a warning instead. It never records: `make site` runs the record step first.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.meta import get_data

from recorder.errors import RecorderError
from recorder.pinned import MANIFEST_NAME, OUTPUTS_DIR, SNIPPETS_DIR
from recorder.record.project import PLUGIN, PluginConfig, Project
from recorder.render import extension, notebook_page, repository, tokenizer_files
from recorder.render.compat_page import COMPAT_DIR
from recorder.render.directives import parse
from recorder.render.pages import PageError

log = logging.getLogger(f"mkdocs.plugins.{PLUGIN}")
EXTENSION = "recorder.render.extension"
# A link the extension writes from the top of docs/ to a snippet's copy inside the site.
_SOURCE_LINK = re.compile(rf'href="({SNIPPETS_DIR}/[^"]+)"')


class RecordedOutputsPlugin(BasePlugin[PluginConfig]):
    def __init__(self) -> None:
        self.previewing = False

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.previewing = command == "serve"

    def on_config(self, config: MkDocsConfig) -> None:
        root = Path(config.config_file_path).resolve().parent
        if EXTENSION not in config.markdown_extensions:
            raise PluginError(f"mkdocs.yml lists the `{PLUGIN}` plugin but not the `{EXTENSION}` Markdown extension, "
                              f"which renders the pages' directives: add `- {EXTENSION}` under `markdown_extensions:`.")
        # The extension's options and the snippets' base path, from the project's folder wherever MkDocs runs;
        # the project's fingerprint once for the build, not for each page (a preview's rebuild takes it anew).
        content = extension.fingerprint(root)
        config.mdx_configs[EXTENSION] = {**config.mdx_configs.get(EXTENSION, {}), "project": str(root),
                                         "preview": self.previewing, "notebook_links": False, "source_copies": True,
                                         "content": content}
        self.project = Project(root, config, self.config)
        config.mdx_configs["pymdownx.snippets"] = self.project.snippet_settings()
        try:
            self.parts = {part.name: part for part in self.project.parts()}
            self.repository = self._repository(config)
            self.site = extension.state(root, preview=self.previewing, content=content)
            self.tokenizer_files = tokenizer_files.verified()
        except RecorderError as error:
            raise PluginError(str(error)) from None
        if not self.previewing and (message := extension.failure(self.site)):
            raise PluginError(message)
        # Logged below WARNING: `--strict` counts warnings and would stop the preview.
        for problem in self.site.problems:
            log.info("stale output, shown with a warning: %s", problem.message)

    def _repository(self, config: MkDocsConfig) -> repository.Repository | None:
        """The repository named by the environment (see recorder/render/repository.py), which also gives every page
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
        """Publish the snippet sources, so each output can link to the file that printed it, the
        manifest, so tools can read every output's record, and the pinned tokenizer files, for the
        tokenizer that runs in the page; list each part in llms.txt."""
        root = self.project.root
        for path in sorted((root / SNIPPETS_DIR).rglob("*.py")):
            files.append(File.generated(config, path.relative_to(root).as_posix(), abs_src_path=str(path)))
        manifest = root / OUTPUTS_DIR / MANIFEST_NAME
        if manifest.is_file():  # a preview may run before anything was recorded
            files.append(File.generated(config, f"{OUTPUTS_DIR}/{MANIFEST_NAME}", abs_src_path=str(manifest)))
        for published in self.tokenizer_files:
            files.append(File.generated(config, published.site_path, abs_src_path=str(published.source)))
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
            _, meta = get_data((self.project.docs_dir / part.page).read_text(encoding="utf-8"))
            if part.page not in listed:
                pages.append({part.page: str(meta.get("description", ""))})
            if part.notebook not in listed:
                notebooks.append({part.notebook: f"The examples of {part.title} as one notebook, with their outputs"})

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> None:
        """Resolve every page's directives, so that a wrong one stops the build in moments, naming its page,
        before the pages ahead of it (and the notebooks) are rendered."""
        for file in files.documentation_pages():
            if file.src_uri.endswith(".md") and "{{" in (markdown := get_data(file.content_string)[0]):
                try:
                    extension.prepare(parse(markdown), self.site.recorded)
                except PageError as error:
                    raise PluginError(f"docs/{file.src_uri}: {error}") from None

    def on_page_context(self, context: dict[str, Any], *, page: Page, config: MkDocsConfig,
                        nav: Navigation) -> dict[str, Any]:
        """The links the theme's overrides show: a part's notebook, the page's file at the built commit,
        Colab for a notebook, and the pinned tokenizer files with their digests, for a page that runs the
        tokenizer (overrides/main.html)."""
        context["tokenizer_files"] = {published.name: {"url": get_relative_url(published.site_path, page.url),
                                                       "integrity": published.integrity}
                                      for published in self.tokenizer_files}
        part = self.parts.get(page.file.src_uri.removesuffix(".md"))
        if part is not None:
            context["notebook_url"] = get_relative_url(part.notebook.removesuffix(".ipynb") + "/", page.url)
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
        """Links to the snippets' copies from the page (as Zensical makes every link of stashed HTML); a notebook's
        page without its remote loaders. Before the plugins that read the page (mkdocs-llmstxt)."""
        if not page.file.src_uri.endswith(".ipynb"):
            return _SOURCE_LINK.sub(lambda link: f'href="{get_relative_url(link[1], page.url)}"', html)
        try:
            return notebook_page.without_remote_loaders(notebook_page.without_styles(html))
        except PageError as error:
            raise PluginError(f"docs/{page.file.src_uri}: {error}") from None

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        """A notebook page runs the scripts of its copy buttons last: measured, it keeps its Lighthouse score
        above 0.95."""
        if not page.file.src_uri.endswith(".ipynb"):
            return output
        try:
            return notebook_page.with_copy_scripts_last(output)
        except PageError as error:
            raise PluginError(f"docs/{page.file.src_uri}: {error}") from None

    def on_serve(self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Any) -> LiveReloadServer:
        for folder in (SNIPPETS_DIR, OUTPUTS_DIR, COMPAT_DIR):
            server.watch(str(self.project.root / folder))
        return server


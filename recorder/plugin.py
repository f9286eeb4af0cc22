"""The MkDocs plugin `recorded-outputs`: embed recorded outputs in pages, and refuse to build on any drift.

A build fails when a snippet changed since its output was recorded, an output or a companion notebook
was edited by hand or not regenerated, an output is left that no snippet owns, or a page refers to
something unrecorded; a preview (`mkdocs serve`) shows stale blocks with a warning instead. The plugin
also finds the parts: their notebooks, their rows in the tables, their entries in llms.txt.
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
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

from recorder import notebook, notebook_page, repository, store, tokenizer_files
from recorder.compat_page import COMPAT_DIR
from recorder.directives import parse, part_of
from recorder.errors import RecorderError
from recorder.page_markdown import PageDirectives, PreparedPage, prepare
from recorder.pages import PageError, Recorded, recorded
from recorder.pinned import MANIFEST_NAME, OUTPUTS_DIR, SNIPPETS_DIR
from recorder.project import PLUGIN, PluginConfig, Project
from recorder.record import record

log = logging.getLogger(f"mkdocs.plugins.{PLUGIN}")


class RecordedOutputsPlugin(BasePlugin[PluginConfig]):
    def __init__(self) -> None:
        self.previewing = False
        self.extension = PageDirectives()
        self.pages: dict[str, PreparedPage] = {}  # pages converted, until their conversion is checked
        self.early: dict[str, tuple[str, PreparedPage | None]] = {}  # pages prepared before any is built

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.previewing = command == "serve"

    def on_config(self, config: MkDocsConfig) -> None:
        self.pages.clear()
        self.early.clear()
        try:
            self.project = Project(Path(config.config_file_path).resolve().parent, config, self.config)
            self.parts = {part.name: part for part in self.project.parts()}
            found, problems = self._read(config)
            if problems and self.config.record_stale and not self.previewing:
                record(self.project.root, report=log.info, project=self.project)
                found, problems = self._read(config)
            self.tokenizer_files = tokenizer_files.verified()
        except RecorderError as error:
            raise PluginError(str(error)) from None
        if problems and not self.previewing:
            raise PluginError("recorded outputs are out of date:\n  " + "\n  ".join(p.message for p in problems))
        # Logged below WARNING: `--strict` counts warnings and would stop the preview.
        for problem in problems:
            log.info("stale output, shown with a warning: %s", problem.message)
        self.recorded = replace(found, stale={p.snippet: p.message for p in problems})
        # The extension renders only what on_page_markdown prepared: it means nothing without this plugin.
        config.markdown_extensions.append(self.extension)

    def _read(self, config: MkDocsConfig) -> tuple[Recorded, list[store.Problem]]:
        """The recorded outputs, and every way they and the notebooks lag behind the sources."""
        found = recorded(self.project, self._repository(config))
        return found, notebook.drift(self.project, found)

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
        names = {page: title for title, page in _pages_of(config.nav or [])}
        rank = {page: number for number, page in enumerate(names)}
        for part in sorted(self.parts.values(), key=lambda part: rank.get(part.page, len(rank))):
            _, meta = get_data((self.project.docs_dir / part.page).read_text(encoding="utf-8"))
            if part.page not in listed:
                pages.append({part.page: str(meta.get("description", ""))})
            if part.notebook not in listed:
                title = names.get(part.page) or part.name
                notebooks.append({part.notebook: f"The examples of {title} as one notebook, with their outputs"})

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> None:
        """Name each part as the navigation does, in its order, for the tables grouped by part; then
        resolve every page's directives, so that a wrong one stops the build in moments, before the
        pages ahead of it (and the notebooks) are rendered."""
        titles = {page.file.src_uri: page.title for page in nav.pages}
        order = {uri: number for number, uri in enumerate(titles)}
        self.recorded = replace(self.recorded, parts={
            part.name: titles.get(part.page) or part.name
            for part in sorted(self.parts.values(), key=lambda part: order.get(part.page, len(order)))
        })
        for file in files.documentation_pages():
            if file.src_uri.endswith(".md"):
                markdown, meta = get_data(file.content_string)  # as MkDocs reads the page
                self.early[file.src_uri] = (markdown, self._prepare(markdown, meta, file.src_uri, file.url))

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        # Notebook pages arrive here as JSON; only Markdown pages hold directives.
        if not page.file.src_uri.endswith(".md"):
            return markdown
        early, prepared = self.early.pop(page.file.src_uri, (None, None))
        if early != markdown:  # another plugin changed the page since: prepare it anew
            prepared = self._prepare(markdown, page.meta, page.file.src_uri, page.url)
        if prepared is not None:
            self.extension.convert_next(prepared)  # MkDocs converts the page next
            self.pages[page.file.src_uri] = prepared
        return markdown

    def _prepare(self, markdown: str, meta: dict[str, Any], src_uri: str, url: str) -> PreparedPage | None:
        """What each directive of the page becomes; None for a page without any."""
        if "{{" not in markdown:
            return None
        try:
            page_recorded = self.recorded.for_page(part_of(src_uri), meta.get("values", {}))
            return prepare(parse(markdown, src_uri), page_recorded, url)
        except PageError as error:
            raise PluginError(f"docs/{src_uri}: {error}") from None

    def on_page_context(self, context: dict[str, Any], *, page: Page, config: MkDocsConfig,
                        nav: Navigation) -> dict[str, Any]:
        """The links the theme's overrides show: a part's notebook, the page's file at the built commit,
        Colab for a notebook, and the pinned tokenizer files with their digests, for a page that runs the
        tokenizer (overrides/main.html)."""
        context["tokenizer_files"] = {published.name: {"url": get_relative_url(published.site_path, page.url),
                                                       "integrity": published.integrity}
                                      for published in self.tokenizer_files}
        part = self.parts.get(part_of(page.file.src_uri))
        if part is not None:
            context["notebook_url"] = get_relative_url(part.notebook.removesuffix(".ipynb") + "/", page.url)
        found = self.recorded.repository
        if found is None:
            return context
        path = f"{self._docs_path()}/{page.file.src_uri}"
        context["view_url"] = found.at_commit(path)
        if page.file.src_uri.endswith(".ipynb"):
            page.edit_url = None  # generated by `make record`: an edit by hand fails the build
            context["colab_url"] = found.colab(path)
        return context

    # Before the plugins that read the page (mkdocs-llmstxt converts it to Markdown): they must not
    # see a notebook's remote loaders, nor a page whose directives did not all render.
    @event_priority(50)
    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        try:
            if page.file.src_uri.endswith(".ipynb"):
                return notebook_page.without_remote_loaders(notebook_page.without_styles(html))
            prepared = self.pages.pop(page.file.src_uri, None)
            if prepared is not None:
                prepared.check()
        except PageError as error:
            raise PluginError(f"docs/{page.file.src_uri}: {error}") from None
        return html

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


def _pages_of(nav: Any, title: str = "") -> list[tuple[str, str]]:
    """(title, page) of each page `nav:` in mkdocs.yml names, in its order."""
    if isinstance(nav, str):
        return [(title, nav)]
    if isinstance(nav, dict):
        return [found for name, item in nav.items() for found in _pages_of(item, name)]
    return [found for item in nav for found in _pages_of(item)] if isinstance(nav, list) else []

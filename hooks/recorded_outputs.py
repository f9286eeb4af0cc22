"""MkDocs hook: embed recorded outputs in pages and refuse to build on any drift.

`mkdocs build` fails when a snippet changed since its output was recorded,
an output or a companion notebook was edited by hand or not regenerated, or a
page refers to something unrecorded. While
previewing (`mkdocs serve`) the site still builds and the stale blocks carry a
warning instead, so a writer can keep working without the model at hand.

Built where GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_SHA are set (GitHub
Actions), pages link back to their files in the repository at the built commit
(see recorder/repository.py); otherwise to the copies inside the site.
"""

from __future__ import annotations

import logging
import os
import posixpath
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from recorder import notebook, repository, store, unused_css
from recorder.compat_table import COMPAT_DIR
from recorder.directives import Directive, parse
from recorder.page_markdown import PageDirectives, PreparedPage, prepare
from recorder.pages import PageError, Recorded
from recorder.pinned import MANIFEST_NAME, OUTPUTS_DIR, SNIPPETS_DIR
from recorder.project import Project

log = logging.getLogger("mkdocs.hooks.recorded_outputs")
_previewing = False
_loaded: Project | None = None  # mkdocs.yml as the record step reads it
_recorded: Recorded | None = None
_extension = PageDirectives()
_parsed: dict[str, tuple[str, list[Directive]]] = {}  # page -> its text and its directives
_pages: dict[str, PreparedPage] = {}  # pages converted, until their conversion is checked


def _project() -> Project:
    assert _loaded is not None, "on_config runs first"
    return _loaded


def _docs_path(project: Project) -> str:
    """The pages' folder as the repository names it, e.g. "docs"."""
    return project.docs_dir.resolve().relative_to(project.root).as_posix()


def on_startup(command: str, dirty: bool) -> None:
    global _previewing
    _previewing = command == "serve"


def on_config(config: MkDocsConfig) -> None:
    global _loaded, _recorded
    _parsed.clear()
    try:
        project = _loaded = Project.from_config(config)
        manifest = store.read_manifest(project.root)
        problems = store.problems(project.root, entries=manifest)
        recorded = Recorded(project.root, manifest, project.recorded_values, {}, _repository(config, project))
        problems += notebook.problems(project, recorded, _parse)
    except store.RecordError as error:
        raise PluginError(str(error)) from None
    if problems and not _previewing:
        raise PluginError("recorded outputs are out of date:\n  " + "\n  ".join(p.message for p in problems))
    # Logged below WARNING: `--strict` counts warnings and would stop the preview.
    for problem in problems:
        log.info("stale output, shown with a warning: %s", problem.message)
    _recorded = replace(recorded, stale={p.snippet: p.message for p in problems})
    # Added here rather than listed in mkdocs.yml: the extension renders only what
    # on_page_markdown prepared for the page, so it means nothing without this hook.
    config.markdown_extensions.append(_extension)


def _parse(markdown: str, page: str) -> list[Directive]:
    """The page's directives, parsed once a build: the notebook check and the page's rendering share them."""
    parsed = _parsed.get(page)
    if parsed is None or parsed[0] != markdown:
        parsed = _parsed[page] = (markdown, parse(markdown, page))
    return parsed[1]


def _repository(config: MkDocsConfig, project: Project) -> repository.Repository | None:
    """The repository named by the environment, which also gives every page its edit link."""
    try:
        found = repository.from_environment(os.environ)
    except repository.RepositoryError as error:
        raise PluginError(str(error)) from None
    if found is None:
        if unset := repository.missing(os.environ):
            log.info("%s not set: pages link to the copies inside the site, not to the repository.",
                     ", ".join(unset))
        return None
    # Set here rather than with !ENV in mkdocs.yml: the URL joins two variables, which !ENV cannot.
    config.repo_url = found.url
    config.repo_name = found.name
    config.edit_uri = repository.edit_uri(_docs_path(project))
    return found


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Publish the snippet sources, so each output can link to the file that printed it,
    and the manifest, so tools can read every output's record."""
    root = _project().root
    for path in sorted((root / SNIPPETS_DIR).glob("*.py")):
        files.append(File.generated(config, f"{SNIPPETS_DIR}/{path.name}", abs_src_path=str(path)))
    manifest = root / OUTPUTS_DIR / MANIFEST_NAME
    if manifest.is_file():  # a preview may run before anything was recorded
        files.append(File.generated(config, f"{OUTPUTS_DIR}/{MANIFEST_NAME}", abs_src_path=str(manifest)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    # Notebook pages arrive here as JSON; only Markdown pages hold directives.
    if "{{" not in markdown or not page.file.src_uri.endswith(".md"):
        return markdown
    assert _recorded is not None, "on_config runs before any page"
    try:
        prepared = prepare(_parse(markdown, page.file.src_uri), _recorded, page.url)
    except PageError as error:
        raise PluginError(f"docs/{page.file.src_uri}: {error}") from None
    _extension.convert_next(prepared)  # MkDocs converts the page next
    _pages[page.file.src_uri] = prepared
    return markdown


def on_page_context(context: dict[str, Any], page: Page, config: MkDocsConfig,
                    nav: Navigation) -> dict[str, Any]:
    """The links the theme's overrides show: the page's file at the built commit, and Colab for a notebook."""
    assert _recorded is not None, "on_config runs before any page"
    found = _recorded.repository
    if found is None:
        return context
    path = f"{_docs_path(_project())}/{page.file.src_uri}"
    context["view_url"] = found.at_commit(path)
    if page.file.src_uri.endswith(".ipynb"):
        page.edit_url = None  # generated by `make record`: an edit by hand fails the build
        context["colab_url"] = found.colab(path)
    return context


# Before the plugins that read the page (mkdocs-llmstxt converts it to Markdown): they must not
# see a notebook's remote loaders, nor a page whose directives did not all render.
@event_priority(50)
def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri.endswith(".ipynb"):
        try:
            return notebook.without_remote_loaders(html)
        except PageError as error:
            raise PluginError(f"docs/{page.file.src_uri}: {error}") from None
    prepared = _pages.pop(page.file.src_uri, None)
    if prepared is None:
        return html
    try:
        prepared.check()
    except PageError as error:
        raise PluginError(f"docs/{page.file.src_uri}: {error}") from None
    return html


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """A notebook page keeps only the CSS it can use of the JupyterLab stylesheet mkdocs-jupyter inlines,
    and runs the scripts of its copy buttons last."""
    if not page.file.src_uri.endswith(".ipynb"):
        return output
    def read_stylesheet(href: str) -> str:
        # Theme files are in the site already: MkDocs copies them before it builds the pages.
        path = _site_file(Path(config.site_dir), page.url, href)
        try:
            return path.read_text(encoding="utf-8")
        except OSError as error:
            raise PluginError(f"docs/{page.file.src_uri}: cannot read the stylesheet it links, {href} "
                              f"({error.strerror}: {path}). Check extra_css in mkdocs.yml.") from None

    try:
        output = notebook.with_copy_scripts_last(output)
    except PageError as error:
        raise PluginError(f"docs/{page.file.src_uri}: {error}") from None
    return unused_css.without_unused_css(output, read_stylesheet)


def _site_file(site: Path, page_url: str, href: str) -> Path:
    """The file in the built site that a link on the page at `page_url` points to."""
    target = urlsplit(href).path
    if target.startswith("/"):
        return site / target.lstrip("/")
    return site / posixpath.normpath(posixpath.join(posixpath.dirname(page_url), target))


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder: Any) -> LiveReloadServer:
    root = _project().root
    for folder in (SNIPPETS_DIR, OUTPUTS_DIR, COMPAT_DIR):
        server.watch(str(root / folder))
    return server

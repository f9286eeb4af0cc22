"""The project as mkdocs.yml and its folders describe it: the plugin's options, and the parts of the series.

The options are MkDocs `config_options`, validated by MkDocs in a build; the record step reads
mkdocs.yml without loading any plugin (mkdocs-jupyter alone costs a second) and validates the same entry
with the same class. A part is a page `docs/<part>.md`, its folder `snippets/<part>/` and its line in `nav:`, which gives
its title and its place in the series; its companion notebook is `docs/notebooks/<part>.ipynb`, written
by `make record`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config import load_config
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.utils.yaml import get_yaml_loader, yaml_load

from recorder.errors import RecorderError
from recorder.pinned import SNIPPETS_DIR
from recorder.record import snippets

CONFIG_FILE = "mkdocs.yml"
PLUGIN = "recorded-outputs"  # the plugin's name under `plugins:`, its entry point
NOTEBOOKS_DIR = "notebooks"


class ProjectError(RecorderError):
    """mkdocs.yml or the folders of the parts say something the code cannot use."""


class _Versions(c.DictOfItems):
    """What was used (a package, the revision) with its version as a quoted string; at least one."""

    def __init__(self) -> None:
        super().__init__(c.Type(str))

    def run_validation(self, value: object) -> dict[str, str]:
        for package, version in (value.items() if isinstance(value, dict) else []):
            if not isinstance(version, str):  # YAML reads 5.10 as the number 5.1
                raise c.ValidationError(f"the version of `{package}` is {version!r}, a {type(version).__name__}, "
                                        f'not text: quote it as the article states it, e.g. {package}: "5.17.0"')
        if not (versions := super().run_validation(value)):
            raise c.ValidationError('name each package with its version, quoted, e.g. {transformers: "5.17.0"}')
        return versions


class PluginConfig(Config):
    """`- recorded-outputs:` under `plugins:` in mkdocs.yml."""

    # The title of the article whose outputs published/ holds, and what it states about the run behind each of them
    # (what: value, quoted), for the outputs it states it for: recorded with each output it attaches.
    published_article = c.Type(str)
    published_with = c.DictOfItems(_Versions(), default={})
    # The llms.txt section that lists the parts, after the pages mkdocs.yml names there.
    llms_section = c.Type(str, default="Series")


@dataclass(frozen=True)
class Part:
    name: str  # its folder in snippets/, e.g. "token-embeddings"
    page: str  # its page in docs/, e.g. "token-embeddings.md"
    title: str  # as the navigation names it, e.g. "Part 2: Token embeddings"

    @property
    def notebook(self) -> str:
        return f"{NOTEBOOKS_DIR}/{self.name}.ipynb"


@dataclass(frozen=True)
class Project:
    root: Path  # absolute, so that paths in messages work from anywhere
    config: MkDocsConfig
    options: PluginConfig

    @classmethod
    def load(cls, root: Path) -> Project:
        """The project in `root` as the record step reads it."""
        path = root.resolve() / CONFIG_FILE
        config = load_config(config_file=str(path), plugins=[])
        # The plugins' entries as written: `plugins=[]` kept MkDocs from loading them and their imports.
        with path.open("rb") as stream:
            raw = yaml_load(stream, loader=get_yaml_loader(config=config)).get("plugins") or []
        if isinstance(raw, dict):  # MkDocs also takes them as one mapping, name -> options
            raw = [{name: options} for name, options in raw.items()]
        entries = [entry for entry in raw if entry == PLUGIN or isinstance(entry, dict) and PLUGIN in entry]
        if not entries:
            raise ProjectError(f"{path.name} does not list the `{PLUGIN}` plugin under `plugins:`; the pages' "
                               f"directives and the record step both need it. Add `- {PLUGIN}:` with its options.")
        return cls(path.parent, config, validated(entries[0][PLUGIN] if isinstance(entries[0], dict) else {}))

    @property
    def docs_dir(self) -> Path:
        return Path(self.config.docs_dir)

    def snippet_settings(self) -> dict[str, Any]:
        """pymdownx.snippets' options in mkdocs.yml, its base paths taken from the project's folder, so that the
        pages' includes and the notebooks' cells read the same files wherever MkDocs runs."""
        settings = dict(self.config.mdx_configs.get("pymdownx.snippets", {}))
        bases = settings.get("base_path", ["."])
        settings["base_path"] = [str(self.root / base) for base in ([bases] if isinstance(bases, str) else bases)]
        return settings

    def parts(self) -> list[Part]:
        """Every folder of snippets/ with its page, in the navigation's order and named as it names them; a
        folder without a page or a line in `nav:` is an error."""
        titles = {page: title for title, page in pages_of(self.config.nav or [])}
        found = []
        for name in snippets.parts(self.root):
            page = f"{name}.md"
            if not (self.docs_dir / page).is_file():
                raise ProjectError(f"{SNIPPETS_DIR}/{name}/ has no page: a part is a page, a folder and a line in "
                                   f"`nav:`. Write docs/{page}, or move the folder's snippets into a part's folder.")
            if page not in titles:
                raise ProjectError(f"docs/{page} is not in `nav:` of {CONFIG_FILE}: a part is a page, a folder and "
                                   f'a line in `nav:`. Add `- "Part N: Title": {page}` there.')
            found.append(Part(name, page, titles[page]))
        order = list(titles)
        return sorted(found, key=lambda part: order.index(part.page))


def pages_of(nav: Any, title: str = "") -> list[tuple[str, str]]:
    """(title, page) of each page `nav:` in mkdocs.yml names, in its order."""
    if isinstance(nav, str):
        return [(title, nav)]
    if isinstance(nav, dict):
        return [found for name, item in nav.items() for found in pages_of(item, name)]
    return [found for item in nav for found in pages_of(item)] if isinstance(nav, list) else []


def validated(options: Any) -> PluginConfig:
    """The plugin's options checked as MkDocs checks them, an unknown one included (a warning, which
    `strict: true` makes an error); an error names mkdocs.yml and the option."""
    if not isinstance(options, dict | None):
        raise ProjectError(f"{CONFIG_FILE}: plugin `{PLUGIN}` takes its options as a mapping, "
                           f"`- {PLUGIN}:` followed by indented `name: value` lines.")
    plugin_config = PluginConfig(config_file_path=CONFIG_FILE)
    plugin_config.load_dict(options or {})
    errors, warnings = plugin_config.validate()
    if errors or warnings:
        raise ProjectError("\n".join(f"{CONFIG_FILE}: plugin `{PLUGIN}`, option `{name}`: {problem}"
                                     for name, problem in [*errors, *warnings]))
    return plugin_config

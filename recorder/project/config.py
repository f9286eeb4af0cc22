"""The project as its configuration file (mkdocs.yml) and its folders describe it: the record step's options, and the
parts of the series.

Read with plain YAML, engine-free: MkDocs and Zensical read the same file for themselves. A part is a page
`<docs_dir>/<part>.md`, its folder `snippets/<part>/` and its line in `nav:`, which gives its title and its place in
the series; its companion notebook is `<docs_dir>/notebooks/<part>.ipynb`, written by `make record`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from yaml_env_tag import construct_env_tag

from recorder.project.errors import RecorderError

CONFIG_FILE = "mkdocs.yml"
PLUGIN = "recorded-outputs"  # the plugin's name under `plugins:`, whose entry holds the record step's options
# The project's folders, from its root: the snippets, the article's outputs, and what a reader installs (the
# packages the snippets import, each pinned as NAME==VERSION).
SNIPPETS_DIR = "snippets"
PUBLISHED_DIR = "published"
COMPAT_DIR = "compat"  # the version table's results
REQUIREMENTS = "requirements.txt"
# In the docs folder: each part's notebook; and, git-ignored, the state and the copies the site serves.
NOTEBOOKS_DIR = "notebooks"
GENERATED = "generated"
# The options that state something of outputs taken from the article, by output.
_STATEMENTS = ("published_with", "published_in_prose")
# A page's front matter, as MkDocs and Zensical read it.
_FRONT_MATTER = re.compile(r"\A-{3}[ \t]*\n(.*?\n|)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)


class ProjectError(RecorderError):
    """The configuration file or the folders of the parts say something the code cannot use."""


# libyaml's parser where PyYAML was built with it: each build reads mkdocs.yml, and the pure-Python parser takes
# several times longer.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _ConfigLoader(_SafeLoader):
    """mkdocs.yml as both engines read it: `!ENV` resolved; Python tags, which only an engine runs, left as None."""


_ConfigLoader.add_constructor("!ENV", construct_env_tag)  # MkDocs' own
_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def part_names(root: Path) -> list[str]:
    """The folders of snippets/, each a part of the series."""
    return sorted(
        path.name for path in (root / SNIPPETS_DIR).iterdir() if path.is_dir() and not path.name.startswith((".", "_"))
    )


@dataclass(frozen=True)
class Options:
    """The record step's options: `- recorded-outputs:` under `plugins:`."""

    # The title of the article whose outputs published/ holds, and what it states about the run behind each of them
    # (what: value, quoted), for the outputs it states it for: recorded with each output it attaches.
    published_article: str = ""
    published_with: dict[str, dict[str, str]] = field(default_factory=dict)
    # The outputs the article states in a sentence instead of printing them: that sentence, quoted from it.
    published_in_prose: dict[str, str] = field(default_factory=dict)
    # The llms.txt section that lists the parts, after the pages the configuration names there.
    llms_section: str = "Series"

    def article(self, name: str) -> Statements:
        """What the configuration says of the output `name` taken from the article: the article's title, what it
        states of the run behind it, and the sentence it states the output in, where it does not print it."""
        return Statements(
            self.published_article, dict(self.published_with.get(name, {})), self.published_in_prose.get(name)
        )


class Statements(NamedTuple):
    title: str
    stated: dict[str, str]
    prose: str | None


@dataclass(frozen=True)
class Part:
    name: str  # its folder in snippets/, e.g. "token-embeddings"
    page: str  # its page in the docs folder, e.g. "token-embeddings.md"
    title: str  # as the navigation names it, e.g. "Part 2: Token embeddings"

    @property
    def notebook(self) -> str:
        return f"{NOTEBOOKS_DIR}/{self.name}.ipynb"


@dataclass(frozen=True)
class Project:
    root: Path  # absolute: the folder of the configuration file, so that paths in messages work from anywhere
    config_file: Path
    config: dict[str, Any]  # the configuration file as written, `!ENV` resolved
    options: Options

    @classmethod
    def load(cls, root: Path, config_file: Path | None = None) -> Project:
        """The project whose configuration is `config_file` (default: mkdocs.yml in `root`)."""
        path = (config_file or root / CONFIG_FILE).resolve()
        try:
            config = yaml.load(path.read_text(encoding="utf-8"), Loader=_ConfigLoader) or {}
        except FileNotFoundError:
            raise ProjectError(
                f"{path} does not exist. Build from the project's folder, or name its configuration with `-f`."
            ) from None
        except yaml.YAMLError as error:
            raise ProjectError(f"{path.name} is not valid YAML ({error}).") from None
        if not isinstance(config, dict):
            raise ProjectError(f"{path.name} must be a mapping of settings.")
        return cls(path.parent, path, config, validated(path.name, plugin_options(path.name, config), path.parent))

    @property
    def docs_dir(self) -> Path:
        return self.root / str(self.config.get("docs_dir", "docs"))

    @property
    def docs_path(self) -> str:
        """The docs folder as the repository and messages name it, from the project's folder: e.g. "docs"."""
        return self.docs_dir.relative_to(self.root).as_posix()

    @property
    def nav(self) -> list[Any]:
        return self.config.get("nav") or []

    def markdown_extensions(self) -> dict[str, dict[str, Any]]:
        """Each Markdown extension `markdown_extensions:` lists, in its order, with its options as written, but
        pymdownx.snippets' base paths: from the project's folder (`snippet_settings`)."""
        listed: dict[str, dict[str, Any]] = {}
        for entry in self.config.get("markdown_extensions") or []:
            for name, options in ({entry: None} if isinstance(entry, str) else entry).items():
                listed[name] = self._from_root(options or {}) if name == "pymdownx.snippets" else dict(options or {})
        return listed

    def snippet_settings(self) -> dict[str, Any]:
        """pymdownx.snippets' options, its base paths taken from the project's folder, so that the pages' includes and
        the notebooks' cells read the same files wherever the engine runs."""
        return self.markdown_extensions().get("pymdownx.snippets") or self._from_root({})

    def _from_root(self, settings: dict[str, Any]) -> dict[str, Any]:
        bases = settings.get("base_path", ["."])
        return {
            **settings,
            "base_path": [str(self.root / base) for base in ([bases] if isinstance(bases, str) else bases)],
        }

    def page(self, name: str) -> tuple[str, dict[str, Any]]:
        """A page of the docs folder: its Markdown without front matter, and its front matter (empty where it has none
        that YAML reads as a mapping)."""
        text = (self.docs_dir / name).read_text(encoding="utf-8")
        if not (match := _FRONT_MATTER.match(text)):
            return text, {}
        try:
            meta = yaml.safe_load(match.group(1))
        except yaml.YAMLError:
            return text, {}
        return (text[match.end() :], meta) if isinstance(meta, dict) else (text, {})

    def description(self, part: Part) -> str:
        """The `description` of the part's page, as its front matter gives it; "" where it gives none."""
        description = self.page(part.page)[1].get("description")
        return description.strip() if isinstance(description, str) else ""

    def parts(self) -> list[Part]:
        """Every folder of snippets/ with its page, in the navigation's order and named as it names them; a
        folder without a page or a line in `nav:` is an error."""
        titles = {page: title for title, page in pages_of(self.nav)}
        parts = []
        for name in part_names(self.root):
            page = f"{name}.md"
            if not (self.docs_dir / page).is_file():
                raise ProjectError(
                    f"{SNIPPETS_DIR}/{name}/ has no page: a part is a page, a folder and a line in "
                    f"`nav:`. Write {self.docs_path}/{page}, or move the folder's snippets into a part's folder."
                )
            if page not in titles:
                raise ProjectError(
                    f"{self.docs_path}/{page} is not in `nav:` of {self.config_file.name}: a part is a page, a "
                    f'folder and a line in `nav:`. Add `- "Part N: Title": {page}` there.'
                )
            parts.append(Part(name, page, titles[page]))
        return sorted(parts, key=lambda part: list(titles).index(part.page))


def pages_of(nav: Any, title: str = "") -> list[tuple[str, str]]:
    """(title, page) of each page `nav:` names, in its order."""
    if isinstance(nav, str):
        return [(title, nav)]
    if isinstance(nav, dict):
        return [entry for name, item in nav.items() for entry in pages_of(item, name)]
    return [entry for item in nav for entry in pages_of(item)] if isinstance(nav, list) else []


def plugin_options(config_name: str, config: dict[str, Any]) -> Any:
    """The plugin's entry under `plugins:`, as written."""
    entries = config.get("plugins") or []
    if isinstance(entries, dict):  # the engines also take them as one mapping, name -> options
        entries = [{name: options} for name, options in entries.items()]
    for entry in entries:
        if entry == PLUGIN:
            return {}
        if isinstance(entry, dict) and PLUGIN in entry:
            return entry[PLUGIN]
    raise ProjectError(
        f"{config_name} does not list the `{PLUGIN}` plugin under `plugins:`, which holds the record "
        f"step's options. Add `- {PLUGIN}:` with its options."
    )


def validated(config_name: str, written: Any, root: Path) -> Options:
    """The plugin's options, checked; an error names the configuration file, the option and the fix."""
    if not isinstance(written, dict | None):
        raise ProjectError(
            f"{config_name}: plugin `{PLUGIN}` takes its options as a mapping, "
            f"`- {PLUGIN}:` followed by indented `name: value` lines."
        )
    # `enabled` is the engine's own switch for every plugin; an option written with no entries, YAML reads as None.
    options = {name: value for name, value in (written or {}).items() if name != "enabled"}
    options |= {option: options.get(option) or {} for option in _STATEMENTS}
    if refused := _refused(options) or _unpublished(options, root):
        raise ProjectError(f"{config_name}: plugin `{PLUGIN}`, option `{refused[0]}`: {refused[1]}")
    return Options(**options)


def _refused(options: dict[str, Any]) -> tuple[str, str] | None:
    """The first option, in this order, that is unknown or not of its kind, with why; None if none is."""
    known = [option.name for option in fields(Options)]
    if unknown := sorted(set(options) - set(known)):
        return unknown[0], f"unknown option. Known: {', '.join(known)}."
    for option in ("published_article", "llms_section"):
        if not isinstance(options.get(option, ""), str):
            return option, f"expected text, not {type(options[option]).__name__}."
    if problem := _published_with_problem(options["published_with"]):
        return "published_with", problem
    sentences = options["published_in_prose"]
    if not isinstance(sentences, dict) or not all(isinstance(text, str) and text for text in sentences.values()):
        return "published_in_prose", (
            'expected a mapping of outputs to the sentence the article states each in, e.g. {PART/NAME: "..."}.'
        )
    return None


def _published_with_problem(stated: Any) -> str | None:
    """What is wrong with `published_with`: for each output, each package the article states it was run with, and
    its version, quoted."""
    if not isinstance(stated, dict):
        return "expected a mapping of outputs to what the article states for each."
    for output, versions in stated.items():
        if not isinstance(versions, dict) or not versions:
            return f'{output}: name each package with its version, quoted, e.g. {{transformers: "5.17.0"}}'
        for package, version in versions.items():
            if not isinstance(version, str):  # YAML reads 5.10 as the number 5.1
                return (
                    f"{output}: the version of `{package}` is {version!r}, a {type(version).__name__}, not text: "
                    f'quote it as the article states it, e.g. {package}: "5.17.0" (a value `!ENV` reads from a '
                    "variable is typed as MkDocs types it: write the version itself)"
                )
    return None


def _unpublished(options: dict[str, Any], root: Path) -> tuple[str, str] | None:
    """The first output the statements name that the article did not publish, in published/."""
    return next(
        (
            (
                option,
                f"names {name}, but {PUBLISHED_DIR}/{name}.txt does not exist. Name only outputs the article "
                "published.",
            )
            for option in _STATEMENTS
            for name in options[option]
            if not (root / PUBLISHED_DIR / f"{name}.txt").exists()
        ),
        None,
    )

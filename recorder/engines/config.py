"""What mkdocs.yml asks of the project, for MkDocs and Zensical alike: its state, and llms.txt's sections.

mkdocs.yml calls `checked` (the Markdown extension's `state` option) and `llms_sections` through YAML tags, which
both engines run each time they read the file, before any page: a state with problems stops the build there with
the project's message, and the state's digest, as an option of the extension, keeps an engine's cache of rendered
pages exactly as long as the state holds. Neither engine tells a tag which file it reads: `configuration_file` finds
it as both engines' command lines do, and MkDocs' plugin, which MkDocs hands the file, works the state out again
where the tag found another (recorder/engines/plugin.py).
"""

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from recorder.check import state
from recorder.check.state import State
from recorder.project.config import CONFIG_FILE, Project
from recorder.project.errors import RecorderError

_CHECKED: dict[str, tuple[Path, State]] = {}  # digest -> the configuration file whose state it is, and the state
# The file a build in this process reads (`reading`), where the command line does not say, and whether that build is a
# preview, which shows a state with problems.
_READING: list[tuple[Path, bool]] = []


class Unbuildable(state.Unbuildable, yaml.YAMLError):
    """A state with problems, raised while an engine reads its configuration: a YAML error too, so that
    the engine reports the message, not a traceback."""


@contextmanager
def reading(config_file: Path, *, preview: bool = False) -> Iterator[None]:
    """For a build this process runs itself (the preview): the configuration file it reads; in a preview, a state
    that cannot be built is shown, not refused."""
    _READING.append((config_file.resolve(), preview))
    try:
        yield
    finally:
        _READING.pop()


def configuration_file(argv: list[str] | None = None) -> Path:
    """The configuration file the engine running in this process reads: as both MkDocs' and Zensical's command lines
    take it, the one `-f` or `--config-file` names, else mkdocs.yml in the folder it runs in."""
    if _READING:
        return _READING[-1][0]
    arguments, named = iter(sys.argv[1:] if argv is None else argv), CONFIG_FILE
    for argument in arguments:
        if argument == "--":
            break
        option, value = _option(argument)
        if option in TAKES_A_VALUE:
            value = next(arguments, None) if value is None else value
            named = value if option in ("-f", "--config-file") and value else named
    return Path(named).resolve()


# The options of MkDocs' and Zensical's commands that take a value, which may look like an option itself (a test holds
# the set to the pinned engines' commands as click declares them).
TAKES_A_VALUE = {
    *("-a", "-b", "-d", "-f", "-m", "-p", "-r", "-t", "-w"),
    *("--config-file", "--dev-addr", "--message", "--projects-file", "--remote-branch", "--remote-name"),
    *("--site-dir", "--theme", "--watch"),
}


def _option(argument: str) -> tuple[str | None, str | None]:
    """The option of `argument` that takes a value, with the value it holds, as click reads a command line:
    `--name=VALUE`, or in a cluster of short options (`-sfFILE`) the first that takes one, with the rest."""
    if argument.startswith("--"):
        name, equals, value = argument.partition("=")
        return name, value if equals else None
    if not argument.startswith("-"):
        return None, None
    for position, letter in enumerate(argument[1:], start=2):
        if f"-{letter}" in TAKES_A_VALUE:
            return f"-{letter}", argument[position:] or None
    return None, None


def _project(path: Path) -> Project:
    # Under Zensical (whose package MkDocs never loads), pymdownx.snippets reads base_path from the folder it runs in.
    if "zensical" in sys.modules and Path.cwd().resolve() != path.parent:
        raise Unbuildable(
            f"Zensical reads the snippets from the folder it runs in, not from {path.name}'s: "
            f"run it from {path.parent}."
        )
    try:
        return Project.load(path.parent, path)
    except RecorderError as error:
        raise Unbuildable(str(error)) from None


def check(config_file: Path) -> tuple[Path, State]:
    """The configuration file and its state, once it has no problems, or in a preview; kept by its digest."""
    current = state.current(_project(config_file))
    if current.failure and not (_READING and _READING[-1][1]):
        raise Unbuildable(current.failure)
    _CHECKED[current.digest] = (config_file, current)
    return config_file, current


def checked() -> str:
    """Called by an engine from its configuration file: the state's digest, once it has no problems, or in a
    preview."""
    return check(configuration_file())[1].digest


def checked_as(digest: str) -> tuple[Path, State] | None:
    """The configuration file and the state whose digest `check` returned, in this process."""
    return _CHECKED.get(digest)


def llms_sections(listed: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Called by an engine from its configuration file: llms.txt's sections as it lists them, then each part's page,
    with its `description`, under the record step's `llms_section`, in the navigation's order."""
    project = _project(configuration_file())
    try:
        pages = {part.page: project.description(part) for part in project.parts()}
    except RecorderError as error:
        raise Unbuildable(str(error)) from None
    sections = {title: list(entries) for title, entries in (listed or {}).items()}
    return add_unlisted(sections, project.options.llms_section, pages)


def add_unlisted(sections: dict[str, list[Any]], title: str, described: dict[str, str]) -> dict[str, list[Any]]:
    """`sections`, with an entry under `title` for each page of `described` that no section names yet."""
    named = {
        next(iter(entry)) if isinstance(entry, dict) else entry for entries in sections.values() for entry in entries
    }
    sections.setdefault(title, []).extend({page: about} for page, about in described.items() if page not in named)
    return sections

"""The project's state: everything its pages show, worked out once from content, and whether it can be published.

`work_out` is the one judge: outputs that lag behind their snippets, notebooks that differ from what `make record`
writes, values no page quotes, and pages whose directives cannot be rendered. Every consumer reads its verdict through
`current`, which keeps the last state in `<docs_dir>/generated/state.json` under the digest of every input (the files,
the installed libraries, the repository's variables), so the same tree passes or fails the same way everywhere:
`recorder check`, `make site`, the pull-request job and both engines.

MkDocs and Zensical call `checked` from the configuration file (a YAML tag on the Markdown extension's `state`
option) each time they read it, before any page: an unpublishable state stops the build with the project's message,
and the digest it returns is part of the extension's options, so an engine's cache of rendered pages, and its live
reload, hold exactly as long as the state does. The copies a site publishes (the snippets, the manifest, the
tokenizer's files) are written into `<docs_dir>/generated/` beside it, where either engine publishes them as it
publishes any file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from recorder import repository
from recorder.errors import RecorderError
from recorder.pinned import GENERATED, MANIFEST_NAME, OUTPUTS_DIR, PUBLISHED_DIR, REQUIREMENTS, SNIPPETS_DIR
from recorder.record.project import NOTEBOOKS_DIR, Project

if TYPE_CHECKING:
    from recorder.recorded import Recorded

STATE_FILE = "state.json"
_SKIPPED = {".transaction", ".record.lock", "__pycache__"}
MKDOCS = "mkdocs"
_CHECKED: dict[str, tuple[Path, State]] = {}  # digest -> the configuration file whose state it is, and the state


class Unpublishable(RecorderError, yaml.YAMLError):
    """The state cannot be published; its message lists every problem with its fix. A YAML error too, so that an
    engine reading its configuration reports the message, not a traceback."""


@dataclass(frozen=True)
class State:
    digest: str
    problems: tuple[str, ...]  # each makes the state unpublishable
    notices: tuple[str, ...]  # said, never a failure: the version table's rows not yet checked
    copies: tuple[str, ...]  # the files written into generated/, from the docs folder
    stale: tuple[str, ...] = ()  # the snippets whose recorded outputs lag behind them, by name
    recordable: bool = False  # whether `make record` would fix one of the problems

    @property
    def failure(self) -> str | None:
        if not self.problems:
            return None
        return "the site cannot be built from this state:\n  " + "\n  ".join(self.problems)


def generated_dir(project: Project) -> Path:
    return project.docs_dir / GENERATED


def inputs(project: Project) -> list[Path]:
    """Every file the pages' state depends on, in a stable order; the generated folder is not one."""
    root, docs = project.root, project.docs_dir
    folders = [
        (root / SNIPPETS_DIR, "**/*"),
        (root / OUTPUTS_DIR, "**/*"),
        (root / PUBLISHED_DIR, "**/*"),
        (docs, "*.md"),
        (docs / NOTEBOOKS_DIR, "*.ipynb"),
        (root / "compat", "*.json"),
    ]
    found = [project.config_file, root / REQUIREMENTS]
    # The code that judges the state, and words what the pages say of it, is an input too.
    folders.append((Path(__file__).parent, "**/*.py"))
    for folder, pattern in folders:
        found += sorted(
            path
            for path in folder.glob(pattern)
            if path.is_file() and _SKIPPED.isdisjoint(path.relative_to(folder).parts)
        )
    return found


def digest(project: Project) -> str:
    """The content of every input, the libraries installed and the repository's variables, as one digest."""
    hashed = hashlib.sha256()
    for path in inputs(project):
        hashed.update(f"{path}\0{path.stat().st_size}\0".encode())
        hashed.update(path.read_bytes())
    environment = {
        "python": sys.version,
        "installed": installed(),
        "repository": repr(repository.from_environment(os.environ)),
    }
    hashed.update(json.dumps(environment, sort_keys=True).encode())
    return hashed.hexdigest()


def installed() -> list[str]:
    """Every distribution on sys.path, as its metadata folder names it: name and version, for every library a snippet
    runs with. Listing folders costs a build whose state is known far less than asking importlib.metadata."""
    return sorted(
        {
            name
            for folder in map(Path, sys.path)
            if folder.is_dir()
            for name in os.listdir(folder)
            if name.endswith(".dist-info")
        }
    )


def work_out(project: Project, content: str) -> State:
    """The state of the project whose inputs have digest `content`: every problem, every notice."""
    from recorder.render import compat_page  # as in _problems

    try:
        state = _problems(project, content)
    except RecorderError as error:  # the configuration or the manifest cannot be read: nothing else can
        state = State(content, (str(error),), (), ())
    return replace(state, notices=tuple(compat_page.notices(project.root)))


def _problems(project: Project, content: str) -> State:
    """Every problem, in one round: what to fix by hand (a part's description, a template, a page), then what `make
    record` rewrites (outputs, notebooks), each named once. A problem that only follows from another one is left
    out: a page quoting a value of a broken template, a missing output or a notebook that differs for a stale one."""
    # Imported here: a build whose state is already known reads none of them.
    from recorder.record import notebook, store
    from recorder.recorded import recorded

    shown = recorded(project, repository.from_environment(os.environ))
    outputs = store.stale_outputs(project.root, entries=shown.manifest, project=project)
    stale = {problem.snippet for problem in outputs} - {"*"}
    recorded_problems = outputs + notebook.stale_notebooks(project, shown, stale)
    said = [problem.message for problem in outputs] + list(map(store.missing_output, stale))
    problems = _by_hand(project, shown, said) + [problem.message for problem in recorded_problems]
    recordable = any(problem.recordable for problem in recorded_problems)
    return State(content, tuple(problems), (), (), tuple(sorted(stale)), recordable)


def _by_hand(project: Project, shown: Recorded, said: list[str]) -> list[str]:
    """What to fix by hand: a part's description, a template whose snippet is gone, a page; not what `said` says."""
    from recorder.render.conversion import pages_problems  # as in _problems
    from recorder.render.page import unused_values
    from recorder.values import templates

    orphaned = [template.orphaned for part in shown.parts for template in templates(project.root, part)]
    found = project.undescribed() + [message for message in orphaned if message]
    copies = {f"{GENERATED}/{name}" for name in published_files(project)}
    return found + pages_problems(project, shown, copies, {*found, *said}) + unused_values(project, shown)


def current(project: Project) -> State:
    """The state of the project as it is now: the one kept in generated/state.json if its inputs have not changed,
    else worked out anew and kept there, with the copies the site publishes."""
    content, kept = digest(project), generated_dir(project) / STATE_FILE
    state = _read_kept(kept)
    if state and state.digest == content and all((kept.parent / copy).is_file() for copy in state.copies):
        return state
    state = work_out(project, content)
    if not state.problems:
        state = replace(state, copies=write_copies(project))
    _write(kept, (json.dumps(asdict(state), indent=2) + "\n").encode())
    return state


def _read_kept(path: Path) -> State | None:
    """The state kept at `path`; None where there is none, or it cannot be read (it is then worked out anew)."""
    try:
        fields = json.loads(path.read_text(encoding="utf-8"))
        return State(**{key: tuple(value) if isinstance(value, list) else value for key, value in fields.items()})
    except (OSError, ValueError, TypeError):
        return None


def write_copies(project: Project) -> tuple[str, ...]:
    """Write what the site publishes beside its pages into generated/: each snippet's source (which each output
    links to), the manifest (for tools) and GPT-2's tokenizer files (for Part 1's "Try it" box). Returns their
    paths inside generated/."""
    folder = generated_dir(project)
    copies = {name: source for name, source in published_files(project).items() if source.is_file()}
    _remove_stale_copies(folder, keep=set(copies) | {STATE_FILE})
    for name, source in copies.items():
        _write(folder / name, source.read_bytes())
    return tuple(copies)


def published_files(project: Project) -> dict[str, Path]:
    """What the site publishes beside its pages, by its path inside generated/: the snippets, the manifest and the
    tokenizer's files."""
    from recorder.render.tokenizer_files import verified  # checks each file's pinned sha256

    root = project.root
    files = {
        path.relative_to(root).as_posix(): path
        for path in sorted((root / SNIPPETS_DIR).rglob("*.py"))
        if "__pycache__" not in path.parts
    }
    files[f"{OUTPUTS_DIR}/{MANIFEST_NAME}"] = root / OUTPUTS_DIR / MANIFEST_NAME
    files |= {published.site_path: published.source for published in verified()}
    return files


def _remove_stale_copies(folder: Path, keep: set[str]) -> None:
    """Delete the files of `folder` not named in `keep`, such as the copy of a snippet that is gone."""
    if not folder.is_dir():
        return
    for path in folder.rglob("*"):
        if path.is_file() and path.relative_to(folder).as_posix() not in keep:
            path.unlink()


def _write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` whole, and only when it differs: a live reload watching the folder sees no change
    where there is none."""
    from recorder.record.store import replace_file  # as work_out's imports: a known state writes nothing

    if not (path.is_file() and path.read_bytes() == data):
        replace_file(path, data)


def check(project: Project) -> State:
    """The current state; raises Unpublishable, listing every problem, unless it can be published."""
    state = current(project)
    if state.failure:
        raise Unpublishable(state.failure)
    return state


def checked(config_file: str | None = None) -> str:
    """Called by an engine from the configuration file it is reading: the state's digest, once it is publishable.

    Under MkDocs, an unpublishable state is left to its plugin, which stops the build as MkDocs stops one, so that
    its preview reports the message alone where it would print a traceback for an error in the configuration."""
    path, engine = (Path(config_file).resolve(), "") if config_file else _configuration_being_read()
    try:
        found = current(Project.load(path.parent, path))
    except RecorderError as error:
        raise Unpublishable(str(error)) from None
    if found.failure and engine != MKDOCS:
        raise Unpublishable(found.failure)
    _CHECKED[found.digest] = (path, found)
    return found.digest


def llms_sections(listed: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Called by an engine from the configuration file: llms.txt's sections as it lists them, then each part's page,
    with its `description`, under the record step's `llms_section`, in the navigation's order; and, under MkDocs,
    which shows each notebook as a page (mkdocs-jupyter), each part's notebook under Notebooks."""
    path, engine = _configuration_being_read()
    try:
        project = Project.load(path.parent, path)
        parts = project.parts()
    except RecorderError as error:
        raise Unpublishable(str(error)) from None
    sections = {title: list(entries) for title, entries in (listed or {}).items()}
    named = {_listed_page(entry) for entries in sections.values() for entry in entries}
    pages = {part.page: project.description(part) for part in parts}
    sections.setdefault(project.options.llms_section, []).extend(_unlisted(pages, named))
    if engine == MKDOCS:
        notebooks = {
            part.notebook: f"The examples of {part.title} as one notebook, with their outputs" for part in parts
        }
        sections.setdefault("Notebooks", []).extend(_unlisted(notebooks, named))
    return sections


def _unlisted(described: dict[str, str], named: set[str]) -> list[dict[str, str]]:
    """An llms.txt entry for each page of `described` that no section names yet."""
    return [{page: description} for page, description in described.items() if page not in named]


def _listed_page(entry: str | dict[str, str]) -> str:
    """The page an entry of an llms.txt section names: `page.md`, or `{page.md: description}`."""
    return next(iter(entry)) if isinstance(entry, dict) else entry


def checked_as(content: str) -> tuple[Path, State] | None:
    """The configuration file and the state whose digest `checked` returned as `content`, in this process."""
    return _CHECKED.get(content)


def _configuration_being_read() -> tuple[Path, str]:
    """The file whose YAML calls `checked`, and which engine reads it: MkDocs' loader is named after the file it
    reads; Zensical hands the file's path to its parser and the loader its text."""
    frame = sys._getframe(1)
    while frame is not None:
        loader = frame.f_locals.get("self")
        if isinstance(loader, yaml.Loader) and Path(str(loader.name)).is_file():
            return Path(str(loader.name)).resolve(), MKDOCS
        if frame.f_code.co_name == "parse_mkdocs_config" and "path" in frame.f_locals:
            path = Path(frame.f_locals["path"]).resolve()
            if Path.cwd().resolve() != path.parent:  # its pymdownx.snippets reads base_path from there
                raise Unpublishable(
                    f"Zensical reads the snippets from the folder it runs in, not from {path.name}'s: "
                    f"run it from {path.parent}."
                )
            return path, "zensical"
        frame = frame.f_back
    raise Unpublishable(
        "recorder.state.checked is called from the configuration file, by MkDocs or Zensical, "
        "which name the file; elsewhere, pass its path."
    )

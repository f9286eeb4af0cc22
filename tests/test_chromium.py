"""Which Chromium the browser tests, `make audit` and tools/first_ids.py drive, on machines other than Debian's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT
from tools.chromium import NoChromium, chromium


def program(folder: Path, name: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(
    ("on_path", "named", "found"),
    [
        (["chromium"], None, "bin/chromium"),  # Debian's
        (["chromium-browser"], None, "bin/chromium-browser"),  # Fedora's and Ubuntu's
        (["chromium-browser", "chromium"], None, "bin/chromium"),
        (["chromium"], "elsewhere/chrome", "elsewhere/chrome"),  # CHROMIUM first
    ],
)
def test_the_chromium_is_the_one_chromium_names_else_the_first_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, on_path: list[str], named: str | None, found: str
) -> None:
    for name in on_path:
        program(tmp_path / "bin", name)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    if named:
        monkeypatch.setenv("CHROMIUM", str(program(tmp_path / "elsewhere", "chrome")))
    else:
        monkeypatch.delenv("CHROMIUM", raising=False)
    assert chromium() == tmp_path / found


@pytest.mark.parametrize(
    ("named", "message"),
    [
        (None, "none of `chromium`, `chromium-browser` is on PATH. Install Chromium (Debian: `apt-get install"),
        ("missing/chrome", "missing/chrome, which is not a program. Name a Chromium or Chrome executable."),
        ("bin", "bin, which is not a program."),
    ],
)
def test_no_chromium_is_named_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str | None, message: str
) -> None:
    program(tmp_path / "bin", "chromium")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    if named:
        monkeypatch.setenv("CHROMIUM", str(tmp_path / named))
    else:
        monkeypatch.delenv("CHROMIUM", raising=False)
    with pytest.raises(NoChromium) as raised:
        chromium()
    assert message in str(raised.value)


def test_the_makefile_s_lookup_fails_with_the_message_and_prints_the_path_once_found(tmp_path: Path) -> None:
    """`make audit` takes the path `python -m tools.chromium` prints, and stops where it prints none."""
    command = [sys.executable, "-m", "tools.chromium"]
    missing = subprocess.run(command, cwd=ROOT, env={"PATH": str(tmp_path)}, capture_output=True, text=True)
    assert (missing.returncode, missing.stdout) == (1, "")
    assert "No Chromium found" in missing.stderr
    chrome = program(tmp_path / "bin", "chromium-browser")
    found = subprocess.run(command, cwd=ROOT, env={"PATH": str(chrome.parent)}, capture_output=True, text=True)
    assert (found.returncode, found.stdout) == (0, f"{chrome}\n")

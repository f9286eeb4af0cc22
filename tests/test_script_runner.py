"""tests/script_runner.py runs a script as a fresh `python PATH` would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import ROOT

SCRIPTS = {
    "where.py": "import sys\nfrom sibling import VALUE\n"
    "print(__name__, sys.argv, sys.path[0], VALUE, 'script_runner' in sys.modules)\n",
    "sibling.py": "VALUE = 'fresh'\n",
    "changes.py": "import sibling\nsibling.VALUE = 'changed'\nprint(sibling.VALUE)\n",
    "exits.py": "import sys\nprint('before')\nsys.exit(3)\n",
    "raises.py": "raise ValueError('from the script')\n",
    "imports_json.py": "from json import dumps\nprint(dumps([1]))\n",
}


@pytest.fixture
def scripts(tmp_path: Path) -> Path:
    for name, text in SCRIPTS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("name", ["where.py", "exits.py", "raises.py", "imports_json.py"])
def test_a_script_exits_and_prints_as_under_its_own_interpreter(scripts: Path, name: str, run) -> None:
    alone = run("python", name, cwd=scripts)
    forked = json.loads(run("python", str(ROOT / "tests" / "script_runner.py"), name, cwd=scripts).stdout)[name]
    assert (forked["returncode"], forked["stdout"]) == (alone.returncode, alone.stdout)
    assert forked["stderr"].splitlines()[-1:] == alone.stderr.splitlines()[-1:]


def test_each_script_gets_its_own_copy_of_the_modules_it_imports_from_its_folder(scripts: Path, run) -> None:
    result = run("python", str(ROOT / "tests" / "script_runner.py"), "changes.py", "where.py", cwd=scripts)
    runs = json.loads(result.stdout)
    assert runs["changes.py"]["stdout"] == "changed\n"
    assert runs["where.py"]["stdout"].split()[-2:] == ["fresh", "False"]

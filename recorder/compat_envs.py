"""One virtual environment per transformers release for `make compat`, built once and reused.

Each holds what a reader installs to run the snippets: the packages they
import, pinned as in requirements.txt, except transformers at the release
under test (pip picks the tokenizers, huggingface_hub and safetensors that
release asks for). A marker file written last records what was installed, so
an environment is reused while it matches and rebuilt when it does not or
when its install was interrupted.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path

from packaging.utils import canonicalize_name

from recorder.compat_table import CompatError
from recorder.snippets import REQUIREMENTS, pins

MODEL_LIBRARY = "transformers"

ENVS_DIR = ".compat"  # git-ignored
MARKER = "compat-installed.json"


def pinned_release(root: Path) -> str:
    """The transformers release requirements.txt pins: the one the site's outputs were recorded with."""
    pin = pins(root).get(MODEL_LIBRARY)
    if pin is None:
        raise CompatError(f"{REQUIREMENTS} does not pin {MODEL_LIBRARY}. Pin it as {MODEL_LIBRARY}==VERSION.")
    return pin.partition("==")[2]


def requirements(root: Path, modules: Iterable[str], release: str) -> list[str]:
    """What to install for snippets importing `modules`: their pins, with transformers at `release`."""
    pinned = pins(root)
    wanted = set()
    for module in sorted(set(modules) - sys.stdlib_module_names):
        if module == MODEL_LIBRARY:
            wanted.add(f"{MODEL_LIBRARY}=={release}")
            continue
        # Most packages are named like their module; the map of every installed package is slow.
        names = [module] if canonicalize_name(module) in pinned else metadata.packages_distributions().get(module, [module])
        found = [pinned[canonicalize_name(name)] for name in names if canonicalize_name(name) in pinned]
        if not found:
            raise CompatError(f"a snippet imports `{module}`, which {REQUIREMENTS} does not pin. "
                              "Pin the package that provides it there as NAME==VERSION.")
        wanted.update(found)
    return sorted(wanted, key=str.lower)


def env_dir(root: Path, release: str) -> Path:
    return root / ENVS_DIR / f"venv-{release}"


def prepare(root: Path, release: str, wanted: list[str], report: Callable[[str], None]) -> Path:
    """The Python of an environment holding exactly `wanted`, built unless one already does."""
    folder = env_dir(root, release)
    python = folder / "bin" / "python"
    marker = folder / MARKER
    expected = {"python": sys.version, "installed": wanted}
    shown = folder.relative_to(root)
    if marker.exists() and json.loads(marker.read_text(encoding="utf-8")) == expected:
        report(f"reusing {shown} ({' '.join(wanted)})")
        return python
    report(f"creating {shown}: pip install {' '.join(wanted)}")
    shutil.rmtree(folder, ignore_errors=True)
    steps = [[sys.executable, "-m", "venv", str(folder)],
             [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *wanted]]
    for step in steps:
        if subprocess.run(step, check=False).returncode != 0:
            raise CompatError(f"could not create {shown} (`{' '.join(step[1:4])} ...` failed; its output is "
                              f"above). Check that pip can install {' '.join(wanted)} here, then run "
                              "`make compat` again.")
    marker.write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
    return python

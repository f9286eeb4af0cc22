"""One virtual environment per transformers release for `make compat`, made with uv and reused.

Each holds what a reader installs to run the snippets: the packages they import, pinned as in
requirements.txt, except transformers at the release under test and the libraries it depends on
(uv picks the tokenizers, huggingface_hub and safetensors that release asks for, even for a snippet
that imports one of them itself: transformers 4.x asks for a huggingface_hub older than 1.0). All of them share one uv cache in
.compat/, so a package is downloaded once. A file written after the install says what was asked
for: an environment is reused while it matches, and made anew when it does not or when its install
was interrupted.
"""

from __future__ import annotations

import ast
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
# Libraries whose version each transformers release chooses: installed unpinned beside it.
RELEASE_CHOOSES = frozenset({"tokenizers", "huggingface-hub", "safetensors"})

ENVS_DIR = ".compat"  # git-ignored
MARKER = "compat-installed.json"


def pinned_release(root: Path) -> str:
    """The transformers release requirements.txt pins: the one the site's outputs were recorded with."""
    if (pin := pins(root).get(MODEL_LIBRARY)) is None:
        raise CompatError(f"{REQUIREMENTS} does not pin {MODEL_LIBRARY}. Pin it as {MODEL_LIBRARY}==VERSION.")
    return pin.partition("==")[2]


def requirements(root: Path, modules: Iterable[str], release: str) -> list[str]:
    """What to install for snippets importing `modules`: their pins, with transformers at `release` and
    the libraries it depends on (RELEASE_CHOOSES) at whichever version that release asks for."""
    pinned, wanted = pins(root), set()
    for module in sorted(set(modules) - sys.stdlib_module_names):
        # Most packages are named like their module; the map of every installed package is slow.
        names = [module] if canonicalize_name(module) in pinned else metadata.packages_distributions().get(module, [])
        found = [pinned[canonicalize_name(name)] for name in names if canonicalize_name(name) in pinned]
        if not found:
            raise CompatError(f"a snippet imports `{module}`, which {REQUIREMENTS} does not pin. "
                              "Pin the package that provides it there as NAME==VERSION.")
        name = found[0].partition("==")[0]
        if module == MODEL_LIBRARY:
            wanted.add(f"{MODEL_LIBRARY}=={release}")
        else:
            wanted.add(name if canonicalize_name(name) in RELEASE_CHOOSES else found[0])
    return sorted(wanted, key=str.lower)


def pip_find_links() -> list[str]:
    """Where pip is told to find packages besides its index (say, a CPU build of torch); uv reads no pip setting."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                            check=False).stdout.splitlines()
    return list(dict.fromkeys(link for line in listed if line.partition("=")[0].endswith(".find-links")
                              for link in ast.literal_eval(line.partition("=")[2]).split()))


def prepare(root: Path, release: str, wanted: list[str], report: Callable[[str], None]) -> Path:
    """The Python of an environment made for `wanted`, made unless there is one already."""
    folder = root / ENVS_DIR / f"venv-{release}"
    expected = {"python": sys.version, "installed": wanted}
    shown = folder.relative_to(root)
    if (folder / MARKER).exists() and json.loads((folder / MARKER).read_text(encoding="utf-8")) == expected:
        report(f"reusing {shown} ({' '.join(wanted)})")
        return folder / "bin" / "python"
    report(f"creating {shown}: uv pip install {' '.join(wanted)}")
    shutil.rmtree(folder, ignore_errors=True)
    uv = [sys.executable, "-m", "uv", "--quiet", "--cache-dir", str(root / ENVS_DIR / "uv-cache")]
    find_links = [option for link in pip_find_links() for option in ("--find-links", link)]
    for step in ([*uv, "venv", "--python", sys.executable, str(folder)],
                 [*uv, "pip", "install", "--python", str(folder / "bin" / "python"), *find_links, *wanted]):
        if subprocess.run(step, check=False).returncode != 0:
            raise CompatError(f"could not create {shown} (`uv {step[6]}` failed; its output is above). "
                              f"Check that uv can install {' '.join(wanted)} here, then run `make compat` again.")
    (folder / MARKER).write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
    return folder / "bin" / "python"

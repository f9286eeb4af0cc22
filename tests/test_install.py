"""`make venv` takes torch's CPU build wherever it installs: from PyTorch's CPU index (here a stand-in on
loopback, as a GitHub runner or a newcomer's laptop would reach the real one), or from pip's find-links
where a machine keeps the CPU build there. PyPI's torch for Linux is a CUDA build of several GB.

The stand-ins serve wheels that hold nothing, named like the CPU build (`torch-2.13.0+cpu`) and like PyPI's
(`torch-2.13.0`): what is tested is which build uv picks and where it looks, not torch itself."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

from support import ROOT

TORCH_PIN = "torch==2.13.0"


def torch_wheel(folder: Path, version: str) -> Path:
    """A wheel of torch `version` with no code, byte for byte the same each time (uv caches wheels by hash)."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"torch-{version}.dist-info"
    files = {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/RECORD": "",
    }
    wheel = folder / f"torch-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), text)
    return wheel


def listing(folder: Path, wheel: Path, href: str) -> None:
    """`folder/index.html` linking to `wheel` at `href`, as a package's page of a simple index does."""
    folder.mkdir(parents=True)
    (folder / "index.html").write_text(f'<html><body><a href="{href}">{wheel.name}</a></body></html>\n')


class Requests(http.server.SimpleHTTPRequestHandler):
    seen: list[str]

    def log_message(self, format: str, *args: object) -> None:
        self.seen.append(self.path)


@dataclass
class Indexes:
    pypi: str  # stands in for PyPI: torch 2.13.0 without a local label, as PyPI serves its CUDA build
    cpu: str  # stands in for PyTorch's CPU index: torch 2.13.0+cpu, listed at `<cpu>/torch/`
    seen: list[str]  # the paths requested from either


@pytest.fixture
def indexes(tmp_path: Path) -> Iterator[Indexes]:
    root = tmp_path / "indexes"
    cpu = torch_wheel(root / "whl", "2.13.0+cpu")
    listing(root / "whl" / "cpu" / "torch", cpu, f"/whl/{quote(cpu.name)}")
    pypi = torch_wheel(root / "packages", "2.13.0")
    listing(root / "simple" / "torch", pypi, f"/packages/{pypi.name}")
    seen: list[str] = []
    handler = functools.partial(type("Handler", (Requests,), {"seen": seen}), directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield Indexes(f"{address}/simple", f"{address}/whl/cpu", seen)
    finally:
        server.shutdown()
        server.server_close()


def make_venv(folder: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], str | None]:
    """`make venv` in a project of the Makefile and two pins (uv's and torch's), with pip's and uv's settings
    replaced by `env`; returns the run and the version of torch it installed."""
    folder.mkdir()
    shutil.copy2(ROOT / "Makefile", folder)
    uv_pin = re.search(r"^uv==\S+", (ROOT / "requirements.txt").read_text(), re.M)
    assert uv_pin, "requirements.txt pins uv"
    (folder / "requirements.txt").write_text(f"{uv_pin.group()}\n{TORCH_PIN}\n")
    (folder / "pyproject.toml").write_text("")
    base = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("PIP_", "UV_")) and name not in ("VIRTUAL_ENV", "MAKEFLAGS", "MFLAGS")
    }
    ran = subprocess.run(
        ["make", "venv", f"PYTHON={sys.executable}"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**base, "PIP_CONFIG_FILE": os.devnull, **env},
        timeout=300,
        check=False,
    )
    installed = [path.name for path in folder.glob(".venv/lib/python*/site-packages/torch-*.dist-info")]
    return ran, installed[0].removeprefix("torch-").removesuffix(".dist-info") if installed else None


@pytest.mark.slow
def test_without_find_links_torch_comes_from_pytorch_s_cpu_index(tmp_path: Path, indexes: Indexes) -> None:
    ran, torch = make_venv(tmp_path / "project", UV_INDEX_URL=indexes.pypi, TORCH_INDEX=indexes.cpu)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert torch == "2.13.0+cpu", "PyPI's build (CUDA) instead of the CPU index's"
    assert "/whl/cpu/torch/" in indexes.seen and "/whl/torch-2.13.0%2Bcpu-py3-none-any.whl" in indexes.seen


@pytest.mark.slow
def test_pip_s_find_links_are_handed_to_uv_instead_of_the_index(tmp_path: Path, indexes: Indexes) -> None:
    wheels = torch_wheel(tmp_path / "wheels", "2.13.0+cpu").parent
    ran, torch = make_venv(
        tmp_path / "project", UV_INDEX_URL=indexes.pypi, PIP_FIND_LINKS=str(wheels), TORCH_INDEX=indexes.cpu
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert torch == "2.13.0+cpu"
    assert not [path for path in indexes.seen if path.startswith("/whl/")], "the CPU index was not needed"


@pytest.mark.slow
def test_with_no_index_for_torch_uv_takes_pypi_s_build(tmp_path: Path, indexes: Indexes) -> None:
    ran, torch = make_venv(tmp_path / "project", UV_INDEX_URL=indexes.pypi, TORCH_INDEX="")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert torch == "2.13.0", "TORCH_INDEX= opts out of the CPU index"

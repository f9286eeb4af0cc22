"""Reaching the hub fails fast offline and is detected when something answers."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from recorder.project.errors import RecorderError
from recorder.record import hub


def test_a_listening_endpoint_counts_as_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.getsockname()[1]}")
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        assert hub.hub_reachable()


def test_a_closed_port_is_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert not hub.hub_reachable()


def test_hf_hub_offline_is_respected_without_probing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(socket, "create_connection", pytest.fail)
    assert not hub.hub_reachable()


def test_snapshot_with_other_weights_is_refused(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"not GPT-2")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(RecorderError, match="not the pinned GPT-2 weights"):
        hub.digests(tmp_path, pinned=True)


# Each a set of variables that name the Hugging Face cache, as readers set them.
CACHE_SETTINGS = [
    {},
    {"XDG_CACHE_HOME": "/xdg"},
    {"HF_HOME": "~/hf-home"},
    {"HUGGINGFACE_HUB_CACHE": "/legacy-hub"},
    {"HF_HOME": "/home-set", "HUGGINGFACE_HUB_CACHE": "$HOME/legacy"},
    {"HF_HUB_CACHE": "/hub", "HUGGINGFACE_HUB_CACHE": "/legacy-hub", "HF_HOME": "/home-set"},
]
COMPARE = """
import importlib, json, os, sys
from huggingface_hub import constants
from recorder.record import hub
for setting in json.loads(sys.argv[1]):
    for name in ("XDG_CACHE_HOME", "HF_HOME", "HUGGINGFACE_HUB_CACHE", "HF_HUB_CACHE"):
        os.environ.pop(name, None)
    os.environ.update(setting)
    print(json.dumps([importlib.reload(constants).HF_HUB_CACHE, str(hub.hub_cache())]))
"""


def test_the_cache_is_where_huggingface_hub_looks_for_it() -> None:
    """Judged without importing huggingface_hub, the cache is the one it reads, for each way of naming it."""
    ran = subprocess.run(
        [sys.executable, "-c", COMPARE, json.dumps(CACHE_SETTINGS)], capture_output=True, text=True, check=True
    )
    pairs = [json.loads(line) for line in ran.stdout.splitlines()]
    assert len(pairs) == len(CACHE_SETTINGS)
    for setting, (theirs, ours) in zip(CACHE_SETTINGS, pairs, strict=True):
        assert ours == theirs, setting

"""Reaching the hub fails fast offline and is detected when something answers."""

from __future__ import annotations

import socket
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

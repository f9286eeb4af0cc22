"""The record step downloading GPT-2: from a stand-in hub on 127.0.0.1, into an empty cache.

The stand-in serves the stand-in checkpoint at the pinned revision to the
unmodified huggingface_hub and transformers, reached through HF_ENDPOINT with
no HF_HUB_OFFLINE. The child process refuses any connection to another host.
A hub that lacks the revision, a connection that breaks in the middle of the
weights every time, or a hub that never answers, must be reported as such,
quickly, losing nothing.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from recorder.project.gpt2 import MODEL_ID, REVISION, WEIGHTS_FILE, short, snapshot_dir
from recorder.project.manifest import Origin
from recorder.project.snippets import Snippet, discover
from recorder.record.hub import PROBE_SECONDS, SILENT_SECONDS, DownloadFailed
from recorder.record.runner import run_one
from stand_in_hub import Snapshot, StandInHub
from support import ROOT, snapshot

# Runs `python -m recorder record` refusing connections beyond 127.0.0.1, after setting what its
# arguments say of recorder.record.hub, as only tests do (`RETRIES=2`: fewer restarts of a broken download).
RECORD_ON_LOOPBACK = """
import socket, sys

def loopback_only(event, args):
    if event == "socket.connect" and args[0].family in (socket.AF_INET, socket.AF_INET6) \\
            and args[1][0] not in ("127.0.0.1", "::1"):
        print(f"connection outside 127.0.0.1: {args[1]}", file=sys.stderr)
        raise ConnectionRefusedError(f"{args[1]} is not 127.0.0.1")

sys.addaudithook(loopback_only)
from recorder.__main__ import main
from recorder.record import hub

for setting in sys.argv[1:]:
    name, value = setting.split("=")
    setattr(hub, name, type(getattr(hub, name))(value))
sys.exit(main(["record"]))
"""
# Well below the 300 s a snippet may take: a download that hangs fails the test.
SECONDS = 120
# What the record step may take against a hub that never answers (huggingface_hub alone waits over six minutes).
SILENT_HUB_SECONDS = 60
# The waits in the tests' children: huggingface_hub's for an answer to a request for metadata, a second, and the
# watch's silence, long enough for huggingface_hub's first request (its registry of agents, given 3 s of its own)
# and for the retries of the metadata's after its first pause (1 s), not after its next (2 s).
SHORT_ANSWER_WAIT = {"HF_HUB_ETAG_TIMEOUT": "1"}
SHORT_SILENCE = "SILENT_SECONDS=7"
# Restarts of a download that gets no further, in the tests' children: each costs huggingface_hub's 1 s pause.
RETRIES = 2


@pytest.fixture(scope="session")
def served(stand_in_cache: Path) -> Snapshot:
    return Snapshot.of(snapshot_dir(stand_in_cache))


@pytest.fixture
def stand_in_hub(served: Snapshot) -> Iterator[StandInHub]:
    with StandInHub(served) as hub:
        yield hub


@pytest.fixture
def hf_home(tmp_path: Path) -> Path:
    """An HF_HOME whose cache holds nothing yet."""
    home = tmp_path / "hf-home"
    home.mkdir()
    return home


def record_online(
    run,
    project: Path,
    hub: StandInHub,
    hf_home: Path,
    *settings: str,
    seconds: float = SECONDS,
    library_settings: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    hub_settings = ("HF_", "HUGGINGFACE_", "TRANSFORMERS_")
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(hub_settings) and "proxy" not in name.lower()
    }
    env |= {"HF_ENDPOINT": hub.url, "HF_HOME": str(hf_home), "NO_MKDOCS_2_WARNING": "1", **(library_settings or {})}
    result = run("python", "-c", RECORD_ON_LOOPBACK, *settings, cwd=project, env=env, timeout=seconds)
    assert "connection outside 127.0.0.1" not in result.stderr
    return result


def committed(project: Path) -> dict[str, bytes]:
    """What the record step writes: the outputs and the companion notebooks."""
    return {
        f"{folder}/{name}": data
        for folder in ("outputs", "docs/notebooks")
        for name, data in snapshot(project / folder).items()
    }


def downloaded(hf_home: Path) -> Path:
    return hf_home / "hub" / f"models--{MODEL_ID}" / "snapshots" / REVISION / WEIGHTS_FILE


def failed(result: subprocess.CompletedProcess[str], *phrases: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    for phrase in phrases:
        assert phrase in result.stderr, f"{phrase!r} not in:\n{result.stderr}"
    assert "raised an error" not in result.stderr and "Fix the snippet" not in result.stderr


def test_a_hub_without_the_pinned_revision_is_named_as_the_cause(
    run, project: Path, stand_in_hub: StandInHub, hf_home: Path
) -> None:
    stand_in_hub.mode = "revision-missing"
    before = committed(project)
    result = record_online(run, project, stand_in_hub, hf_home)

    failed(
        result,
        f"error: the hub at {stand_in_hub.url} has no revision {REVISION} of {MODEL_ID}.",
        "Check the revision pinned in recorder/project/gpt2.py",
    )
    assert stand_in_hub.asked_for("HEAD", "config.json") == 1
    assert stand_in_hub.asked_for("GET", WEIGHTS_FILE) == 0
    assert committed(project) == before


def test_the_waits_on_a_hub_that_never_answers_add_up_to_less_than_a_minute() -> None:
    """Such a hub is asked for metadata (HEAD), and first for huggingface_hub's registry of agents (3 s). After the
    probe, the last request the watch lets through leaves just before SILENT_SECONDS, waits HF_HUB_ETAG_TIMEOUT at most
    (huggingface_hub's setting, to which the watch holds its retries too), then huggingface_hub pauses its longest
    backoff at most before the next, refused."""
    from huggingface_hub import constants
    from huggingface_hub.utils import http_backoff

    longest_pause = inspect.signature(http_backoff).parameters["max_wait_time"].default
    worst = PROBE_SECONDS + SILENT_SECONDS + constants.HF_HUB_ETAG_TIMEOUT + longest_pause
    assert worst < SILENT_HUB_SECONDS


def test_a_hub_that_never_answers_is_named_within_a_minute(run, project: Path, tmp_path: Path, hf_home: Path) -> None:
    """It accepts every connection and reads the request, then says nothing (so it needs no files to serve).

    With shorter waits: the test above adds up the real ones."""
    before = committed(project)
    with StandInHub(Snapshot(tmp_path, {}), mode="silent") as silent:
        started = time.monotonic()
        result = record_online(
            run, project, silent, hf_home, SHORT_SILENCE, seconds=SILENT_HUB_SECONDS, library_settings=SHORT_ANSWER_WAIT
        )
        seconds = time.monotonic() - started

    assert seconds < SILENT_HUB_SECONDS
    failed(
        result,
        f"error: downloading config.json of {MODEL_ID}@{short()} from {silent.url} failed: "
        f"the hub at {silent.url} sent no answer in",
        "If HF_ENDPOINT is set, check that the hub it names is up. Check the network and run `make record` again.",
    )
    assert silent.asked_for("HEAD", "config.json") >= 2  # it did wait for an answer, more than once
    assert silent.asked_for("GET", WEIGHTS_FILE) == 0
    assert committed(project) == before


@pytest.mark.slow
def test_a_connection_that_breaks_in_the_weights_fails_fast_and_the_next_run_downloads_them_runs_and_refuses(
    run, project: Path, stand_in_hub: StandInHub, hf_home: Path
) -> None:
    """Every GET of the weights breaks after a part of it: the download stops after a few attempts, never at the
    snippet timeout, leaving nothing behind. Then, the hub healthy, the weights download once, the model snippets
    run on them, and, not GPT-2's, they are refused: nothing is recorded.

    Where the weights are the pinned ones, once cached, tests/test_record_with_model.py records with them."""
    stand_in_hub.mode = "drops-weights"
    before = committed(project)
    result = record_online(run, project, stand_in_hub, hf_home, f"RETRIES={RETRIES}")

    failed(
        result,
        f"error: downloading {WEIGHTS_FILE} of {MODEL_ID}@{short()} from {stand_in_hub.url} failed: "
        "the connection broke",
        "the last time: RemoteProtocolError: peer closed connection",
        "Check the network and run `make record` again.",
    )
    broken = stand_in_hub.asked_for("GET", WEIGHTS_FILE)
    assert 1 < broken <= RETRIES + 2
    assert not downloaded(hf_home).exists() and not list(hf_home.rglob("*.incomplete"))
    assert committed(project) == before

    stand_in_hub.mode = "healthy"
    again = record_online(run, project, stand_in_hub, hf_home)

    failed(
        again,
        f"{downloaded(hf_home)} has sha256 {stand_in_hub.snapshot.etags[WEIGHTS_FILE]}",
        "not the pinned GPT-2 weights",
        "is never recorded",
        "run `make record` with network access",
    )
    assert f"downloading {WEIGHTS_FILE} of {MODEL_ID}@{short()} from {stand_in_hub.url}" in again.stdout
    model_snippets = [name for name, snippet in discover(ROOT).items() if snippet.runs_on is Origin.WEIGHTS]
    assert f"snippets/{model_snippets[0]}.py" in again.stdout  # the model snippets ran on the download
    assert stand_in_hub.asked_for("GET", WEIGHTS_FILE) == broken + 1
    assert committed(project) == before


def test_a_hub_error_inside_a_snippet_is_not_blamed_on_the_snippet(tmp_path: Path) -> None:
    """As transformers does, the snippet wraps the network's error in its own."""
    path = tmp_path / "snippets" / "part" / "loads.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "import httpx\n\ntry:\n    raise httpx.ConnectError('[Errno 111] Connection refused')\n"
        "except httpx.ConnectError as error:\n"
        '    raise OSError("We couldn\'t connect to the hub to load this file") from error\n'
    )
    with pytest.raises(DownloadFailed) as raised:
        run_one(Snippet("part/loads", path, (path,), frozenset({"httpx"}), Origin.NO_MODEL), tmp_path, timeout=30)
    message = str(raised.value)
    assert message.startswith("snippets/part/loads.py could not get the model's files ")
    assert (
        "OSError: We couldn't connect to the hub to load this file, "
        "caused by ConnectError: [Errno 111] Connection refused"
    ) in message
    assert "not the snippet's code" in message and "run `make record` again" in message


@pytest.mark.parametrize("runs_on", [Origin.TOKENIZER, Origin.WEIGHTS])
def test_offline_a_snippet_loading_a_file_the_cache_lacks_is_told_what_a_tokenizer_can_count_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runs_on: Origin
) -> None:
    """As AutoTokenizer fails offline, since it also reads config.json: only vocab.json and merges.txt are
    there for a snippet that loads only the tokenizer, and the fix says how to load it from them."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    path = tmp_path / "snippets" / "part" / "loads.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "from huggingface_hub.errors import LocalEntryNotFoundError\n\ntry:\n"
        "    raise LocalEntryNotFoundError('Cannot find the requested files in the disk cache')\n"
        "except LocalEntryNotFoundError as error:\n"
        "    raise OSError(\"We couldn't connect to load the files, and couldn't find them\") from error\n"
    )
    with pytest.raises(DownloadFailed) as raised:
        run_one(Snippet("part/loads", path, (path,), frozenset({"huggingface_hub"}), runs_on), tmp_path, timeout=30)
    message = str(raised.value)
    assert message.startswith(
        f"snippets/part/loads.py could not get the model's files offline, from the Hugging "
        f"Face cache at {constants.HF_HUB_CACHE}: OSError: "
    )
    assert f"`hf download {MODEL_ID} --revision {REVISION}`" in message
    hint = (
        f"GPT-2's vocab.json and merges.txt alone: load it from them, as GPT2Tokenizer.from_pretrained("
        f"{MODEL_ID!r}, revision=REVISION) does (AutoTokenizer also reads config.json"
    )
    assert (hint in message) == (runs_on is Origin.TOKENIZER)


def test_the_probe_gives_the_hub_a_few_seconds_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hub that accepts and never answers holds the probe as long as its timeout: that timeout stays short."""
    from recorder.record import hub

    asked: list[float] = []

    def silent(address: tuple[str, int], timeout: float) -> None:
        asked.append(timeout)
        raise TimeoutError("no answer")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hub.socket, "create_connection", silent)
    assert hub.hub_reachable() is False
    assert asked and 0 < asked[0] <= 5, f"the probe waits {asked} s for a hub that never answers"


def test_offline_the_packaged_tokenizer_files_are_copied_only_if_they_are_the_pinned_ones(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from recorder.project import gpt2
    from recorder.record import hub

    tampered = tmp_path / "encoder.json"
    tampered.write_text("{}", encoding="utf-8")
    real = gpt2.packaged_tokenizer_files()
    monkeypatch.setattr(gpt2, "packaged_tokenizer_files", lambda: {**real, "vocab.json": tampered})
    monkeypatch.setattr(hub, "_snapshot", lambda: tmp_path / "snapshot")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    with pytest.raises(hub.ModelUnavailable, match=r"vocab\.json"):
        hub.tokenizer_snapshot()
    assert not (tmp_path / "snapshot" / "vocab.json").exists(), "a file unlike the pinned one was copied"

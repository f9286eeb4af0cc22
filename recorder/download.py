"""Fetching GPT-2 from the hub before any snippet runs, and naming the hub or the network when that fails.

`fetch_pinned` has huggingface_hub download the pinned files into its cache,
where the snippets' `from_pretrained` then finds them; `hub_failure` tells a
snippet's error that comes from getting those files apart from one in its code.

huggingface_hub resumes a broken download, and resets its budget of retries
whenever an attempt received any data, so a connection that breaks every time
after sending a part of the file is retried without end. From the first
`fetch_pinned` on, every download of the process is watched by
`_StuckDownloads`, which stops one that restarts RETRIES times in a row without
keeping more of the file."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from recorder.errors import RecorderError
from recorder.pinned import MODEL_ID, REVISION, WEIGHTS_FILE, short

# config.json first: the quickest answer to whether the hub has the pinned revision at all.
# The tokenizer's and generation files are small and `from_pretrained` fetches them itself.
PREFETCHED = ("config.json", WEIGHTS_FILE)
RETRIES = 5  # as many as huggingface_hub allows attempts that receive nothing
LIBRARIES = ("huggingface_hub", "httpx", "httpcore", "h11")
PIN_FILES = "recorder/pinned.py and snippets/pinned_gpt2.py"
RETRY = "Check the network and run `make record` again."
Report = Callable[[str], None]

if TYPE_CHECKING:
    import httpx


class DownloadFailed(RecorderError):
    """The hub, the network or the cache failed while GPT-2's files were fetched or loaded."""


class DownloadStuck(RecorderError):
    """A download kept restarting from the same byte."""


def fetch_pinned(report: Report) -> None:
    """Download the pinned model's files that the cache lacks; raises DownloadFailed.

    From here on, every download of this process is watched by `_StuckDownloads`.
    """
    from huggingface_hub import hf_hub_download, set_client_factory, try_to_load_from_cache

    guard = _StuckDownloads()
    set_client_factory(lambda: _guarded_client(guard))
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
    return isinstance(error, DownloadStuck) or type(error).__module__.split(".")[0] in LIBRARIES


def _cause(error: BaseException, *, own: bool = False) -> str:
    """The failure as the hub's libraries (or the download guard) saw it, and what lay under it.

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
    kind = "" if isinstance(error, DownloadStuck) else f"{type(error).__name__}: "
    return kind + _text(error)


def _text(error: BaseException) -> str:
    return " ".join(str(error).split())


class _StuckDownloads:
    """An httpx request hook: each GET of a URL is a download attempt, resumed from its Range start."""

    def __init__(self) -> None:
        self.kept: dict[str, tuple[int, int]] = {}  # URL: furthest resume point, attempts in a row past none

    def __call__(self, request: httpx.Request) -> None:
        if request.method != "GET":
            return
        url, start = str(request.url), _range_start(request.headers.get("Range"))
        if url not in self.kept:
            self.kept[url] = (start, 0)
            return
        furthest, stuck = self.kept[url]
        stuck = 0 if start > furthest else stuck + 1
        if stuck >= RETRIES:
            # A retry is sent while huggingface_hub handles the previous attempt's error.
            last = sys.exception()
            raise DownloadStuck(f"the connection broke {stuck + 1} times in a row with no more than {furthest:,} "
                                f"bytes of {url} downloaded" + (f"; the last time: {_one_line(last)}" if last else ""))
        self.kept[url] = (max(start, furthest), stuck)


def _range_start(header: str | None) -> int:
    match = re.fullmatch(r"bytes=(\d+)-.*", header or "")
    return int(match[1]) if match else 0


def _guarded_client(guard: _StuckDownloads) -> httpx.Client:
    """huggingface_hub's own HTTP client, with `guard` looking at every request it sends."""
    from huggingface_hub.utils._http import default_client_factory  # not re-exported; the client to extend

    client = default_client_factory()
    hooks = client.event_hooks
    client.event_hooks = {**hooks, "request": [*hooks["request"], guard]}
    return client

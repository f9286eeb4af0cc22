"""Reaching GPT-2: the network probe, the local cache, and the check of what was loaded.

Nothing here imports torch or transformers at module level; `configure` must
run before they are imported, since the hub reads HF_HUB_OFFLINE only once.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from recorder.errors import RecorderError
from recorder.pinned import MODEL_ID, REVISION, WEIGHTS_FILE, WEIGHTS_SHA256
from recorder.runner import snippet_modules
from recorder.snippets import sha256_file

PROBE_SECONDS = 3.0


def offline_help(cache: str) -> str:
    return (
        f"GPT-2 ({MODEL_ID} at revision {REVISION}) is not in the Hugging Face cache at {cache} "
        "and the hub cannot be reached. Either connect to the network and run `make record` again, "
        "or point HF_HOME (or HF_HUB_CACHE) at a cache that holds it, for example one filled "
        f"elsewhere with `hf download {MODEL_ID} --revision {REVISION}`."
    )


class ModelUnavailable(RecorderError):
    """The pinned model cannot be loaded here; the message says how to get it."""


class WrongWeights(RecorderError):
    """What was loaded is not the pinned GPT-2; it must never be recorded."""


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


def configure() -> bool:
    """Go offline when the hub is unreachable, then fail fast if the cache lacks the model.

    Returns whether the hub is reachable.
    """
    if "transformers" in sys.modules or "huggingface_hub" in sys.modules:
        raise RuntimeError("hub.configure() must run before transformers is imported")
    online = hub_reachable()
    if not online:
        os.environ["HF_HUB_OFFLINE"] = "1"
        if cached_weights() is None:
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


def loaded_snapshot(snippets_dir: Path, namespaces: list[dict[str, Any]]) -> Path:
    """The cache folder the snippets' model came from, after checking it is the pinned one.

    Models are looked for in the snippets' own globals and in the snippet
    modules they imported (such as `pinned_gpt2`).
    """
    from transformers import PreTrainedModel

    imported = [vars(module) for module in snippet_modules(snippets_dir).values()]
    models = [value for namespace in [*namespaces, *imported] for value in namespace.values()
              if isinstance(value, PreTrainedModel)]
    if not models:
        raise WrongWeights(f"no model was found in the modules of {snippets_dir}/ after running them")
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

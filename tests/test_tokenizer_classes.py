"""The page's tokenizer sorts characters into letters, numbers and white space as GPT-2's tokenizer does, not as
the browser would: its classes are the pinned tokenizer's, written into its script by `tools/tokenizer_classes.py`."""

from __future__ import annotations

import pytest

from support import gpt2_tokenizer
from tools.tokenizer_classes import SCRIPT, START, parsed, tokenizer_classes, written_block

Classes = dict[str, list[tuple[int, int]]]


@pytest.fixture(scope="module")
def classes() -> Classes:
    return tokenizer_classes()


def test_the_script_holds_the_pinned_tokenizer_s_classes(classes: Classes) -> None:
    written = parsed(written_block(SCRIPT.read_text(encoding="utf-8")))
    assert written == classes, (
        f"{SCRIPT.name}'s classes (after {START!r}) are not those of the installed "
        "tokenizers: run `python -m tools.tokenizer_classes` and commit the script."
    )


def test_the_classes_hold_what_sets_the_tokenizer_apart_from_a_browser(classes: Classes) -> None:
    """U+0085 is white space to the tokenizer, U+FEFF is not (a browser's \\s says the reverse), and U+0C5C and
    U+11DE0, a letter and a digit to newer Unicode tables than its own, are neither to it."""
    members = {
        name: {point for first, last in runs for point in range(first, last + 1)} for name, runs in classes.items()
    }
    assert 0x85 in members["spaces"] and 0xFEFF not in members["spaces"]
    assert ord("a") in members["letters"] and 0xC5C not in members["letters"]
    assert ord("7") in members["numbers"] and 0x11DE0 not in members["numbers"]


def test_the_pre_tokenizer_cuts_each_class_s_first_and_last_character_as_the_classes_say(classes: Classes) -> None:
    """Read from the engine the pre-tokenizer compiles its pattern with, the classes must be the pre-tokenizer's
    own: at both ends of every run and just outside them, where a wrong bound would show, the character joins a
    letter before it, a digit after it, a symbol after it, or nothing. U+0020 is left out: the pattern names it, in
    front of words."""
    pre_tokenizer = gpt2_tokenizer().pre_tokenizer

    def joins(probe: str) -> str:
        """Which neighbour the middle character of `probe` goes with: "before", "after" or "" for neither."""
        ((start, end),) = [
            offsets for _, offsets in pre_tokenizer.pre_tokenize_str(probe) if offsets[0] <= 1 < offsets[1]
        ]
        return "before" if start == 0 else "after" if end == 3 else ""

    expected = {"letters": ("before", "before"), "numbers": ("after", ""), "spaces": ("", ""), None: ("", "after")}
    edges = {
        point
        for runs in classes.values()
        for first, last in runs
        for point in (first - 1, first, last, last + 1)
        if 0 <= point < 0x110000 and not 0xD800 <= point < 0xE000
    } - {0x20}
    wrong = []
    for point in sorted(edges):
        name = next(
            (name for name, runs in classes.items() if any(first <= point <= last for first, last in runs)), None
        )
        cut = (joins(f"a{chr(point)}0"), joins(f"a{chr(point)}!"))
        if cut != expected[name]:
            wrong.append(f"U+{point:04X} ({name or 'other'}): {cut}, not {expected[name]}")
    assert len(edges) > 1500 and not wrong, "\n".join(wrong)

"""The character classes of GPT-2's pre-tokenizer as its own regex engine has them, written into the page's tokenizer.

The pre-tokenizer's pattern sorts characters into letters (`\\p{L}`), numbers (`\\p{N}`) and white space (`\\s`). A
browser's classes are not the tokenizer's: its Unicode tables are newer, and its `\\s` holds U+FEFF but not U+0085.
So `docs/javascripts/try_tokenizer.js` carries the tokenizer's classes, as ranges of code points, between two
marker lines that `python -m tools.tokenizer_classes` rewrites; `tests/test_tokenizer_classes.py` fails when they
differ from what the pinned `tokenizers` gives.

They are read from the engine the tokenizer compiles its pattern with (`tokenizers.Regex`, Oniguruma): each class
alone, matched over every code point but the surrogates, which no Python text given to the tokenizer may hold.
"""

from __future__ import annotations

import re
import textwrap
from itertools import groupby
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "javascripts" / "try_tokenizer.js"
START = "// The tokenizer's classes, as `python -m tools.tokenizer_classes` writes them: do not edit by hand."
END = "// The end of the tokenizer's classes."
# The script's name for each class, and the pattern that removes every code point outside it.
OUTSIDE = {"letters": r"[^\p{L}]", "numbers": r"[^\p{N}]", "spaces": r"\S"}
LINE = 120  # the project's longest line
SURROGATES = range(0xD800, 0xE000)


def ranges(points: list[int]) -> list[tuple[int, int]]:
    """Sorted code points as runs, (first, last): along a run, each point less its place in the list is the same."""
    runs = (list(run) for _, run in groupby(enumerate(points), key=lambda placed: placed[1] - placed[0]))
    return [(run[0][1], run[-1][1]) for run in runs]


def tokenizer_classes() -> dict[str, list[tuple[int, int]]]:
    """Each class's code points as the tokenizer's regex engine matches them, as runs."""
    from tokenizers import Regex, normalizers  # only here: the script's block is read without it

    text = "".join(chr(point) for point in range(0x110000) if point not in SURROGATES)
    return {
        name: ranges(sorted(map(ord, normalizers.Replace(Regex(outside), "").normalize_str(text))))
        for name, outside in OUTSIDE.items()
    }


def block(classes: dict[str, list[tuple[int, int]]]) -> str:
    """The script's lines between the markers: each class a template string of hex runs, `first-last`, wrapped."""
    lines = ["const TOKENIZER_CLASSES = {"]
    for name, runs in classes.items():
        words = " ".join(f"{first:x}" if first == last else f"{first:x}-{last:x}" for first, last in runs)
        # Two characters short of the longest line: the last one ends the string with "`,".
        wrapped = textwrap.wrap(
            words,
            LINE - 2,
            initial_indent=f"  {name}: `",
            subsequent_indent="    ",
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines += [*wrapped[:-1], f"{wrapped[-1]}`,"]
    return "\n".join([*lines, "};", ""])


def parsed(written: str) -> dict[str, list[tuple[int, int]]]:
    """The classes a block holds, read back as the script reads them."""
    classes = {}
    for name, runs in re.findall(r"^  (\w+): `([^`]*)`", written, re.M):
        bounds = [run.partition("-") for run in runs.split()]
        classes[name] = [(int(first, 16), int(last or first, 16)) for first, _, last in bounds]
    return classes


def written_block(script: str) -> str:
    """The lines between the script's markers."""
    between = re.search(f"^{re.escape(START)}\n(.*?)^{re.escape(END)}$", script, re.M | re.S)
    if not between:
        raise SystemExit(f"{SCRIPT.relative_to(ROOT)} has no lines {START!r} and {END!r}")
    return between[1]


def main() -> None:
    script = SCRIPT.read_text(encoding="utf-8")
    before, after = script.split(START + "\n" + written_block(script), 1)
    SCRIPT.write_text(before + START + "\n" + block(tokenizer_classes()) + after, encoding="utf-8")
    print(f"wrote the tokenizer's character classes into {SCRIPT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

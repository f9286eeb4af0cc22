"""Byte pair encoding by hand: GPT-2's merges applied to the bytes of one word, lowest rank first.

`merge_steps.py` prints the steps and `merge_steps_figure.py` draws them; both
import `byte_level` and `merges_in_rank_order` from here.
"""

from collections.abc import Iterator
from pathlib import Path

from pinned_tokenizer import merges_path

# --8<-- [start:bytes]
# Printable bytes keep their own character; the others (the space, control
# bytes...) take the characters from U+0100 on, in byte order.
printable = [
    *range(ord("!"), ord("~") + 1),  # ASCII
    *range(ord("¡"), ord("¬") + 1),  # Latin-1, but for the soft hyphen
    *range(ord("®"), ord("ÿ") + 1),
]
others = [byte for byte in range(256) if byte not in printable]
byte_to_character = {byte: chr(byte) for byte in printable}
byte_to_character |= {byte: chr(256 + n) for n, byte in enumerate(others)}


def byte_level(word: str) -> list[str]:
    """The word's UTF-8 bytes, one vocabulary character each."""
    return [byte_to_character[byte] for byte in word.encode("utf-8")]


# --8<-- [end:bytes]


# --8<-- [start:merge]
merges = Path(merges_path).read_text(encoding="utf-8").splitlines()[1:]
ranks = {tuple(merge.split(" ")): rank for rank, merge in enumerate(merges)}


def join(pieces: list[str], pair: tuple[str, str]) -> list[str]:
    """The pieces with each occurrence of `pair` joined into one piece."""
    joined: list[str] = []
    for piece in pieces:
        if joined and (joined[-1], piece) == pair:
            joined[-1] += piece
        else:
            joined.append(piece)
    return joined


def merges_in_rank_order(word: str) -> Iterator[tuple[int, tuple[str, str], list[str]]]:
    """Join the lowest-ranked pair until no pair has a merge; yield each step."""
    pieces = byte_level(word)
    while pairs := [pair for pair in zip(pieces, pieces[1:]) if pair in ranks]:
        pair = min(pairs, key=ranks.__getitem__)
        pieces = join(pieces, pair)
        yield ranks[pair], pair, pieces


# --8<-- [end:merge]

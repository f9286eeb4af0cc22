"""Figure: the merges that build " ChatGPT" from its bytes, one row per merge, lowest rank first."""

import sys
from pathlib import Path

from byte_pair_merges import byte_level, merges_in_rank_order
from pinned_tokenizer import tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/: the figure writer every part shares
from svg_figure import Figure

word = " ChatGPT"
start = byte_level(word)
steps = list(merges_in_rank_order(word))
tokens = steps[-1][2]
token_ids = tokenizer.convert_tokens_to_ids(tokens)

COLUMN, ROW, GAP = 46, 30, 22  # one byte's width, a row's height, the space between rows
LABEL_X, PIECES_X, TOP = 196, 214, 48  # labels end at LABEL_X; the first row's top is TOP
ROWS = 1 + len(steps) + 1  # the bytes, one row per merge, the ids


def top(row: int) -> int:
    return TOP + row * (ROW + GAP)


def spans(pieces: list[str]) -> list[tuple[float, float]]:
    """Where each piece starts and ends: a piece is as wide as the bytes it joins."""
    found: list[tuple[float, float]] = []
    x = PIECES_X
    for piece in pieces:
        found.append((x, x + COLUMN * len(piece)))
        x += COLUMN * len(piece)
    return found


def draw_pieces(row: int, label: str, pieces: list[str], merged: str | None) -> list[tuple[float, float]]:
    y = top(row)
    figure.label(LABEL_X, y + ROW / 2, label, "figure-shape", anchor="end")
    placed = spans(pieces)
    for piece, (left, right) in zip(pieces, placed):
        figure.box(left, y, right - left, ROW, "figure-selected" if piece == merged else "figure-cell")
        figure.label((left + right) / 2, y + ROW / 2, piece, "figure-value")
    return placed


figure = Figure(
    "merge-steps-figure",
    f'The {len(steps)} merges that build "{word}" from its {len(start)} bytes, lowest rank first, '
    f"and the ids of the {len(tokens)} tokens they leave",
    width=PIECES_X + COLUMN * len(start) + 20,
    height=top(ROWS) - GAP + 8,
)
figure.label(PIECES_X + COLUMN * len(start) / 2, 20, f'"{word}"', "figure-heading")

with figure.group("figure-row"):
    previous = draw_pieces(0, "bytes", start, merged=None)

# One group per merge: its row of pieces, and an arrow from each half of the pair to the new piece.
for row, (rank, (first, second), pieces) in enumerate(steps, start=1):
    with figure.group("figure-row figure-pick"):
        placed = draw_pieces(row, f"rank {rank}: {first} + {second}", pieces, merged=first + second)
        for piece, (left, right) in zip(pieces, placed):
            if piece == first + second:
                for parent_left, parent_right in [span for span in previous if left <= span[0] < right]:
                    figure.arrow((parent_left + parent_right) / 2, top(row - 1) + ROW, (left + right) / 2, top(row))
    previous = placed

# The tokens' ids, each under its token.
with figure.group("figure-row figure-result"):
    y = top(ROWS - 1)
    figure.label(LABEL_X, y + ROW / 2, "token ids", "figure-shape", anchor="end")
    for token_id, (left, right) in zip(token_ids, previous):
        figure.arrow((left + right) / 2, y - GAP, (left + right) / 2, y)
        figure.box(left, y, right - left, ROW, "figure-cell figure-result")
        figure.label((left + right) / 2, y + ROW / 2, str(token_id), "figure-id")

figure.print()

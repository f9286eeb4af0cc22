"""Figure: each token of the prompt reaches the first block as two rows added together, the row of `wte` its id
selects and the row of `wpe` its position selects.

It draws what the examples print without building a model: the ids, positions and sizes below are theirs (the page's
values bind them to the recorded outputs).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/: the figure writer every part shares
from svg_figure import Figure

prompt_token_ids = [25423, 318, 5609, 703, 356]
vocabulary_size, positions_count, embedding_width = 50_257, 1_024, 768

batch, tokens = 1, len(prompt_token_ids)
ROW, GAP = 28, 8  # one token's row, and the space between two
TOP = 76  # the first token's row
KEY_WIDTH, TABLE_WIDTH, SUM_WIDTH = 72, 150, 150
# Ids select rows of wte from the left, positions select rows of wpe from the right, and the sums sit between.
IDS_X = 20
WTE_X = IDS_X + KEY_WIDTH + 40
SUM_X = WTE_X + TABLE_WIDTH + 50
WPE_X = SUM_X + SUM_WIDTH + 50
POSITION_X = WPE_X + TABLE_WIDTH + 40
BOTTOM = TOP + tokens * (ROW + GAP) - GAP


def heading(x: float, name: str, shape: list[int] | None = None) -> None:
    figure.label(x, 18, name, "figure-heading")
    if shape is not None:
        figure.label(x, 38, str(shape), "figure-shape")


def table(x: float, name: str, rows: int) -> None:
    """A table far taller than the prompt: drawn past its rows, with a note of its size."""
    heading(x + TABLE_WIDTH / 2, name, [rows, embedding_width])
    figure.box(x, TOP - 20, TABLE_WIDTH, BOTTOM - TOP + 40, "figure-cell")
    figure.label(x + TABLE_WIDTH / 2, BOTTOM + 30, f"{rows:,} rows in all", "figure-word")


def pick(key_x: float, y: float, key: int, table_x: float, sum_edge: float) -> None:
    """A key (an id, a position), the arrow to its row of a table, that row, and the arrow from it to the sum."""
    middle = y + ROW / 2
    key_edge, table_edge = (key_x + KEY_WIDTH, table_x) if key_x < table_x else (key_x, table_x + TABLE_WIDTH)
    figure.box(key_x, y, KEY_WIDTH, ROW, "figure-cell")
    figure.label(key_x + KEY_WIDTH / 2, middle, str(key), "figure-id")
    figure.arrow(key_edge, middle, table_edge, middle)
    figure.box(table_x, y, TABLE_WIDTH, ROW, "figure-selected")
    figure.label(table_x + TABLE_WIDTH / 2, middle, f"row {key}", "figure-id")
    row_edge = table_x + TABLE_WIDTH if table_x < sum_edge else table_x
    figure.arrow(row_edge, middle, sum_edge, middle)


figure = Figure(
    "position-sum-figure",
    f"Each token's input to the first block: its row of wte.weight {[vocabulary_size, embedding_width]}, by id, "
    f"plus its row of wpe.weight {[positions_count, embedding_width]}, by position, giving hidden_states[0] "
    f"{[batch, tokens, embedding_width]}",
    width=POSITION_X + KEY_WIDTH + 20,
    height=BOTTOM + 40,
)
heading(IDS_X + KEY_WIDTH / 2, "input_ids")
table(WTE_X, "wte.weight", vocabulary_size)
heading(SUM_X + SUM_WIDTH / 2, "hidden_states[0]", [batch, tokens, embedding_width])
table(WPE_X, "wpe.weight", positions_count)
heading(POSITION_X + KEY_WIDTH / 2, "position")

# First each token's id and the row of wte it selects, then each position, the row of wpe it selects, and the sum of
# the two rows: the ids, then the positions, as the text alternative states them.
for position, token_id in enumerate(prompt_token_ids):
    with figure.group("figure-pick"):
        pick(IDS_X, TOP + position * (ROW + GAP), token_id, WTE_X, SUM_X)
for position in range(tokens):
    y = TOP + position * (ROW + GAP)
    with figure.group("figure-pick"):
        pick(POSITION_X, y, position, WPE_X, SUM_X + SUM_WIDTH)
        figure.box(SUM_X, y, SUM_WIDTH, ROW, "figure-cell figure-result")
        figure.label(SUM_X + SUM_WIDTH / 2, y + ROW / 2, f"row + row: {embedding_width} values", "figure-value")

figure.print()

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
IDS_X, IDS_WIDTH = 20, 72
WTE_X, TABLE_WIDTH = 130, 150
PLUS_X = 300
POSITION_X, POSITION_WIDTH = 320, 48
WPE_X = 406
SUM_X, SUM_WIDTH = 594, 150
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


def pick(x: float, width: float, y: float, key: int, table_x: float) -> None:
    """A key (an id, a position), the arrow to its row of a table, and that row."""
    middle = y + ROW / 2
    figure.box(x, y, width, ROW, "figure-cell")
    figure.label(x + width / 2, middle, str(key), "figure-id")
    figure.arrow(x + width, middle, table_x, middle)
    figure.box(table_x, y, TABLE_WIDTH, ROW, "figure-selected")
    figure.label(table_x + TABLE_WIDTH / 2, middle, f"row {key}", "figure-id")


figure = Figure(
    "position-sum-figure",
    f"Each token's input to the first block: its row of wte.weight {[vocabulary_size, embedding_width]}, by id, "
    f"plus its row of wpe.weight {[positions_count, embedding_width]}, by position, giving hidden_states[0] "
    f"{[batch, tokens, embedding_width]}",
    width=SUM_X + SUM_WIDTH + 20,
    height=BOTTOM + 40,
)
heading(IDS_X + IDS_WIDTH / 2, "input_ids")
table(WTE_X, "wte.weight", vocabulary_size)
heading(POSITION_X + POSITION_WIDTH / 2, "position")
table(WPE_X, "wpe.weight", positions_count)
heading(SUM_X + SUM_WIDTH / 2, "hidden_states[0]", [batch, tokens, embedding_width])

# First each token's id and the row of wte it selects, then each position, the row of wpe it selects, and the sum of
# the two rows: the ids, then the positions, as the text alternative states them.
for position, token_id in enumerate(prompt_token_ids):
    with figure.group("figure-pick"):
        pick(IDS_X, IDS_WIDTH, TOP + position * (ROW + GAP), token_id, WTE_X)
for position in range(tokens):
    y = TOP + position * (ROW + GAP)
    middle = y + ROW / 2
    with figure.group("figure-pick"):
        figure.label(PLUS_X + 4, middle, "+", "figure-heading")
        pick(POSITION_X, POSITION_WIDTH, y, position, WPE_X)
        figure.arrow(WPE_X + TABLE_WIDTH, middle, SUM_X, middle)
        figure.box(SUM_X, y, SUM_WIDTH, ROW, "figure-cell figure-result")
        figure.label(SUM_X + SUM_WIDTH / 2, middle, f"sum: {embedding_width} values", "figure-value")

figure.print()

"""Figure: the shapes along GPT-2's embedding lookup, from the prompt's ids to its embeddings.

It draws what the model snippets print without loading the model: the numbers
below are theirs (the tests check them against outputs/).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/: the figure writer every part shares
from svg_figure import Figure

prompt_token_ids = [25423, 318, 5609, 703, 356]
vocabulary_size, embedding_width = 50_257, 768

batch, tokens = 1, len(prompt_token_ids)
ROW, GAP = 28, 8  # one token's row, and the space between two
TOP = 76  # the first token's row
IDS_X, TABLE_X, TABLE_WIDTH, OUT_X, OUT_WIDTH = 20, 170, 170, 420, 200
IDS_WIDTH = 72
BOTTOM = TOP + tokens * (ROW + GAP) - GAP


def heading(x: float, name: str, shape: list[int]) -> None:
    figure.label(x, 18, name, "figure-heading")
    figure.label(x, 38, str(shape), "figure-shape")


figure = Figure(
    "shape-flow-figure",
    f"Shapes in the lookup: input_ids {[batch, tokens]} index wte.weight "
    f"{[vocabulary_size, embedding_width]}, giving embeddings {[batch, tokens, embedding_width]}",
    width=OUT_X + OUT_WIDTH + 20,
    height=BOTTOM + 40,
)
heading(IDS_X + IDS_WIDTH / 2, "input_ids", [batch, tokens])
heading(TABLE_X + TABLE_WIDTH / 2, "wte.weight", [vocabulary_size, embedding_width])
heading(OUT_X + OUT_WIDTH / 2, "embeddings", [batch, tokens, embedding_width])

# The table is far taller than the prompt: drawn past the rows, with a note of its size.
figure.box(TABLE_X, TOP - 20, TABLE_WIDTH, BOTTOM - TOP + 40, "figure-cell")
figure.label(TABLE_X + TABLE_WIDTH / 2, BOTTOM + 30, f"{vocabulary_size:,} rows in all", "figure-word")

# One group per token: its id, the row it selects, and the embedding that row becomes.
for position, token_id in enumerate(prompt_token_ids):
    y = TOP + position * (ROW + GAP)
    middle = y + ROW / 2
    with figure.group("figure-pick"):
        figure.box(IDS_X, y, IDS_WIDTH, ROW, "figure-cell")
        figure.label(IDS_X + IDS_WIDTH / 2, middle, str(token_id), "figure-id")
        figure.arrow(IDS_X + IDS_WIDTH, middle, TABLE_X, middle)
        figure.box(TABLE_X, y, TABLE_WIDTH, ROW, "figure-selected")
        figure.label(TABLE_X + TABLE_WIDTH / 2, middle, f"row {token_id}", "figure-id")
        figure.arrow(TABLE_X + TABLE_WIDTH, middle, OUT_X, middle)
        figure.box(OUT_X, y, OUT_WIDTH, ROW, "figure-cell figure-result")
        figure.label(OUT_X + OUT_WIDTH / 2, middle, f"{embedding_width} values", "figure-value")

figure.print()

"""Figure: token ids 0, 1 and 3 select rows 0, 1 and 3 of the toy embedding table."""

import sys
from pathlib import Path

import torch

from toy_table import embedding_matrix, words

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # snippets/: the figure writer every part shares
from svg_figure import Figure

token_ids = [0, 1, 3]
embeddings = embedding_matrix[torch.tensor(token_ids)]

ROW, CELL = 30, 60  # row height and value-cell width
TOP = 64  # the table's first row
IDS_X, TABLE_X, CELLS_X, RESULT_X = 20, 140, 256, 540
TABLE_END = CELLS_X + CELL * embedding_matrix.shape[1]
# The selected ids and the result rows are centred on the table.
PICKED_TOP = TOP + ROW * (len(words) - len(token_ids)) / 2


def heading(x: float, name: str, shape: torch.Size) -> None:
    figure.label(x, 18, name, "figure-heading")
    figure.label(x, 38, str(list(shape)), "figure-shape")


def values(x: float, y: float, row: torch.Tensor, css_class: str) -> None:
    for column, value in enumerate(row.tolist()):
        figure.box(x + column * CELL, y, CELL, ROW, css_class)
        figure.label(x + column * CELL + CELL / 2, y + ROW / 2, f"{value:.1f}", "figure-value")


figure = Figure(
    "lookup-figure",
    f"Token ids {', '.join(map(str, token_ids))} select those rows of the "
    f"{len(words)} × {embedding_matrix.shape[1]} embedding table",
    width=RESULT_X + CELL * embeddings.shape[1] + 90,
    height=TOP + ROW * len(words) + 16,
)
heading(IDS_X + 24, "token_ids", torch.Size([len(token_ids)]))
heading((TABLE_X + TABLE_END) / 2, "embedding_matrix", embedding_matrix.shape)
heading(RESULT_X + CELL * embeddings.shape[1] / 2, "embeddings", embeddings.shape)

# The table, one group per row; the selected rows are marked.
for token_id, (word, row) in enumerate(zip(words, embedding_matrix)):
    y = TOP + token_id * ROW
    selected = token_id in token_ids
    with figure.group("figure-row figure-picked" if selected else "figure-row"):
        if selected:
            figure.box(TABLE_X, y, TABLE_END - TABLE_X, ROW, "figure-selected")
        figure.label(TABLE_X + 16, y + ROW / 2, str(token_id), "figure-id")
        figure.label(TABLE_X + 34, y + ROW / 2, word, "figure-word", anchor="start")
        values(CELLS_X, y, row, "figure-cell")

# Each id in turn: an arrow to its row, and an arrow from that row to its place in the result.
for position, (token_id, row) in enumerate(zip(token_ids, embeddings)):
    y = PICKED_TOP + position * ROW
    table_y = TOP + token_id * ROW + ROW / 2
    with figure.group("figure-pick"):
        figure.box(IDS_X, y, 48, ROW, "figure-selected")
        figure.label(IDS_X + 24, y + ROW / 2, str(token_id), "figure-id")
        figure.arrow(IDS_X + 48, y + ROW / 2, TABLE_X, table_y)
        figure.arrow(TABLE_END, table_y, RESULT_X, y + ROW / 2)
        values(RESULT_X, y, row, "figure-cell figure-result")
        figure.label(RESULT_X + CELL * len(row) + 10, y + ROW / 2, words[token_id], "figure-word", anchor="start")

figure.print()

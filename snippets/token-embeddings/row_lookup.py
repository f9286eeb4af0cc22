"""An embedding lookup is row selection: token ids index rows of a matrix."""

import torch

from toy_table import embedding_matrix

# --8<-- [start:lookup]
token_ids = torch.tensor([0, 1, 3])
# --8<-- [start:select]
embeddings = embedding_matrix[token_ids]
# --8<-- [end:select]

print(embeddings)
# --8<-- [end:lookup]

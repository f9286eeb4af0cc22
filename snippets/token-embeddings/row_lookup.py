"""An embedding lookup is row selection: token ids index rows of a matrix."""

import torch

from toy_table import embedding_matrix, words

# --8<-- [start:lookup]
token_ids = torch.tensor([0, 1, 3])
# --8<-- [start:select]
embeddings = embedding_matrix[token_ids]
# --8<-- [end:select]

print(embedding_matrix.shape, dict(enumerate(words)))
print(token_ids.tolist(), "→", [words[token_id] for token_id in token_ids.tolist()])
print(embeddings)
# --8<-- [end:lookup]

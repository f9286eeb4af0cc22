"""An embedding lookup is row selection: token ids index rows of a matrix."""

import torch

# --8<-- [start:lookup]
embedding_matrix = torch.tensor([
    [ 0.2,  0.7, -0.1],  # cat: 0
    [ 0.3,  0.8, -0.2],  # dog: 1
    [-0.8,  0.1,  0.5],  # car: 2
    [ 0.1, -0.4,  0.9],  # tree: 3
    [-0.6,  0.3,  0.7],  # computer: 4
])

token_ids = torch.tensor([0, 1, 3])
embeddings = embedding_matrix[token_ids]

print(embeddings)
# --8<-- [end:lookup]

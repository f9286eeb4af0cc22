"""The toy embedding table of the row-lookup example: five words, three values per word."""

import torch

# The matrix keeps its columns aligned, as a table is read.
# fmt: off
# --8<-- [start:table]
words = ["cat", "dog", "car", "tree", "computer"]  # token ids 0 to 4

embedding_matrix = torch.tensor([
    [ 0.2,  0.7, -0.1],  # cat: 0
    [ 0.3,  0.8, -0.2],  # dog: 1
    [-0.8,  0.1,  0.5],  # car: 2
    [ 0.1, -0.4,  0.9],  # tree: 3
    [-0.6,  0.3,  0.7],  # computer: 4
])
# --8<-- [end:table]
# fmt: on

"""Indexing the weight matrix directly gives exactly what the embedding layer returns."""

import torch

from pinned_gpt2 import model
from prompt import input_ids

# --8<-- [start:compare]
embedding_matrix = model.transformer.wte.weight

manual = embedding_matrix[input_ids]
from_layer = model.transformer.wte(input_ids)

print(torch.equal(manual, from_layer))
print(from_layer.shape)
# --8<-- [end:compare]

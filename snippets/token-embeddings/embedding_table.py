"""The token embedding table is a layer inside GPT-2: `model.transformer.wte`."""

from pinned_gpt2 import model

# --8<-- [start:inspect]
token_embedding_layer = model.transformer.wte

print(token_embedding_layer)
print(token_embedding_layer.weight.shape)
# --8<-- [end:inspect]

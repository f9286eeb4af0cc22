"""The five token ids of the prompt, and the [batch, tokens] shape they arrive in."""

from pinned_gpt2 import input_ids

# --8<-- [start:ids]
print(input_ids[0].tolist())
print(input_ids.shape)
# --8<-- [end:ids]

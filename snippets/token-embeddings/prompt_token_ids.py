"""The five token ids of the prompt, and the [batch, tokens] shape they arrive in."""

from prompt import input_ids

# --8<-- [start:ids]
print(input_ids[0].tolist())
print(input_ids.shape)
# --8<-- [end:ids]

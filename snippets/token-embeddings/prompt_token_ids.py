"""The five token ids of the prompt, and the [batch, tokens] shape they arrive in."""

from prompt import input_ids, tokenizer

# --8<-- [start:ids]
print(input_ids[0].tolist())
print(input_ids.shape)
# --8<-- [end:ids]

# What the page says of the second id, checked whenever this runs: it is " is" with its leading space, and "is" at
# the start of a text is another token.
assert tokenizer.decode(input_ids[0, 1:2]) == " is"
assert tokenizer("is")["input_ids"] != input_ids[0, 1:2].tolist()

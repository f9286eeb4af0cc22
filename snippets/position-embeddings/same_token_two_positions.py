"""The same token at two positions: " is" selects the same row of `wte` at both, and the first block still receives
two different vectors, because the rows of `wpe` added to it differ."""

import torch

from prompt import tokenizer
from random_gpt2 import model

# --8<-- [start:twice]
ids = tokenizer(
    "Software is changing how we think about what software is",
    return_tensors="pt",
)["input_ids"]
is_id = tokenizer(" is")["input_ids"][0]
first, second = (ids[0] == is_id).nonzero().flatten().tolist()

token_rows = model.transformer.wte(ids)[0]
received = model(ids, output_hidden_states=True).hidden_states[0][0]

print(f"' is' is id {is_id}, at positions {first} and {second} of {ids.shape[1]}")
print("same wte row:", torch.equal(token_rows[first], token_rows[second]))
print("same input to the first block:", torch.equal(received[first], received[second]))
# --8<-- [end:twice]

# What the page says of the difference, checked whenever this runs: it is the difference of the two position rows.
position_rows = model.transformer.wpe.weight
assert torch.allclose(received[first] - received[second], position_rows[first] - position_rows[second], atol=1e-6)
assert tokenizer.convert_ids_to_tokens([is_id]) == ["Ġis"] and len(tokenizer(" is")["input_ids"]) == 1

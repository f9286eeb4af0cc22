"""What GPT-2's first block receives: for each token, the row of `wte` its id selects plus the row of `wpe` its
position selects. Compared with `hidden_states[0]`, the first block's input as Transformers reports it: exactly
equal in eval mode; in train mode, dropout changes it."""

import torch

from prompt import input_ids
from random_gpt2 import model

# --8<-- [start:sum]
positions = torch.arange(input_ids.shape[1])  # 0, 1, ..., n - 1
summed = model.transformer.wte(input_ids) + model.transformer.wpe(positions)

print("input_ids:", input_ids.tolist())
print("positions:", positions.tolist())
print("summed:", summed.shape)

received = model(input_ids, output_hidden_states=True).hidden_states[0]
print("eval mode, equal:", torch.equal(received, summed))

model.train()  # dropout on, as in training
received = model(input_ids, output_hidden_states=True).hidden_states[0]
model.eval()
print("train mode, equal:", torch.equal(received, summed))
print("embd_pdrop:", model.config.embd_pdrop)
# --8<-- [end:sum]

# What the page says of the difference, checked whenever this runs: it is dropout's, which zeroes some values and
# scales the others by 1 / (1 - embd_pdrop).
kept = received != 0
assert not kept.all() and torch.allclose(received[kept], summed[kept] / (1 - model.config.embd_pdrop))

"""The positions GPT-2 uses when it is given none: 0 to n - 1. Passing them explicitly as `position_ids` gives the
very same logits; passing other positions changes them."""

import torch

from prompt import input_ids
from random_gpt2 import model

# --8<-- [start:ids]
n = input_ids.shape[1]

none_given = model(input_ids).logits
counted = model(input_ids, position_ids=torch.arange(n)).logits
shifted = model(input_ids, position_ids=torch.arange(n) + 1).logits

print("position_ids:", torch.arange(n).tolist())
print("none given == torch.arange(n):", torch.equal(none_given, counted))
print("none given == torch.arange(n) + 1:", torch.equal(none_given, shifted))
# --8<-- [end:ids]

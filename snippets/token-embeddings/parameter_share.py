"""The token embedding table's share of all of GPT-2 small's parameters, counted from its configuration."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

# --8<-- [start:share]
with torch.device("meta"):  # every parameter gets its shape, and no memory for its values
    meta_model = GPT2LMHeadModel(GPT2Config())

total = sum(parameter.numel() for parameter in meta_model.parameters())
table = meta_model.transformer.wte.weight.numel()

print(f"{total:,} parameters in GPT-2 small")
print(f"{table:,} of them in wte.weight ({table / total:.1%})")
# --8<-- [end:share]

# What the page says of this count, checked whenever it runs: the output layer shares wte's matrix, and
# `parameters()` yields a shared parameter once, so the output layer adds nothing to the total.
assert meta_model.lm_head.weight is meta_model.transformer.wte.weight, "lm_head does not share wte's matrix here"
assert total == sum(p.numel() for name, p in meta_model.named_parameters() if not name.startswith("lm_head"))

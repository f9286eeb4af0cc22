"""The position table is a layer of GPT-2, `transformer.wpe`, beside the token table `wte`: its size, that it is one
of the model's trainable parameters, and how many of them it holds. Counted on GPT-2 small's full configuration built
on PyTorch's meta device, as Part 2 counts the model: a count needs the sizes alone, not values."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

# --8<-- [start:table]
with torch.device("meta"):  # every parameter gets its shape, and no memory for its values
    full_size = GPT2LMHeadModel(GPT2Config())  # GPT-2 small's configuration, every block

wpe = full_size.transformer.wpe
wte = full_size.transformer.wte


def count(parameters):
    return f"{sum(parameter.numel() for parameter in parameters):,}"


print("blocks:", len(full_size.transformer.h))
print(wpe)
print(wte)
print(f"wpe.weight registered: {any(parameter is wpe.weight for parameter in full_size.parameters())}")
print(f"wpe.weight requires_grad: {wpe.weight.requires_grad}")
print(f"wpe: {count([wpe.weight])} parameters")
print(f"wte: {count([wte.weight])} parameters")
print(f"transformer: {count(full_size.transformer.parameters())} parameters")
print(f"whole model: {count(full_size.parameters())} parameters")
print(f"lm_head.weight is wte.weight: {full_size.lm_head.weight is wte.weight}")
# --8<-- [end:table]

# What the page says of this count, checked whenever it runs: the table has a row per position the configuration
# allows, and model.parameters() yields the matrix wte and lm_head share once (counted at each of its two names,
# the model would hold wte's parameters twice).
assert wpe.weight.shape == (full_size.config.n_positions, full_size.config.n_embd)
named = dict(full_size.named_parameters(remove_duplicate=False))
assert "lm_head.weight" not in dict(full_size.named_parameters()), "lm_head does not share wte's matrix here"
assert "lm_head.weight" in named
assert (
    sum(parameter.numel() for parameter in named.values())
    == sum(parameter.numel() for parameter in full_size.parameters()) + wte.weight.numel()
)

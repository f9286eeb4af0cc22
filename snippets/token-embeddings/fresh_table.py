"""What a freshly built embedding table holds before any training: Transformers' random initialisation."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

# --8<-- [start:fresh]
torch.manual_seed(0)
configuration = GPT2Config(n_layer=1)  # one block; the table is GPT-2 small's size
fresh = GPT2LMHeadModel(configuration)
values = fresh.transformer.wte.weight.detach().double()  # summed in double precision

print(f"initializer_range: {configuration.initializer_range}")
print(f"wte.weight: mean {values.mean():.3f}, standard deviation {values.std():.3f}")
# --8<-- [end:fresh]

"""The model the examples of this part run: Transformers' GPT-2 class built from GPT-2's configuration with one
block and random weights, seeded, so nothing is downloaded and every run builds the same model.

The examples that use it print shapes, positions, ids and comparisons, never a weight value.
"""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

# --8<-- [start:build]
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(n_layer=1))  # GPT-2's sizes, one block, random weights
model.eval()  # no dropout, until an example turns it on
# --8<-- [end:build]

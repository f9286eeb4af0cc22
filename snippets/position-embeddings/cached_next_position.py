"""Generating with a cache: the prompt's pass keeps its keys and values (`past_key_values`), and the next token is
passed alone. It gets position n, the next one after the prompt's 0 to n - 1, and its logits match, within
torch.allclose's tolerance, those a full pass over all n + 1 tokens gives it."""

import torch

from prompt import input_ids, tokenizer
from random_gpt2 import model

# --8<-- [start:cache]
n = input_ids.shape[1]
next_ids = tokenizer(" think", return_tensors="pt")["input_ids"]  # one token

cache = model(input_ids, use_cache=True).past_key_values
print("cached tokens:", cache.get_seq_length())

step = model(next_ids, past_key_values=cache, use_cache=True, output_hidden_states=True)
wte, wpe = model.transformer.wte, model.transformer.wpe
for position in (n, 0):
    expected = wte(next_ids) + wpe(torch.tensor([position]))
    print(f"next token's input is wte + wpe[{position}]:", torch.equal(step.hidden_states[0], expected))

full = model(torch.cat([input_ids, next_ids], dim=1)).logits[:, -1]
print("logits match a full pass:", torch.allclose(step.logits[:, -1], full, atol=1e-5))
# --8<-- [end:cache]

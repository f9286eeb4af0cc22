"""Which rows of the embedding matrix one training step gives a non-zero gradient, with the output layer tied to it
and without. The model is built from GPT-2's configuration with one layer and random weights, so nothing is
downloaded. A second seed repeats it with other random weights."""

import torch
from transformers import AutoModelForCausalLM, GPT2Config, GPT2LMHeadModel

from prompt import input_ids


# --8<-- [start:rows]
def rows_with_gradient(model):
    model.zero_grad(set_to_none=True)
    model(input_ids=input_ids, labels=input_ids).loss.backward()
    gradient = model.transformer.wte.weight.grad
    return gradient.abs().sum(dim=1).nonzero().flatten().tolist()


for seed in (1, 2):
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(GPT2Config(n_layer=1))  # random weights
    model.train()
    for untie in (False, True):
        wte_weight = model.transformer.wte.weight
        if untie:  # the output layer gets a matrix of its own, a copy
            model.lm_head.weight = torch.nn.Parameter(wte_weight.detach().clone())
        tied = model.lm_head.weight is model.transformer.wte.weight
        rows, total = rows_with_gradient(model), wte_weight.shape[0]
        listed = "" if len(rows) == total else f": {rows}"
        print(f"seed {seed}, {'tied' if tied else 'untied'}: {len(rows):,} of {total:,} rows non-zero{listed}")
# --8<-- [end:rows]

# What the page says of this example, checked whenever it runs. The class built here is the one
# AutoModelForCausalLM gives for GPT-2's configuration, and it ties its output layer to wte by default (a tiny
# one will do: the class depends on the configuration's type, not its sizes):
auto = AutoModelForCausalLM.from_config(GPT2Config(n_layer=1, n_head=1, n_embd=8, vocab_size=8, n_positions=8))
assert type(auto) is GPT2LMHeadModel and auto.lm_head.weight is auto.transformer.wte.weight
# Untied, the rows that get a gradient are those of the tokens that have a next token to predict: every token of
# the prompt but the last.
prompt = input_ids[0].tolist()
assert not tied and rows == sorted(set(prompt[:-1])) and prompt[-1] not in rows, rows

"""Which rows of the embedding matrix one training step gives a non-zero gradient, with the output layer tied to it
and without. The models are built from GPT-2's configuration with one layer and random weights, so nothing is
downloaded; two seeds show that the rows do not depend on the weight values."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

from prompt import input_ids

# --8<-- [start:rows]
def rows_with_gradient(seed, tie_word_embeddings):
    torch.manual_seed(seed)
    config = GPT2Config(n_layer=1, tie_word_embeddings=tie_word_embeddings)
    model = GPT2LMHeadModel(config)  # random weights
    tied = model.lm_head.weight is model.transformer.wte.weight

    model.train()
    model(input_ids=input_ids, labels=input_ids).loss.backward()
    gradient = model.transformer.wte.weight.grad
    rows = gradient.abs().sum(dim=1).nonzero().flatten().tolist()
    return tied, rows, gradient.shape[0]


for seed in (1, 2):
    for tie_word_embeddings in (True, False):
        tied, rows, total = rows_with_gradient(seed, tie_word_embeddings)
        listed = "" if len(rows) == total else f": {rows}"
        print(f"seed {seed}, {'tied' if tied else 'untied'}: {len(rows):,} of {total:,} rows{listed}")
# --8<-- [end:rows]

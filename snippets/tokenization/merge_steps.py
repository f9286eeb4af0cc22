"""The merges that build " ChatGPT" from its bytes, in rank order, ending on the tokenizer's pieces."""

from byte_pair_merges import byte_level, merges_in_rank_order
from pinned_tokenizer import tokenizer

# --8<-- [start:steps]
word = " ChatGPT"

print(f"{'bytes':<22}{byte_level(word)}")
for rank, (first, second), pieces in merges_in_rank_order(word):
    print(f"{f'rank {rank}: {first} + {second}':<22}{pieces}")

tokens = tokenizer.tokenize(word)
print(f"{'tokenizer':<22}{tokens}")
print(f"{'same pieces':<22}{pieces == tokens}")
print(f"{'ids':<22}{tokenizer.convert_tokens_to_ids(tokens)}")
# --8<-- [end:steps]

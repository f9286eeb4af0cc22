"""A token's position is its place in the prompt's list of ids, counted from 0: the prompt's tokens with theirs."""

from prompt import input_ids, tokenizer

# --8<-- [start:positions]
for position, token_id in enumerate(input_ids[0].tolist()):
    print(f"position {position}: id {token_id:>5}, {tokenizer.decode([token_id])!r}")
# --8<-- [end:positions]

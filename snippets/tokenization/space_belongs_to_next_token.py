"""A leading space is part of the token after it, written Ġ in the vocabulary."""

from pinned_tokenizer import tokenizer

# --8<-- [start:compare]
for text in ["is", " is"]:
    print(f"{text!r:>5} → {tokenizer.tokenize(text)} {tokenizer.encode(text)}")

token_ids = tokenizer.encode(" is")
print(f"{token_ids} decodes to {tokenizer.decode(token_ids)!r}")
# --8<-- [end:compare]

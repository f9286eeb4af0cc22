"""A run of spaces costs one token per space but the last, which joins the word after it: indentation is not free."""

from pinned_tokenizer import tokenizer

# --8<-- [start:spaces]
for text in ["x", " x", "    x", "        x"]:
    tokens = tokenizer.tokenize(text)
    print(f"{text!r:12} {tokens} ({len(tokens)})")

only_spaces = [token for token in tokenizer.get_vocab() if set(token) == {"Ġ"}]
print(f"vocabulary tokens made only of spaces: {only_spaces}")
# --8<-- [end:spaces]

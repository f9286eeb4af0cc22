"""The limit the position table sets: it has a row for each of `n_positions` positions, and a pass over one token
more fails in the table's lookup. Two ways to stay within it: keep the last `n_positions` tokens, or have the
tokenizer cut the text to that length."""

import traceback

from prompt import input_ids, tokenizer
from random_gpt2 import model

# --8<-- [start:limit]
limit = model.config.n_positions
print("n_positions:", limit)

text = " ".join(["Software is changing how we"] * 250)
ids = tokenizer(text, return_tensors="pt")["input_ids"]
print("tokens in the text:", ids.shape[1])

print("logits for", model(ids[:, :limit]).logits.shape[1], "positions")
try:
    model(ids[:, : limit + 1])
except IndexError as error:
    print(f"{limit + 1} tokens: {type(error).__name__}: {error}")

last = ids[:, -limit:]  # the most recent tokens, for a text that goes on
cut = tokenizer(text, truncation=True, max_length=limit, return_tensors="pt")["input_ids"]  # from the start

print("kept:", last.shape[1], "tokens; cut:", cut.shape[1], "tokens")
# --8<-- [end:limit]

# What the page says, checked whenever this runs: the text is longer than the limit, the tokenizer keeps its first
# tokens and the slice its last; and the error is PyTorch's, raised by the lookup in the position table (the last
# line of Transformers' code it passes through looks up `self.wpe`).
assert ids.shape[1] > limit and cut.tolist() == ids[:, :limit].tolist()
assert last.shape[1] == limit and input_ids[0].tolist() == ids[0, :5].tolist()
try:
    model(ids[:, : limit + 1])
except IndexError as error:
    frames = traceback.extract_tb(error.__traceback__)
in_transformers = [frame for frame in frames if "/transformers/" in frame.filename.replace("\\", "/")]
assert "self.wpe(" in in_transformers[-1].line and frames[-1].filename.endswith("functional.py"), frames

"""Part 2's prompt, "Software is changing how we", as the five token ids that part starts from."""

from pinned_tokenizer import tokenizer

# --8<-- [start:ids]
prompt = "Software is changing how we"
token_ids = tokenizer.encode(prompt)

print(prompt)
print(tokenizer.tokenize(prompt))
print(token_ids)
# --8<-- [end:ids]

"""GPT-2's one special token, the roles it plays, and that encoding a text adds it nowhere."""

from pinned_tokenizer import tokenizer

# --8<-- [start:special]
print(f"special tokens: {tokenizer.all_special_tokens}")
for role in ["bos_token", "eos_token", "unk_token", "pad_token"]:
    print(f"{role:9}  {getattr(tokenizer, role)!r}")

print(f"'hi' → {tokenizer.encode('hi')}")
print(f"'hi<|endoftext|>' → {tokenizer.encode('hi<|endoftext|>')}")
split = tokenizer.encode("hi<|endoftext|>", split_special_tokens=True)
print(f"'hi<|endoftext|>', split_special_tokens=True → {split}")
# --8<-- [end:special]

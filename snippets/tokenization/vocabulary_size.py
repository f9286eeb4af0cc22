"""GPT-2's vocabulary, counted from its files: byte tokens, merges and one special token."""

import json
from pathlib import Path

from pinned_tokenizer import merges_path, tokenizer, vocab_path

# --8<-- [start:count]
vocab = json.loads(Path(vocab_path).read_text(encoding="utf-8"))
merges = Path(merges_path).read_text(encoding="utf-8").splitlines()[1:]  # after the header

byte_tokens = [token for token in vocab if len(token) == 1]
byte_ids = [vocab[token] for token in byte_tokens]

print(f"{len(vocab):,} entries in vocab.json")
print(f"{len(byte_tokens)} byte tokens, ids {min(byte_ids)} to {max(byte_ids)}")
print(f"{len(merges):,} merges in merges.txt")
print(f"{tokenizer.eos_token} has id {vocab[tokenizer.eos_token]}")
# --8<-- [end:count]

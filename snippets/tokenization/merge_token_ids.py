"""Every merge adds one token to the vocabulary, whose id follows from its rank: byte tokens first, then merges."""

import json
from pathlib import Path

from pinned_tokenizer import merges_path, vocab_path

# --8<-- [start:check]
vocab = json.loads(Path(vocab_path).read_text(encoding="utf-8"))
merges = Path(merges_path).read_text(encoding="utf-8").splitlines()[1:]  # after the header
byte_token_count = sum(len(token) == 1 for token in vocab)

created = [vocab.get(merge.replace(" ", "")) for merge in merges]
in_rank_order = sum(token_id == byte_token_count + rank for rank, token_id in enumerate(created))

print(f"{len(merges):,} merges checked")
print(f"{in_rank_order:,} create the token with id {byte_token_count} + their rank")
# --8<-- [end:check]

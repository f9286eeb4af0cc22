"""merges.txt: a version header, then one merge per line, each creating the next token id."""

from pathlib import Path

from pinned_tokenizer import merges_path, tokenizer

# --8<-- [start:lines]
lines = Path(merges_path).read_text(encoding="utf-8").splitlines()
merges = lines[1:]

print(f"{len(lines):,} lines")
print(lines[0])
for rank in [0, 1, 2, len(merges) - 1]:
    first, second = merges[rank].split(" ")
    token = first + second
    token_id = tokenizer.convert_tokens_to_ids(token)
    print(f"rank {rank}: {first} + {second} → {token}, id {token_id}")
# --8<-- [end:lines]

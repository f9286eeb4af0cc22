"""Byte tokens are not numbered by byte value: the printable bytes come first, in byte order, then the others."""

import json
from pathlib import Path

from byte_pair_merges import byte_to_character, others, printable
from pinned_tokenizer import vocab_path

# --8<-- [start:ids]
vocab = json.loads(Path(vocab_path).read_text(encoding="utf-8"))
byte_id = {byte: vocab[byte_to_character[byte]] for byte in range(256)}

for group, name in [(printable, "printable bytes"), (others, "other bytes")]:
    ids = [byte_id[byte] for byte in group]
    in_order = ids == sorted(ids)
    print(f"{len(group)} {name}: ids {min(ids)} to {max(ids)}, in byte order: {in_order}")

for byte in [0x21, 0x41, 0x00, 0x0A, 0x20, 0x80, 0x9A]:
    print(f"byte 0x{byte:02x} → {byte_to_character[byte]!r}, id {byte_id[byte]}")
# --8<-- [end:ids]

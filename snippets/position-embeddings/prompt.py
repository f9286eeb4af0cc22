"""GPT-2's tokenizer at the pinned revision, and the prompt of Parts 1 and 2, as token ids.

Only the tokenizer's files are loaded here, never weights. The snippets of this
part import `tokenizer` and `input_ids` from this file.
"""

from transformers import GPT2Tokenizer

# --8<-- [start:load]
REVISION = "607a30d783dfa663caf39e06633721c8d4cfcd7e"

tokenizer = GPT2Tokenizer.from_pretrained("gpt2", revision=REVISION)
# --8<-- [end:load]

# Offline, with GPT-2's files in no cache, Transformers 5 loads an empty tokenizer without a word: say so here.
assert len(tokenizer) > 1, (
    "GPT-2's vocab.json and merges.txt are not in the Hugging Face cache. "
    "Run `make tokenizer`, or connect to the Hugging Face hub, then run this again."
)

# --8<-- [start:prompt]
input_ids = tokenizer(
    "Software is changing how we",
    return_tensors="pt",
)["input_ids"]
# --8<-- [end:prompt]

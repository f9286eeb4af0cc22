"""GPT-2's tokenizer and its two vocabulary files, at the revision every output on the site comes from.

The snippets of this part import `tokenizer`, `vocab_path` and `merges_path`
from here. Nothing here loads model weights: the tokenizer needs only its
vocabulary files.
"""

from huggingface_hub import hf_hub_download
from transformers import GPT2Tokenizer

# --8<-- [start:load]
REVISION = "607a30d783dfa663caf39e06633721c8d4cfcd7e"

tokenizer = GPT2Tokenizer.from_pretrained("gpt2", revision=REVISION)
# --8<-- [end:load]

# --8<-- [start:files]
vocab_path = hf_hub_download("gpt2", "vocab.json", revision=REVISION)
merges_path = hf_hub_download("gpt2", "merges.txt", revision=REVISION)
# --8<-- [end:files]

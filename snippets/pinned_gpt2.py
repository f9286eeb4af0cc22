"""GPT-2 small and its tokenizer at the revision every output on the site comes from.

The other model snippets import `model`, `tokenizer` and `input_ids` from here,
so the model is loaded once per process and the pin is written in one place.
"""

from transformers import AutoModelForCausalLM, AutoTokenizer

# --8<-- [start:load]
REVISION = "607a30d783dfa663caf39e06633721c8d4cfcd7e"

model = AutoModelForCausalLM.from_pretrained("gpt2", revision=REVISION)
tokenizer = AutoTokenizer.from_pretrained("gpt2", revision=REVISION)
# --8<-- [end:load]

# --8<-- [start:prompt]
input_ids = tokenizer(
    "Software is changing how we",
    return_tensors="pt",
)["input_ids"]
# --8<-- [end:prompt]

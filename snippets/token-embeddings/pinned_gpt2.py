"""GPT-2 small at the revision every model output on the site comes from.

The model snippets import `model` from here, so it is loaded once per process
and its pin is written once, beside the tokenizer's in `prompt.py`.
"""

from transformers import AutoModelForCausalLM

from prompt import REVISION

# --8<-- [start:load]
model = AutoModelForCausalLM.from_pretrained("gpt2", revision=REVISION)
# --8<-- [end:load]

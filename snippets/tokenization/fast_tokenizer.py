"""`GPT2TokenizerFast`, the name that gives a tokenizer with a `backend_tokenizer` under Transformers 4 as well as 5."""

from transformers import GPT2TokenizerFast

from pinned_tokenizer import REVISION, tokenizer

# --8<-- [start:fast]
fast = GPT2TokenizerFast.from_pretrained("gpt2", revision=REVISION)
text = "She's  got 42 cats, hasn't she?"

words = [word for word, _ in fast.backend_tokenizer.pre_tokenizer.pre_tokenize_str(text)]
print(f"words  {words}")
print(f"same ids as GPT2Tokenizer: {fast.encode(text) == tokenizer.encode(text)}")
# --8<-- [end:fast]

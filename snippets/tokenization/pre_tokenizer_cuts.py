"""The pre-tokenizer's cuts: the words that merges work within, before any merge runs."""

from pinned_tokenizer import tokenizer

# --8<-- [start:cuts]
pre_tokenizer = tokenizer.backend_tokenizer.pre_tokenizer
print(pre_tokenizer)

for text in ["She's  got 42 cats, hasn't she?", "tabs\tand\nnewlines"]:
    words = [word for word, _ in pre_tokenizer.pre_tokenize_str(text)]
    print(repr(text))
    print(f"  words   {words}")
    print(f"  tokens  {tokenizer.tokenize(text)}")
    print(f"  ids     {tokenizer.encode(text)}")
# --8<-- [end:cuts]

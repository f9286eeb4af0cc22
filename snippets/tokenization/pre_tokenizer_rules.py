"""Where the pre-tokenizer's rules for contractions, runs of white space and numbers apply, and where they do not."""

from pinned_tokenizer import tokenizer

# --8<-- [start:rules]
pre_tokenizer = tokenizer.backend_tokenizer.pre_tokenizer

for text in ["it's", "IT'S", "it’s", "'stop'", " 'stop'", "a  b", "a \tb", "a  \n", "3½ Ⅻ²"]:
    words = [word for word, _ in pre_tokenizer.pre_tokenize_str(text)]
    print(f"{text!r:9} {words}")
# --8<-- [end:rules]

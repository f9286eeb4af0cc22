"""The pinned tokenizer's ids for texts that are hard to tokenize: the cases the page's "Try it" box must match.

One JSON line per case, {"text": ..., "ids": [...]}: the browser test types each text into the box
and requires the very same ids. A text the tokenizer refuses gets {"text": ..., "refused": ERROR} instead,
and the box must refuse it too.
"""

import json

from pinned_tokenizer import tokenizer

PARAGRAPH = " ".join(
    [
        "A tokenizer sits between a person typing and a model computing, and it is easy to forget that it is there.",
        "Every character of a prompt, whether a letter, a digit, a comma or a tab, has to become part of some token",
        "before anything else can happen, and the way it is cut decides how many steps the model spends on the text.",
        "English prose in plain ASCII is the friendly case: most frequent words come out whole, with the space in",
        "front of them, and only rare names or new coinages fall apart into two, three or four pieces.",
        "Other scripts fare worse. A sentence in Greek, Hindi or Japanese needs several bytes per character, and",
        "when those byte sequences were rare in the training text, the merges never learned to join them, so a",
        "short phrase can cost more tokens than a long English one.",
        "Numbers are a second weak spot: 1234567 and 1,234,567 are split in different places, 3.14159 becomes",
        "several pieces, and a year such as 2019 may be a single token while 2091 is not.",
        "Code brings its own trouble, since indentation is made of spaces, and four spaces, a tab or a blank line",
        "each turn into tokens of their own that a reader never sees.",
        "None of this is a mistake. It is what a vocabulary of fixed size learned from a large sample of web pages",
        "looks like, and knowing its habits helps explain why a model counts letters badly, why it prices languages",
        "unequally, and why a prompt that looks short on the screen can still fill its context window quickly.",
        "The box on this page runs the same merges, in the same order, and shows each of those choices as it happens.",
    ]
)

# --8<-- [start:cases]
cases = [
    "Software is changing how we",
    "café, naïve, Ångström, São Paulo",
    "e\u0301 (e and a combining acute accent), n\u0303, a\u0308\u0304",
    "🚀 🙂👍🏽 👩‍💻 👨‍👩‍👧‍👦 🏳️‍🌈",
    "日本語のテキスト、中文文本和한국어 텍스트",
    "I'm sure they've said it's what we'd do, and you'll see we're right; DON'T",
    "7 42 2019 3.14159 1,234,567 12345678901234567890 ½ ² ٣",
    "spaces:  two,   three,    four;\ttab\t\tand tabs\nnewline\n\nblank line\n",
    "   leading spaces",
    "trailing spaces   ",
    "\t\n mixed \n\t ",
    "<|endoftext|>",
    "before<|endoftext|>after and <|endoftext|> spaced, <|endoftext|><|endoftext|>",
    "<|endoftext |> <| endoftext|> <|EndOfText|>",
    "zero\u200bwidth, no\u00a0break, ideographic\u3000space, byte order\ufeffmark, next\u0085line",
    "x\u2028y\u2029z \x00\x01\x1f\x7f",
    # White space to the tokenizer but not to a browser (U+0085), and the other way round (U+FEFF).
    "a \ufeffb",
    "\ufeff\ufeffstart, two \ufeff\ufeff marks \ufeff",
    "x \u0085y",
    "line\u0085\u0085next \u0085 9",
    # Letters and numbers newer than the tokenizer's Unicode tables: to it, symbols like any other.
    "\u0c5c's",
    "\u088f\u0cdc \ua7ce\ua7cf \U00010940\U00010941's",
    "\U00011de0\U00011de1 \U00016ff4 7\U00011de5",
    # Half of a UTF-16 surrogate pair, which is no character: the tokenizer takes no text that holds one.
    "a\ud800b",
    "𝟘𝟙𝟚 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ℌ Ⅻ ﬁ",
    "def f(x):\n    return x ** 2  # square\n",
    "''''''''' \"quoted\" ...!!!??? ---",
    PARAGRAPH,
]

for text in cases:
    try:
        case = {"text": text, "ids": tokenizer.encode(text)}
    except TypeError as refusal:
        case = {"text": text, "refused": type(refusal).__name__}
    # A lone surrogate cannot be printed as UTF-8: such a text is written with JSON's escapes.
    print(json.dumps(case, ensure_ascii="refused" in case))
# --8<-- [end:cases]

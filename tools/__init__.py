"""Developer tools around the built site (serving it locally, and for its tokenizer, writing its character classes
and timing its first ids)."""

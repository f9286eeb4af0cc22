"""Developer tools around the built site (serving it locally, auditing it, writing its tokenizer's classes)."""

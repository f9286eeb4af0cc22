"""The record step: run the snippets, store their outputs with provenance, guard them."""

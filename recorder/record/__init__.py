"""The record step (`make record`), engine-free: run what is stale, store its outputs, write the notebooks."""

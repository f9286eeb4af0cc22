"""Developer tools around the built site (serving it locally)."""

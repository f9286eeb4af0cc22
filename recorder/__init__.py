"""The machinery behind the site: a folder per layer, each importing only from those below it (CONTRIBUTING.md,
"How the code is laid out"): project/, then record/ and render/, then check/, engines/ and tools/."""

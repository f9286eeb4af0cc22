"""`make bench`: the build measured against the physical limit and against mkdocs-jupyter."""

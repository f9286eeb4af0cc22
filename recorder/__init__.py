"""The pipeline of the site, in the order the data takes it.

- record/: the record step (`python -m recorder record`), engine-free: find the snippets, run them, store their
  outputs, then write the notebooks from what it stored;
- state.py: whether the site can be built, worked out once per content of its inputs, for every consumer;
- render/: the build (`mkdocs build`, `zensical build`): render the pages from what was stored, read-only;
- tools/: around them: `recorder diff`, `pr-record`, `make compat`.

What every stage shares stands here: errors.py, pinned.py, and what the record step and the build both read
(directives.py, values.py, repository.py, provenance.py, recorded.py); __main__.py is `python -m recorder`.
"""

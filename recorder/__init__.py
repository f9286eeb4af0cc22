"""The pipeline of the site, in the order the data takes it.

- record/: the record step (`python -m recorder record`): find the snippets, run them, store their outputs, then
  write the notebooks from what it stored;
- render/: the build (`mkdocs build`, `zensical build`): render the pages from what was stored, read-only;
- tools/: around them: `recorder diff`, `recorder check` and `pr-record`, `make compat`.

errors.py and pinned.py, which every stage shares, stand here; __main__.py is `python -m recorder`.
"""

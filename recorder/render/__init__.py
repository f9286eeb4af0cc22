"""The build: render the pages from what the record step stored, read-only, failing on any drift; its modules in
the order a page goes through them:

1. directives.py: parse a page's directives;
2. values.py: the values prose quotes, read from the outputs through templates;
3. pages.py: what the directives show: snippet sections, outputs and figures as HTML;
4. provenance.py, repository.py, compat_page.py: provenance lines and tables, links to the repository, the
   compatibility table;
5. extension.py: the Markdown extension that MkDocs and Zensical both run, which puts all of it into a page;
6. plugin.py: the thin MkDocs plugin for what MkDocs alone offers, with notebook_page.py (notebooks as pages),
   tokenizer_files.py (the files Part 1's tokenizer reads) and llms_markdown.py (pages for llms.txt).
"""

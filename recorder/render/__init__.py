"""The build: render the pages from what the record step stored, read-only; its modules in the order a page goes
through them:

1. tokenizer_files.py: the files Part 1's tokenizer reads, checked before the site publishes them;
2. pages.py, compat_page.py: outputs, figures and the compatibility table as HTML;
3. page.py: what each directive of a page becomes, and the problems of every page;
4. notebook_page.py: a notebook as a page, without what mkdocs-jupyter loads from elsewhere;
5. extension.py: the Markdown extension that MkDocs and Zensical both run, which puts all of it into a page;
6. plugin.py: the thin MkDocs plugin for what MkDocs alone offers, with llms_markdown.py (pages for llms.txt).
"""

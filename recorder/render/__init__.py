"""The build: render the pages from what the record step stored, read-only; its modules in the order a page goes
through them:

1. tokenizer_files.py: the files Part 1's tokenizer reads, checked before the site publishes them;
2. pages.py, compat_page.py: outputs, figures and the compatibility table as HTML;
3. page.py: what each directive of a page becomes, and the values no page quotes;
4. conversion.py: the processors that put those into a page's conversion, and every page converted so for the
   state's check (a directive the conversion would lose, a link to nothing);
5. notebook_page.py: a notebook as a page, without what mkdocs-jupyter loads from elsewhere;
6. extension.py: the Markdown extension that MkDocs and Zensical both run, reading the checked state;
7. plugin.py: the thin MkDocs plugin for what MkDocs alone offers, with llms_markdown.py (pages for llms.txt);
8. preview.py: the live preview (`make serve`), which records what each edit makes stale before MkDocs rebuilds.
"""

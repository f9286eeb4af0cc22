"""A notebook's page as mkdocs-jupyter renders it, made to load nothing from elsewhere and to paint early."""

import re

from recorder.project.errors import PageError

# An HTML <style> or <script> ends at the first `</style` or `</script`; (?:(?!</script).)* stays inside one.
INLINE_STYLE = re.compile(r"<style\b.*?</style\b[^>]*>", re.S | re.I)
# These notebooks have neither math nor diagrams, and the site loads nothing from elsewhere.
REMOTE_LOADERS = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->"
    r'|<script type="module">(?:(?!</script).)*?\.jp-Mermaid.*?</script>',
    re.S,
)
COPY_SCRIPT = re.compile(r"<script>(?:(?!</script).)*?clipboard-copy.*?</script>", re.S)


def without_styles(html: str) -> str:
    """A notebook's content minus the JupyterLab stylesheets mkdocs-jupyter inlines (570 KB, of which the
    cells use a few dozen rules): docs/stylesheets/notebook.css holds those."""
    return INLINE_STYLE.sub("", html)


def without_remote_loaders(html: str) -> str:
    """A rendered notebook minus the MathJax and Mermaid loaders, which would fetch scripts from other hosts."""
    html, removed = REMOTE_LOADERS.subn("", html)
    if removed != 2:
        raise PageError(
            f"found {removed} of the 2 script loaders (MathJax, Mermaid) that mkdocs-jupyter writes; "
            "its template changed. Update REMOTE_LOADERS in recorder/render/notebook_page.py to match it."
        )
    return html


def with_copy_scripts_last(page: str) -> str:
    """A built notebook page with the copy buttons' inline scripts moved from above the first cell, where
    the parser stops to run them, to the end of its body: the buttons need them only once clicked."""
    scripts = COPY_SCRIPT.findall(page)
    body_end = page.rfind("</body>")
    if len(scripts) != 2 or body_end == -1:
        raise PageError(
            f"found {len(scripts)} of the 2 inline scripts of the copy buttons (mentioning `clipboard-copy`) "
            f"that mkdocs-jupyter writes, {'and' if body_end != -1 else 'but no'} end of <body>; its template "
            "changed. Update COPY_SCRIPT in recorder/render/notebook_page.py to match it."
        )
    return COPY_SCRIPT.sub("", page[:body_end]) + "".join(scripts) + page[body_end:]

"""A page's inline stylesheets lose the rules and custom properties nothing on the page can use, and nothing else."""

from __future__ import annotations

from pathlib import Path

import mkdocs_jupyter
import pytest
import tinycss2

from recorder.unused_css import _simple_tokens, _statements, without_unused_css

LINKED = {"../theme.css": ".md-typeset{color:var(--theme-color)}"}
JUPYTERLAB_CSS = (Path(mkdocs_jupyter.__file__).parent / "templates" / "mkdocs_html" / "assets" / "index.css").read_text(
    encoding="utf-8")


def page(css: str, body: str = '<div class="cell" id="first"><pre>x</pre></div>') -> str:
    return (f'<!doctype html>\n<html><head><link rel="stylesheet" href="../theme.css">\n'
            f'<style type="text/css">\n{css}\n</style></head>\n<body class="md-typeset">{body}</body></html>\n')


def pruned_css(css: str, body: str | None = None) -> str:
    html = page(css) if body is None else page(css, body)
    out = without_unused_css(html, LINKED.__getitem__)
    before, _, rest = out.partition('<style type="text/css">')
    assert before == html.partition('<style type="text/css">')[0], "the page before the stylesheet changed"
    css_out, _, after = rest.partition("</style>")
    assert after == html.partition("</style>")[2], "the page after the stylesheet changed"
    return css_out


@pytest.mark.parametrize("rule", [
    ".cell pre{color:red}",
    "body.md-typeset > div#first{color:red}",
    ".cell:hover pre::before{color:red}",  # what the reader changes is not weighed
    "[data-md-color-scheme=slate] .cell{color:red}",  # nor what the palette switches
    ".cell:not(.absent){color:red}",
    ".absent, .cell{color:red}",  # kept whole: one selector may match
])
def test_a_rule_that_may_apply_is_kept_as_written(rule: str) -> None:
    assert pruned_css(rule) == rule


@pytest.mark.parametrize("rule", [".absent{color:red}", "table .cell{color:red}", ".cell table{color:red}",
                                  "#second{color:red}", ".cell .absent pre{color:red}", ".cell>table{color:red}"])
def test_a_rule_naming_what_the_page_lacks_is_dropped(rule: str) -> None:
    assert pruned_css(f"{rule}\n.cell{{color:blue}}") == ".cell{color:blue}"


def test_grouping_rules_keep_what_applies_inside_and_go_when_nothing_does() -> None:
    css = "@media (min-width: 10em){.cell{margin:0}.absent{margin:0}}\n@media print{.absent{margin:0}}"
    assert pruned_css(css) == "@media (min-width: 10em){.cell{margin:0}}"


def test_custom_properties_nothing_reads_are_dropped() -> None:
    css = (".cell{--unused:1px;--read:var(--chained);--chained:2px;--theme-color:red;--in-style:3px;"
           "margin:var(--read)}\n.absent{--only-read-by-a-dropped-rule:0;padding:var(--unused)}")
    body = '<div class="cell" id="first" style="padding: var(--in-style)"></div>'
    assert pruned_css(css, body) == ".cell{--read:var(--chained);--chained:2px;--theme-color:red;--in-style:3px;margin:var(--read)}"


def test_parse_errors_go_and_an_emptied_style_element_with_them() -> None:
    html = page("['pre { line-height: 125%; }', '.absent{}']\n.absent{color:red}")
    assert without_unused_css(html, LINKED.__getitem__) == html.replace(
        html[html.index('<style type="text/css">'):html.index("</style>") + len("</style>")], "")


def test_other_at_rules_stay_as_written() -> None:
    css = '@charset "UTF-8";\n@keyframes spin{from{transform:rotate(0)}to{transform:rotate(1turn)}}'
    assert pruned_css(css) == css


@pytest.mark.parametrize(("rule", "kept"), [
    ('.cell::after{content:"} .absent{"}', '.cell::after{content:"} .absent{"}'),
    (".cell::after{content:'\\'}'}", ".cell::after{content:\"'}\"}"),  # kept rules are written anew
    (".cell{background:URL(data:x{y})}", ".cell{background:url(data:x{y})}"),
    (".cell{/* } */color:red}", ".cell{color:red}"),
    (".cell, .a\\{b{color:red}", ".cell, .a\\{b{color:red}"),
])
def test_braces_in_strings_urls_comments_and_escapes_do_not_end_a_rule(rule: str, kept: str) -> None:
    assert pruned_css(f"{rule}\n.absent{{color:blue}}") == kept


def test_rules_are_split_as_tinycss2_splits_them_on_jupyterlabs_stylesheet() -> None:
    """The split that spares tokenizing dropped rules agrees with a full parse of the real thing."""
    css = JUPYTERLAB_CSS

    def text(tokens: list[tinycss2.ast.Node] | None) -> str | None:
        return None if tokens is None else "".join(tinycss2.serialize(
            [token for token in tokens if token.type != "comment"]).split())

    parsed = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    split = list(_statements(css))
    assert len(split) == len(parsed) > 3000
    for statement, rule in zip(split, parsed, strict=True):
        prelude = ([tinycss2.ast.AtKeywordToken(0, 0, rule.at_keyword), *rule.prelude] if rule.type == "at-rule"
                   else rule.prelude)
        assert text(tinycss2.parse_component_value_list(statement.prelude)) == text(prelude)
        block = None if statement.block is None else tinycss2.parse_component_value_list(statement.block)
        assert text(block) == text(rule.content)


def test_simple_selectors_are_tokenized_as_tinycss2_tokenizes_them_on_jupyterlabs_stylesheet() -> None:
    """The tokenizer that spares tinycss2 most of the rules agrees with it, and does spare it most."""
    def read(tokens: list[tinycss2.ast.Node]) -> list[tuple[str, object, object]]:
        return [(token.type, getattr(token, "value", None), getattr(token, "is_identifier", None))
                for token in tokens]

    preludes = [statement.prelude for statement in _statements(JUPYTERLAB_CSS)]
    simple = {prelude: tokens for prelude in preludes if (tokens := _simple_tokens(prelude)) is not None}
    assert len(simple) > 0.8 * len(preludes)
    for prelude, tokens in simple.items():
        assert read(tokens) == read(tinycss2.parse_component_value_list(prelude)), prelude
    assert _simple_tokens(".a:not(.b)") is None and _simple_tokens(".a /* c */") is None
    assert _simple_tokens("[data-x] .a") is None and _simple_tokens(".\\31 a") is None


@pytest.mark.slow
def test_the_notebook_page_keeps_the_cells_css_only(built_site: Path) -> None:
    html = (built_site / "notebooks" / "token-embeddings" / "index.html").read_text(encoding="utf-8")
    assert ".jp-OutputArea-output" in html  # the cells' own styles stay
    assert ".jp-Dialog" not in html and "--jp-icon-" not in html  # JupyterLab's application does not
    assert len(html) < 150_000, "the page carries more than its cells' CSS again"

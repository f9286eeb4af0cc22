"""Expand the page directives into Markdown and HTML.

A page writes, each block directive alone on its line:

    {{ code FILE:SECTION }}      a snippet section as a code block
    {{ example FILE:SECTION }}   the same, followed by its recorded output and provenance
    {{ value NAME }}             inline: a named value read from a recorded output

Recorded outputs never pass through Markdown: the Markdown gets a placeholder
paragraph and `render_output` puts escaped HTML in its place afterwards, so
an output holding `<script>`, Markdown or `--8<--` stays literal text.
"""

from __future__ import annotations

import html
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs.utils import get_relative_url

from recorder.pinned import MODEL_ID, OUTPUTS_DIR, SNIPPETS_DIR, short

# Inline code and fenced blocks are skipped, so pages can show the syntax itself.
_SKIPPED = r"(?ms:^[ \t]*(?P<fence>`{3,}|~{3,}).*?^[ \t]*(?P=fence)[ \t]*$)|(?P<ticks>`+)[^`\n].*?(?P=ticks)"
_DIRECTIVE = re.compile(_SKIPPED + r"|(?P<indent>^[ \t]*)?\{\{(?P<body>.*?)\}\}(?P<rest>[ \t]*$)?", re.M)
_ARGUMENT = re.compile(r"(?P<file>[a-z][a-z0-9_]*\.py)(?::(?P<section>[a-z][-_0-9a-z]*))?$")
_VALUE_NAME = re.compile(r"[a-z][a-z0-9_]*$")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()>#+\-.!])")  # what Python-Markdown unescapes
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class PageError(Exception):
    """A directive the build cannot resolve; the message names the page and the fix."""


@dataclass
class PageState:
    """Outputs waiting to replace their placeholders in one page's HTML."""

    nonce: str = field(default_factory=lambda: secrets.token_hex(8))
    pending: dict[str, str] = field(default_factory=dict)

    def placeholder(self, rendered_html: str) -> str:
        token = f"recorded-output-{self.nonce}-{len(self.pending)}"
        self.pending[token] = rendered_html
        return token


@dataclass(frozen=True)
class Recorded:
    """What the pages may read: the manifest, the output texts, and named values."""

    root: Path
    manifest: dict[str, dict[str, Any]]
    values: dict[str, dict[str, str]]
    stale: dict[str, str]  # snippet name -> why its output is stale (only while previewing)

    def output(self, name: str) -> str:
        path = self.root / OUTPUTS_DIR / f"{name}.txt"
        if name not in self.manifest or not path.exists():
            raise PageError(f"snippets/{name}.py has no recorded output. Run `make record`.")
        return path.read_text(encoding="utf-8")

    def value(self, name: str) -> str:
        spec = self.values.get(name)
        if spec is None:
            known = ", ".join(sorted(self.values)) or "none"
            raise PageError(f"unknown value `{name}` (known: {known}). Declare it under "
                            "extra.recorded_values in mkdocs.yml.")
        match = re.search(spec["pattern"], self.output(spec["output"]), re.M)
        if match is None or match.re.groups != 1:
            raise PageError(
                f"value `{name}`: pattern {spec['pattern']!r} (one group) finds nothing in "
                f"{OUTPUTS_DIR}/{spec['output']}.txt. Fix the pattern in mkdocs.yml to match that output."
            )
        return match.group(1)


def expand(markdown: str, page: str, recorded: Recorded, state: PageState, page_url: str) -> str:
    def replace(match: re.Match[str]) -> str:
        body = match.group("body")
        if body is None:
            return match.group(0)
        kind, _, argument = body.strip().partition(" ")
        argument = argument.strip()
        if kind == "value":
            if not _VALUE_NAME.match(argument):
                raise PageError(f"{page}: `{{{{ value {argument} }}}}` needs a value name.")
            return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(recorded.value(argument), quote=False))
        if kind not in ("code", "example"):
            raise PageError(f"{page}: unknown directive `{{{{{body}}}}}`. Use code, example or value.")
        indent = match.group("indent")
        if indent is None or match.group("rest") is None:
            raise PageError(f"{page}: `{{{{ {kind} ... }}}}` must stand alone on its own line.")
        parsed = _ARGUMENT.match(argument)
        if parsed is None:
            raise PageError(f"{page}: `{{{{ {kind} {argument} }}}}` needs FILE.py or FILE.py:SECTION.")
        check_include(recorded.root, parsed.group("file"), parsed.group("section"))
        block = code_block(parsed.group("file"), parsed.group("section"))
        if kind == "example":
            name = parsed.group("file").removesuffix(".py")
            block += ["", state.placeholder(render_output(recorded, name, page_url))]
        return "\n".join(indent + line if line else line for line in block)

    return _DIRECTIVE.sub(replace, markdown)


def check_include(root: Path, file: str, section: str | None) -> None:
    """Name the missing file or section here, with its fix, before pymdownx.snippets would."""
    path = root / SNIPPETS_DIR / file
    if not path.is_file():
        raise PageError(f"{SNIPPETS_DIR}/{file} does not exist. Fix the directive's file name.")
    if section is None:
        return
    text = path.read_text(encoding="utf-8")
    for edge in ("start", "end"):
        if not re.search(rf"^[ \t]*#[ \t]*-+8<-+[ \t]*\[{edge}:{re.escape(section)}\][ \t]*$", text, re.M):
            raise PageError(
                f"{SNIPPETS_DIR}/{file} has no `# --8<-- [{edge}:{section}]` marker. Mark the lines "
                f"the page shows with [start:{section}] and [end:{section}], or fix the section name."
            )


def code_block(file: str, section: str | None) -> list[str]:
    include = f"{file}:{section}" if section else file
    return [f'```python title="{SNIPPETS_DIR}/{file}"', f'--8<-- "{include}"', "```"]


def render_output(recorded: Recorded, name: str, page_url: str) -> str:
    text = recorded.output(name)
    visible = _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text.rstrip("\n"))
    warning = ""
    if name in recorded.stale:
        warning = (f'<p class="recorded-output__stale"><strong>Stale output.</strong> '
                   f"{html.escape(recorded.stale[name])}</p>")
    return (
        f'<div class="recorded-output" data-snippet="{html.escape(name)}">{warning}'
        f'<div class="highlight"><span class="filename">Output</span>'
        f"<pre><code>{html.escape(visible)}</code></pre></div>"
        f'<p class="provenance">{provenance(recorded.manifest[name], name, page_url)}</p></div>'
    )


def provenance(entry: dict[str, Any], name: str, page_url: str) -> str:
    """One line saying where an output came from, in plain words."""
    day = html.escape(str(entry["recorded_at"])[:10])
    versions = entry.get("versions", {})
    link = f'<a href="{get_relative_url(f"{SNIPPETS_DIR}/{name}.py", page_url)}">{SNIPPETS_DIR}/{name}.py</a>'
    model = entry.get("model")
    if entry["origin"] == "published":
        reported = entry["published"]["reported_with"]
        libraries = ", ".join(f"{package} {version}" for package, version in reported.items())
        return (
            f"Published run of GPT-2 <code>{MODEL_ID}@{short(model['revision'])}</code> with "
            f"{html.escape(libraries)}, reported with this article; not re-executed here, since "
            f"building this site cannot load GPT-2's weights. Its weight-independent lines were "
            f"checked against the snippet on {day}. Source: {link}"
        )
    parts = [f"Executed by the build on {day}"]
    if model:
        weights = model["files"]["model.safetensors"]
        parts.append(f"GPT-2 <code>{MODEL_ID}@{short(model['revision'])}</code> "
                     f"(weights sha256 <code>{weights[:12]}…</code>, verified)")
    else:
        parts.append("no model needed")
    parts += [f"{html.escape(package)} {html.escape(str(version))}" for package, version in versions.items()
              if package in ("python", "torch", "transformers")]
    return " · ".join(parts) + f" · Source: {link}"


def replace_placeholders(page_html: str, state: PageState) -> str:
    for token, rendered in state.pending.items():
        page_html, count = re.subn(rf"<p>{re.escape(token)}</p>", lambda _: rendered, page_html)
        if count != 1:
            raise PageError(f"the output placeholder {token} was lost while rendering Markdown; "
                            "keep example directives outside of HTML blocks.")
    return page_html

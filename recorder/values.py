"""The values prose quotes (`{{ value PART/NAME }}`), read from recorded outputs through the templates of each part's
`snippets/<part>/values.yml`: each the whole output, with `{NAME}` where a value stands and `{}` where anything may
(str.format's syntax). As a template matches every line, an output whose shape changes fails the build naming the
value, the output and the line: it can never bind another number without a word.

A value may be named more than once, in one template or in those of several outputs: wherever it is named, it
must read the same (in the prose's style, so 50257 and 50,257 agree). That is how an output states that two
of its lines agree, and how a number one snippet types, which prose or a figure quotes, is bound to the output
that prints it from the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from string import Formatter

import yaml

from recorder.errors import RecorderError
from recorder.pinned import OUTPUTS_DIR, SNIPPETS_DIR

VALUES_FILE = "values.yml"
_NAME = re.compile(r"[a-z][a-z0-9_]*")


class TemplateError(RecorderError):
    """A values file or template that cannot be read, or an output that no longer fits its template."""


@dataclass(frozen=True)
class Template:
    part: str
    output: str  # the snippet's stem in its part's folder, whose recorded output the template reads
    lines: tuple[str, ...]
    names: tuple[str, ...]  # the values it names, in order

    @property
    def where(self) -> str:
        return f"{SNIPPETS_DIR}/{self.part}/{VALUES_FILE}"

    def read(self, text: str) -> dict[str, str]:
        """Each value the template names, read from `text`, the output it must match whole."""
        found: dict[str, str] = {}
        lines = text.rstrip("\n").split("\n")
        output = f"{OUTPUTS_DIR}/{self.part}/{self.output}.txt"
        for number, (template, line) in enumerate(zip(self.lines, lines, strict=False), 1):
            fields = _fields(template)
            pattern = "".join(
                re.escape(literal) + {None: "", "": "(.*?)"}.get(name, "(.+?)") for literal, name in fields
            )
            names = [name for _, name in fields if name is not None]  # "" for `{}`
            if (match := re.fullmatch(pattern, line)) is None:
                raise TemplateError(
                    f"value {_listed([name for name in names if name] or list(self.names))}: line "
                    f"{number} of {output} reads {line!r}, which the template line {template!r} in "
                    f"{self.where} does not match. Fix the template to the output (see `make diff`), "
                    "or the snippet."
                )
            for name, value in zip(names, match.groups(), strict=True):
                if name and found.setdefault(name, value) != value:
                    raise TemplateError(
                        f"value `{name}` reads both {found[name]!r} and {value!r} in {output}, "
                        f"where {self.where} names it twice: both must read the same. Fix the "
                        "snippet, or, if they are not the same value, give each its own name."
                    )
        if len(lines) != len(self.lines):
            number = min(len(lines), len(self.lines)) + 1
            what = f"has {len(lines)} lines, the template {len(self.lines)}" if lines else "is empty"
            raise TemplateError(
                f"value {_listed(list(self.names))}: {output} {what}, from line {number} on. A "
                f"template in {self.where} matches the whole output: add or remove its lines."
            )
        return found


def _fields(line: str) -> list[tuple[str, str | None]]:
    """A template line as (literal text, value name) pairs: name "" for `{}`, None after the last field."""
    try:
        parsed = list(Formatter().parse(line))
    except ValueError as error:
        raise TemplateError(f"template line {line!r}: {error}. Write a literal brace as `{{{{` or `}}}}`.") from None
    return [(literal, name) for literal, name, _, _ in parsed]


def _listed(names: list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names) or "(none named)"


def templates(root: Path, part: str) -> list[Template]:
    """The templates of `part`, checked for form; none when it declares no values."""
    path = root / SNIPPETS_DIR / part / VALUES_FILE
    if not path.is_file():
        return []
    shown = f"{SNIPPETS_DIR}/{part}/{VALUES_FILE}"
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise TemplateError(f"{shown} is not valid YAML ({error}).") from None
    if not isinstance(document, dict):
        raise TemplateError(f"{shown} maps each output (a snippet's stem) to its template, or to a list of them.")
    found = []
    for output, written in document.items():
        for text in written if isinstance(written, list) else [written]:
            if not isinstance(text, str) or not (root / SNIPPETS_DIR / part / f"{output}.py").is_file():
                raise TemplateError(
                    f"{shown}: `{output}` needs a template (text) and a snippet "
                    f"{SNIPPETS_DIR}/{part}/{output}.py whose output it reads."
                )
            lines = tuple(text.rstrip("\n").split("\n"))
            names = tuple(dict.fromkeys(name for line in lines for _, name in _fields(line) if name))
            for name in names:
                if not _NAME.fullmatch(name):
                    raise TemplateError(f"{shown}: value `{name}` is not a name (lower case, digits, `_`).")
            found.append(Template(part, str(output), lines, names))
    return found

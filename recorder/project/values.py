"""The values prose quotes (`{{ value PART/NAME }}`), read from recorded outputs through the templates of each part's
`snippets/<part>/values.yml`: each the whole output, with `{NAME}` where a value stands and `{}` where anything may
(str.format's syntax). As a template matches every line, an output whose shape changes fails the build naming the
value, the output and the line: it can never bind another number without a word.

A value may be named more than once, in one template or in those of several outputs: wherever it is named, it
must read the same (in the prose's style, so 50257 and 50,257 agree). That is how an output states that two
of its lines agree, and how a number one snippet types, which prose or a figure quotes, is bound to the output
that prints it from the model.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from string import Formatter

import yaml

from recorder.project.config import SNIPPETS_DIR
from recorder.project.errors import RecorderError
from recorder.project.manifest import OUTPUTS_DIR

VALUES_FILE = "values.yml"
_NAME = re.compile(r"[a-z][a-z0-9_]*")
# What a field of a template line matches: nothing after its last field; anything, or nothing, for `{}`; else a
# value, which an empty text would not be.
_GROUPS = {None: "", "": "(.*?)"}


class TemplateError(RecorderError):
    """A values file or template that cannot be read, or an output that no longer fits its template."""


@dataclass(frozen=True)
class Template:
    part: str
    output: str  # the snippet's stem in its part's folder, whose recorded output the template reads
    lines: tuple[str, ...]
    names: tuple[str, ...]  # the values it names, in order
    orphaned: str | None = (
        None  # why it reads no output, when its key names no snippet of the part (renamed or deleted)
    )

    @property
    def where(self) -> str:
        return f"{SNIPPETS_DIR}/{self.part}/{VALUES_FILE}"

    @property
    def output_file(self) -> str:
        """The recorded output the template reads."""
        return f"{OUTPUTS_DIR}/{self.part}/{self.output}.txt"

    def read(self, text: str) -> dict[str, str]:
        """Each value the template names, read from `text`, the output it must match whole."""
        read: dict[str, str] = {}
        lines = text.rstrip("\n").split("\n")
        for number, (template, line) in enumerate(zip(self.lines, lines, strict=False), 1):
            for name, value in self._line_values(number, template, line):
                if read.setdefault(name, value) != value:
                    raise TemplateError(
                        f"value `{name}` reads both {read[name]!r} and {value!r} in {self.output_file}, "
                        f"where {self.where} names it twice: both must read the same. Fix the "
                        "snippet, or, if they are not the same value, give each its own name."
                    )
        self._check_length(lines)
        return read

    def _line_values(self, number: int, template: str, line: str) -> list[tuple[str, str]]:
        """Each value that `template`, the template's line `number`, names, as (name, value) read from `line`."""
        fields = _fields(template)
        names = [name for _, name in fields if name is not None]  # "" for `{}`
        pattern = "".join(re.escape(literal) + _GROUPS.get(name, "(.+?)") for literal, name in fields)
        if (match := re.fullmatch(pattern, line)) is None:
            raise TemplateError(
                f"value {_listed([name for name in names if name] or list(self.names))}: line "
                f"{number} of {self.output_file} reads {line!r}, which the template line {template!r} in "
                f"{self.where} does not match. Fix the template to the output (see `make diff`), "
                "or the snippet."
            )
        return [(name, value) for name, value in zip(names, match.groups(), strict=True) if name]

    def _check_length(self, lines: list[str]) -> None:
        """Fail unless the output has as many lines as the template, whose lines it matched as far as both go."""
        if len(lines) != len(self.lines):
            number = min(len(lines), len(self.lines)) + 1
            what = f"has {len(lines)} lines, the template {len(self.lines)}" if lines else "is empty"
            raise TemplateError(
                f"value {_listed(list(self.names))}: {self.output_file} {what}, from line {number} on. A "
                f"template in {self.where} matches the whole output: add or remove its lines."
            )


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
    """The templates of `part`, checked for form; none when it declares no values. Its values file maps each output (a
    snippet's stem) to its template, or to a list of them."""
    path = root / SNIPPETS_DIR / part / VALUES_FILE
    if not path.is_file():
        return []
    where = f"{SNIPPETS_DIR}/{part}/{VALUES_FILE}"
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise TemplateError(f"{where} is not valid YAML ({error}).") from None
    if not isinstance(document, dict):
        raise TemplateError(f"{where} maps each output (a snippet's stem) to its template, or to a list of them.")
    return [
        _template(root, part, str(output), text, where)
        for output, written in document.items()
        for text in (written if isinstance(written, list) else [written])
    ]


def _template(root: Path, part: str, output: str, text: object, where: str) -> Template:
    """A template of `output` from the values file `where`, checked: text naming each value by a name. One whose key
    names no snippet is returned `orphaned`, so that the values it names are known, and refused where they are read."""
    if not isinstance(text, str):
        raise TemplateError(f"{where}: `{output}` needs a template: the text of the output it reads.")
    lines = tuple(text.rstrip("\n").split("\n"))
    names = tuple(dict.fromkeys(name for line in lines for _, name in _fields(line) if name))
    if wrong := [name for name in names if not _NAME.fullmatch(name)]:
        raise TemplateError(f"{where}: value `{wrong[0]}` is not a name (lower case, digits, `_`).")
    if (root / SNIPPETS_DIR / part / f"{output}.py").is_file():
        return Template(part, output, lines, names)
    return Template(
        part,
        output,
        lines,
        names,
        f"{where}: `{output}` reads the output of {SNIPPETS_DIR}/{part}/{output}.py, which does not exist. Rename "
        "the key after the snippet whose output the template reads (its file's name without .py), or remove the "
        "template and the values it names from the pages.",
    )

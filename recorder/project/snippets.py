"""Find the snippets, what each one loads of GPT-2 and which library releases its output depends on.

A part of the series is a page `docs/<part>.md` with a folder `snippets/<part>/`. Each file of that
folder is an example, `<part>/<stem>`, unless another snippet imports it: then it is shared setup (like
`pinned_gpt2.py`), with no output of its own but among the sources of each snippet importing it. A module
at the top of `snippets/` (the figure writer) is shared by every part.

Everything here reads files and package metadata only: deciding what is stale never imports torch.
"""

import ast
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from recorder.project.config import REQUIREMENTS, SNIPPETS_DIR, part_names
from recorder.project.errors import RecorderError
from recorder.project.manifest import Origin, Record

# Packages whose version can change what a snippet prints, by what the snippet loads.
VERSIONED_PACKAGES = ("torch", "transformers", "tokenizers", "safetensors", "huggingface_hub")
# A name imported from transformers that loads weights: a pipeline, or a model class on which `from_pretrained` is
# called (or anything unknown is: `cls = AutoModel; cls.from_pretrained`). A model class imported without that builds
# a model from a configuration, `GPT2LMHeadModel(GPT2Config())`, with random weights, and downloads nothing for it.
# Any other import from transformers or huggingface_hub reaches only the tokenizer's files.
_MODEL_CLASS = re.compile(r"Model|For[A-Z]", re.I)
_PIPELINE = re.compile(r"pipeline", re.I)
_HUB_LIBRARIES = {"transformers", "huggingface_hub"}


@dataclass(frozen=True)
class Snippet:
    name: str  # "<part>/<stem>", e.g. "token-embeddings/row_lookup"
    path: Path
    sources: tuple[Path, ...]  # the file and the local modules it imports, transitively
    imports: frozenset[str]  # top-level third-party modules imported by any of `sources`
    runs_on: Origin  # no model, GPT-2's tokenizer, models built from its configuration, or its weights
    reads_tokenizer: bool = False  # whether it reads the tokenizer's files from the hub (or the cache)

    @property
    def part(self) -> str:
        return self.name.split("/")[0]

    def relative(self, root: Path) -> str:
        return self.path.relative_to(root).as_posix()


@dataclass(frozen=True)
class _Module:
    path: Path
    names: frozenset[tuple[str, str]]  # (top-level module, name) of each import; name "*" for `import module`
    pretrained: frozenset[str]  # what `from_pretrained` is called on: an imported name as imported, else "?"

    @property
    def imports(self) -> set[str]:
        return {module for module, _ in self.names}


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def _read(path: Path) -> _Module:
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as error:
        raise RecorderError(f"{path}:{error.lineno}: {error.msg}. Fix the syntax error in the snippet.") from None
    nodes = list(ast.walk(tree))  # walked once: every build that works out its state reads every snippet
    return _Module(path, _imported_names(nodes), _pretrained_on(nodes))


def _imported_names(nodes: list[ast.AST]) -> frozenset[tuple[str, str]]:
    """(top-level module, name) of each absolute import; name "*" for `import module`."""
    names: set[tuple[str, str]] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update((alias.name.split(".")[0], "*") for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.update((node.module.split(".")[0], alias.name) for alias in node.names)
    return frozenset(names)


def _pretrained_on(nodes: list[ast.AST]) -> frozenset[str]:
    """What `from_pretrained` is called on: a name imported from a module as it is named there, else "?"."""
    imported_as = {
        alias.asname or alias.name: alias.name
        for node in nodes
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    return frozenset(
        imported_as.get(node.value.id, "?") if isinstance(node.value, ast.Name) else "?"
        for node in nodes
        if isinstance(node, ast.Attribute) and node.attr == "from_pretrained"
    )


def _reaches_weights(module: str, name: str, pretrained: set[str]) -> bool:
    """Whether `name` imported from `module` loads weights: `import transformers` could reach anything, a pipeline
    does, and so does a model class on which `from_pretrained` is called (or on something unknown)."""
    if module != "transformers":
        return False
    model_loaded = bool(_MODEL_CLASS.search(name)) and bool({name, "?"} & pretrained)
    return name == "*" or bool(_PIPELINE.search(name)) or model_loaded


def _runs_on(modules: list[_Module]) -> Origin:
    imported = [(module, name) for read in modules for module, name in read.names if module in _HUB_LIBRARIES]
    if not imported:
        return Origin.NO_MODEL
    pretrained = set().union(*(read.pretrained for read in modules))
    if any(_reaches_weights(module, name, pretrained) for module, name in imported):
        return Origin.WEIGHTS
    if any(_builds_model(module, name) for module, name in imported):
        return Origin.CONFIGURATION
    return Origin.TOKENIZER


def _builds_model(module: str, name: str) -> bool:
    """Whether `name`, imported from `module` and not loaded with `from_pretrained`, is a model class to build."""
    return module == "transformers" and bool(_MODEL_CLASS.search(name))


def _reads_tokenizer(modules: list[_Module]) -> bool:
    """Whether the hub's files are read: `from_pretrained` on anything but a model class (which would load weights,
    read apart), or a download function of huggingface_hub."""
    names = {name for read in modules for name in read.names}
    return any(read.pretrained for read in modules) or any(
        module == "huggingface_hub" and "download" in name for module, name in names
    )


def import_path(part: Path) -> list[Path]:
    """Where a snippet of the part folder `part` imports the project's modules from: its folder, then snippets/'s."""
    return [part, part.parent]


def local_modules(part: Path) -> dict[str, Path]:
    """The files a snippet of `part` imports by module name: a part's own module hides a shared one of its name."""
    return {path.stem: path for folder in reversed(import_path(part)) for path in sorted(folder.glob("*.py"))}


def discover(root: Path) -> dict[str, Snippet]:
    """Every example of every part, by name, in a stable order."""
    snippets: dict[str, Snippet] = {}
    for part in part_names(root):
        folder = root / SNIPPETS_DIR / part
        local = {name: _read(path) for name, path in local_modules(folder).items()}
        files = {path.stem: local[path.stem] for path in sorted(folder.glob("*.py"))}
        imported = set().union(*(read.imports for read in files.values()))
        for stem, read in files.items():
            if stem not in imported:
                modules = _closure(read, local)
                third_party = set().union(*(module.imports for module in modules)) - set(local)
                snippets[f"{part}/{stem}"] = Snippet(
                    f"{part}/{stem}",
                    read.path,
                    tuple(m.path for m in modules),
                    frozenset(third_party),
                    _runs_on(modules),
                    _reads_tokenizer(modules),
                )
    return snippets


def _closure(start: _Module, local: dict[str, _Module]) -> list[_Module]:
    """`start` and the local modules it imports, transitively: itself first, then by path."""
    seen = {start.path: start}
    pending = [start]
    while pending:
        for name in sorted(pending.pop().imports & set(local)):
            if local[name].path not in seen:
                seen[local[name].path] = local[name]
                pending.append(local[name])
    return [start, *sorted((module for module in seen.values() if module is not start), key=lambda m: m.path)]


@cache
def installed_version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def versions_for(snippet: Snippet) -> dict[str, str | None]:
    """Versions of the packages this snippet's output can depend on, as installed (`2.13.0+cpu`)."""
    if snippet.runs_on is not Origin.NO_MODEL:
        return {package: installed_version(package) for package in VERSIONED_PACKAGES}
    return {"torch": installed_version("torch")} if "torch" in snippet.imports else {}


def release(version: str | None) -> str | None:
    """The release a version belongs to: a build's local label (`+cpu`, `+cu130`) names how it was built,
    not what it computes, so `2.13.0`, `2.13.0+cpu` and `2.13.0+cu130` are one release."""
    try:
        return Version(version).public if version else version
    except InvalidVersion:
        return version


def version_changes(record: Record, snippet: Snippet) -> list[tuple[str, str | None, str | None]]:
    """(package, recorded, installed) for each package whose release differs from the one `record` ran with."""
    return [
        (package, record.versions.get(package), installed)
        for package, installed in versions_for(snippet).items()
        if release(record.versions.get(package)) != release(installed)
    ]


def source_hashes(snippet: Snippet, root: Path) -> dict[str, str]:
    return {path.relative_to(root).as_posix(): sha256_file(path) for path in snippet.sources}


def pins(root: Path) -> dict[str, str]:
    """`NAME==VERSION` by canonical package name, from requirements.txt; other lines are not pins."""
    pinned: dict[str, str] = {}
    for line in (root / REQUIREMENTS).read_text(encoding="utf-8").splitlines():
        line = line.partition("#")[0].strip()
        try:
            requirement = Requirement(line)  # pip's options (-e, --extra-index-url...) are not requirements
        except InvalidRequirement:
            continue
        specifiers = list(requirement.specifier)
        if len(specifiers) == 1 and specifiers[0].operator == "==":
            pinned[canonicalize_name(requirement.name)] = f"{requirement.name}=={specifiers[0].version}"
    return pinned


def pins_providing(pinned: Mapping[str, str], module: str, importer: str) -> list[str]:
    """The pins of `pins` for the packages providing `module`, which `importer` imports. Most are named like it:
    only the others need the slow map of every installed package's files."""
    names = [module] if canonicalize_name(module) in pinned else metadata.packages_distributions().get(module, [])
    if provided := [pinned[canonicalize_name(name)] for name in names if canonicalize_name(name) in pinned]:
        return provided
    raise RecorderError(
        f"{importer} imports `{module}`, which {REQUIREMENTS} does not pin. "
        "Pin the package that provides it there as NAME==VERSION."
    )

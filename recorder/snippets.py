"""Find the snippets, what each one depends on, and the key that says when to re-run it.

Everything here reads files and package metadata only: deciding what is stale
must never import torch or transformers.
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from recorder.errors import RecorderError
from recorder.pinned import MODEL_ID, REVISION, SNIPPETS_DIR

# Packages whose version can change what a snippet prints.
VERSIONED_PACKAGES = ("torch", "transformers", "tokenizers", "safetensors", "huggingface_hub")
# Importing this (directly or through another snippet) means a snippet loads GPT-2.
MODEL_LIBRARY = "transformers"
# What a reader installs: the packages the snippets import, each pinned as NAME==VERSION.
REQUIREMENTS = "requirements.txt"


@dataclass(frozen=True)
class Snippet:
    name: str  # file stem, e.g. "row_lookup"
    path: Path
    sources: tuple[Path, ...]  # the file and the local snippet modules it imports, transitively
    imports: frozenset[str]  # top-level third-party modules imported by any of `sources`

    @property
    def needs_model(self) -> bool:
        return MODEL_LIBRARY in self.imports

    def relative(self, root: Path) -> str:
        return self.path.relative_to(root).as_posix()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _top_level_imports(path: Path) -> set[str]:
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as error:
        raise SnippetError(
            f"{path}:{error.lineno}: {error.msg}. Fix the syntax error in the snippet."
        ) from None
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


class SnippetError(RecorderError):
    """A snippet file that cannot be understood; the message names the file and the fix."""


def discover(root: Path) -> dict[str, Snippet]:
    """Every example in `snippets/`, by name, in a stable order.

    A file that other snippets import (like `pinned_gpt2.py`) is shared setup,
    not an example: it has no output of its own, but it is part of the key of
    every snippet that imports it.
    """
    folder = root / SNIPPETS_DIR
    files = {path.stem: path for path in sorted(folder.glob("*.py"))}
    direct = {name: _top_level_imports(path) for name, path in files.items()}

    def closure(name: str) -> list[str]:
        seen: list[str] = []
        pending = [name]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.append(current)
            pending.extend(sorted(module for module in direct[current] if module in files))
        return [seen[0], *sorted(seen[1:])]

    shared = set().union(*direct.values()) & set(files)
    snippets = {}
    for name in files:
        if name in shared:
            continue
        local = closure(name)
        third_party = set().union(*(direct[module] for module in local)) - set(files)
        snippets[name] = Snippet(
            name=name,
            path=files[name],
            sources=tuple(files[module] for module in local),
            imports=frozenset(third_party),
        )
    return snippets


@cache
def installed_version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def versions_for(snippet: Snippet) -> dict[str, str | None]:
    """Versions of the packages this snippet's output can depend on."""
    if not snippet.imports & {"torch", MODEL_LIBRARY}:
        return {}
    wanted = VERSIONED_PACKAGES if snippet.needs_model else ("torch",)
    return {package: installed_version(package) for package in wanted}


def source_hashes(snippet: Snippet, root: Path) -> dict[str, str]:
    return {path.relative_to(root).as_posix(): sha256_file(path) for path in snippet.sources}


def key_for(snippet: Snippet, root: Path) -> str:
    """Changes whenever re-running the snippet could print something else."""
    material = {
        "sources": source_hashes(snippet, root),
        "versions": versions_for(snippet),
        "model": {"id": MODEL_ID, "revision": REVISION} if snippet.needs_model else None,
    }
    return sha256_bytes(json.dumps(material, sort_keys=True).encode())


def pins(root: Path) -> dict[str, str]:
    """`NAME==VERSION` by canonical package name, from requirements.txt; other lines are not pins."""
    found: dict[str, str] = {}
    for line in (root / REQUIREMENTS).read_text(encoding="utf-8").splitlines():
        line = line.partition("#")[0].strip()
        if not line or line.startswith("-"):  # pip's options: -e, -r, --extra-index-url...
            continue
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        specifiers = list(requirement.specifier)
        if len(specifiers) == 1 and specifiers[0].operator == "==":
            found[canonicalize_name(requirement.name)] = f"{requirement.name}=={specifiers[0].version}"
    return found

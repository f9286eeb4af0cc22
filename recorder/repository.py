"""Where the site's repository is, when the build knows it: the links from pages back to their files.

GitHub Actions sets GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_SHA in every
step. With all three, each page links to its source in the repository at the
built commit, offers to edit it on the default branch, and a notebook page
offers to open the notebook in Colab. Without them (a local build), pages link
to the copies published inside the site and to nothing elsewhere.

Only some of the three (a Codespace sets the first two, never GITHUB_SHA) count
as none: there is no commit to link to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from recorder.errors import RecorderError

VARIABLES = ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA")
# Edits become pull requests against the branch the site is published from.
EDIT_BRANCH = "main"
_COLAB = "https://colab.research.google.com/github"
_FORMATS = {
    "GITHUB_SERVER_URL": re.compile(r"https?://[A-Za-z0-9.-]+(?::\d+)?"),
    "GITHUB_REPOSITORY": re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+"),
    "GITHUB_SHA": re.compile(r"[0-9a-f]{40}"),
}
_EXAMPLES = {
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "owner/name",
    "GITHUB_SHA": "the 40 hexadecimal digits of a commit",
}


class RepositoryError(RecorderError):
    """A repository variable the build cannot make a link of; the message names it and the fix."""


@dataclass(frozen=True)
class Repository:
    server: str  # e.g. "https://github.com"
    name: str  # "owner/name"
    commit: str  # the built commit's full sha

    @property
    def url(self) -> str:
        return f"{self.server}/{self.name}"

    def at_commit(self, path: str) -> str:
        """`path` (from the repository's root) as it is in the built commit."""
        return f"{self.url}/blob/{self.commit}/{path}"

    def colab(self, path: str) -> str | None:
        """Colab opening the notebook `path` of the built commit; Colab opens only github.com."""
        if urlsplit(self.server).netloc != "github.com":
            return None
        return f"{_COLAB}/{self.name}/blob/{self.commit}/{path}"


def edit_uri(docs_dir: str) -> str:
    """MkDocs' `edit_uri` for pages in `docs_dir` (from the repository's root)."""
    return f"edit/{EDIT_BRANCH}/{docs_dir}/"


def from_environment(environ: Mapping[str, str]) -> Repository | None:
    """The repository the variables name, or None unless all three are set."""
    values = {name: environ.get(name, "") for name in VARIABLES}
    if not all(values.values()):
        return None
    for name, value in values.items():
        if not _FORMATS[name].fullmatch(value):
            raise RepositoryError(
                f"the environment variable {name}={value!r} is not {_EXAMPLES[name]}, so pages cannot link "
                f"to the repository. Set it as GitHub Actions does, or unset {', '.join(VARIABLES)} to "
                "link pages to the copies inside the site."
            )
    return Repository(values["GITHUB_SERVER_URL"], values["GITHUB_REPOSITORY"], values["GITHUB_SHA"])


def missing(environ: Mapping[str, str]) -> list[str]:
    """The variables a build that was given only some of them lacks (none when all or none are set)."""
    unset = [name for name in VARIABLES if not environ.get(name)]
    return [] if len(unset) == len(VARIABLES) else unset

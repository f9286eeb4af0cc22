"""The links from pages to their files in the repository at the built commit, to editing them and to Colab, when
GitHub Actions' three variables name it; with none, or only some (a Codespace sets no GITHUB_SHA), there are none."""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from recorder.project.errors import RecorderError

# Each variable: the form it must have, and how a message describes that form.
_FORMATS = {
    "GITHUB_SERVER_URL": (r"https?://[A-Za-z0-9.-]+(?::\d+)?", "https://github.com"),
    "GITHUB_REPOSITORY": (r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", "owner/name"),
    "GITHUB_SHA": (r"[0-9a-f]{40}", "the 40 hexadecimal digits of a commit"),
}
VARIABLES = tuple(_FORMATS)


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
        on_github = urlsplit(self.server).netloc == "github.com"
        return f"https://colab.research.google.com/github/{self.name}/blob/{self.commit}/{path}" if on_github else None


def from_environment(environ: Mapping[str, str]) -> Repository | None:
    """The repository the variables name, or None unless all three are set."""
    values = {name: environ.get(name, "") for name in VARIABLES}
    if not all(values.values()):
        return None
    for name, (form, example) in _FORMATS.items():
        if not re.fullmatch(form, values[name]):
            raise RepositoryError(
                f"the environment variable {name}={values[name]!r} is not {example}, so pages cannot "
                f"link to the repository. Set it as GitHub Actions does, or unset "
                f"{', '.join(VARIABLES)} to link pages to the copies inside the site."
            )
    return Repository(*values.values())


def missing(environ: Mapping[str, str]) -> list[str]:
    """The variables a build that was given only some of them lacks (none when all or none are set)."""
    unset = [name for name in VARIABLES if not environ.get(name)]
    return [] if len(unset) == len(VARIABLES) else unset

"""`make site` when something is stale: record it, then build, with MkDocs made ready meanwhile.

The build's first seconds go to importing MkDocs, its theme, plugins, extensions
and hook and to reading mkdocs.yml, none of which depends on the outputs. So a
child does that aside (`recorder.aside`) while the snippets run. Once the record
step has succeeded, it is told to build and runs `mkdocs build --strict` as the
command line would, drift guard included. If the record step fails or is
interrupted, the child is stopped before it builds anything: the outputs stay
as the record step leaves them, and site/ as it was.

    python -m recorder.site   (the child; started by `record_then_build`)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from recorder import aside


def record_then_build(root: Path, record_step: Callable[[], None]) -> int:
    """Run `record_step`, then `mkdocs build --strict` in `root`; the build's exit status.

    What `record_step` raises propagates, after the child is stopped.
    """
    with aside.Aside("recorder.site", cwd=root) as builder:
        record_step()
        return builder.go().returncode


def build_when_told() -> NoReturn:
    """In the child: get MkDocs ready, wait for the word, then build as `mkdocs build --strict`."""

    def get_ready() -> None:
        import mkdocs.__main__  # noqa: F401  (the command line the build runs)
        from mkdocs.config import load_config
        from mkdocs.exceptions import ConfigurationError

        try:
            load_config()  # imports what mkdocs.yml names; the configuration is read again to build
        except ConfigurationError:
            pass  # the build reports it, as `mkdocs build` does

    def build() -> int:
        from mkdocs.__main__ import cli

        return cli.main(["build", "--strict"], prog_name="mkdocs")  # exits with the command line's status

    aside.run_child(get_ready, build)


if __name__ == "__main__":
    build_when_told()

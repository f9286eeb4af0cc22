"""Command line of the record step: `python -m recorder COMMAND ...`; `python -m recorder --help` lists them."""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from pathlib import Path
from typing import Any

from recorder.check import state
from recorder.project.config import SNIPPETS_DIR, Project
from recorder.project.errors import RecorderError
from recorder.project.gpt2 import REVISION
from recorder.record import hub
from recorder.record.runner import Report
from recorder.record.step import DEFAULT_TIMEOUT, attach, record
from recorder.tools import diff, pr_compat, pr_record
from recorder.tools.compat import make_compat


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    root, progress = args.root.resolve(), partial(print, flush=True)
    try:
        return args.run(args, root, progress)
    except RecorderError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: recorded outputs were left as they were.", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m recorder", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: here)")
    # The options several commands share, each defined once.
    timeout = _option("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per snippet")
    summary = _option(
        "--summary",
        type=Path,
        default=os.environ.get("GITHUB_STEP_SUMMARY") or None,
        help="also append the report to this file (default: $GITHUB_STEP_SUMMARY)",
    )
    rerun = _option("--force", action="store_true", help="re-run every snippet")
    published = _option(
        "--published", action="store_true", help="attach the article's published outputs for model snippets (offline)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, run, about, options in (
        ("record", _record, "re-run stale snippets and record their outputs", [timeout, rerun, published]),
        (
            "site",
            _site,
            "record what is stale, then build the site with `mkdocs build --strict`",
            [timeout, rerun, published],
        ),
        ("check", _check, "list what keeps the site from being built, as every build judges it", []),
        (
            "diff",
            _diff,
            "what changed in the recorded outputs since a git ref, as Markdown",
            [
                _option(
                    "base",
                    nargs="?",
                    help=f"a git ref (default: the merge base with {diff.UPSTREAM} when that ref exists, else HEAD)",
                )
            ],
        ),
        ("pr-record", _pull_request, "record what is stale and report it; fails if anything was", [summary]),
        (
            "compat",
            _compat,
            "check the rows of compat/results.json not yet checked with several transformers releases",
            [
                timeout,
                _option("--force", action="store_true", help="check every row again, not only those not yet checked"),
            ],
        ),
        (
            "pr-compat",
            _pull_request,
            "check the rows of compat/results.json not yet checked and report it; fails if there were",
            [timeout, summary],
        ),
        (
            "serve",
            _serve,
            "live preview: record what each edit makes stale, rebuild and reload (MkDocs)",
            [
                timeout,
                _option("--dev-addr", default="127.0.0.1:8000", help="IP:PORT to serve on (default: %(default)s)"),
            ],
        ),
        (
            "tokenizer",
            _tokenizer,
            "put GPT-2's pinned tokenizer files in the Hugging Face cache, to run Part 1's snippets by hand offline",
            [],
        ),
    ):
        commands.add_parser(name, help=about, parents=options).set_defaults(run=run)
    return parser


def _option(*flags: str, **settings: Any) -> argparse.ArgumentParser:
    """A parser holding one option, which the commands that take it name as a parent."""
    option = argparse.ArgumentParser(add_help=False)
    option.add_argument(*flags, **settings)
    return option


# Each command: what it does with its arguments, in the project `root`; its exit status.
def _record(args: argparse.Namespace, root: Path, progress: Report) -> int:
    (attach if args.published else record)(root, force=args.force, timeout=args.timeout, report=progress)
    return 0


def _site(args: argparse.Namespace, root: Path, progress: Report) -> int:
    _record(args, root, progress)
    build_site(root)
    return 0


def _diff(args: argparse.Namespace, root: Path, progress: Report) -> int:
    print(diff.report(root, args.base), end="")
    return 0


def _compat(args: argparse.Namespace, root: Path, progress: Report) -> int:
    make_compat(root, timeout=args.timeout, report=progress, force=args.force)
    return 0


def _serve(args: argparse.Namespace, root: Path, progress: Report) -> int:
    from recorder.tools import serve  # only here: only the preview needs MkDocs' server

    serve.serve(Project.load(root).config_file, args.dev_addr, args.timeout)
    return 0


def _tokenizer(args: argparse.Namespace, root: Path, progress: Report) -> int:
    progress(
        f"GPT-2's vocab.json and merges.txt at revision {REVISION} are in the Hugging Face cache, "
        f"{hub.cache_tokenizer()}, their sha256 checked. Run a snippet that loads only the tokenizer offline: "
        f"HF_HUB_OFFLINE=1 .venv/bin/python {SNIPPETS_DIR}/PART/NAME.py"
    )
    return 0


def _pull_request(args: argparse.Namespace, root: Path, progress: Report) -> int:
    """`pr-record` or `pr-compat`: bring what the pull request left stale up to date, and fail saying what to commit
    if there was any."""
    if args.command == "pr-record":
        tool, catch_up = pr_record, partial(record, report=progress)
    else:
        tool, catch_up = pr_compat, partial(make_compat, timeout=args.timeout, report=progress)
    if tool.run(root, catch_up, args.summary):
        return 0
    print(pr_record.failure_line(tool.INSTRUCTION), file=sys.stderr)
    return 1


def _check(args: argparse.Namespace, root: Path, progress: Report) -> int:
    """Print what keeps the site from being built, then the notices; fails only on the former."""
    current = state.current(Project.load(root))
    for problem in current.problems:
        print(problem, file=sys.stderr)
    # Said, but not a failure (nor does it fail the build): the page shows a stale row of the
    # version table as "not yet checked", never with an old verdict, so the site stays true;
    # and `make compat` installs several transformers releases, too much to demand before
    # every deploy (publish.yml runs this check) or every build.
    for notice in current.notices:
        print(f"notice: {notice}", file=sys.stderr)
    return 1 if current.problems else 0


def build_site(root: Path) -> None:
    """`mkdocs build --strict` in this process, once the record step has run: it reuses the imports of the record
    step, which a process of its own would pay for again (a no-op `make site` took 0.4 s of CPU more that way).
    Exits with the build's status."""
    from mkdocs.__main__ import cli

    os.chdir(root)
    cli(["build", "--strict"], prog_name="mkdocs")


if __name__ == "__main__":
    sys.exit(main())

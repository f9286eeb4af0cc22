"""Command line of the record step: `python -m recorder [record|check|trial] ...`."""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path

from recorder import download, hub, notebook, store
from recorder.published import PublishedMismatch, attach
from recorder.record import DEFAULT_TIMEOUT, record, run_all
from recorder.runner import SnippetFailed, quiet_libraries
from recorder.snippets import SnippetError, discover

FAILURES = (store.RecordError, SnippetFailed, SnippetError, hub.ModelUnavailable,
            hub.WrongWeights, download.DownloadFailed, PublishedMismatch)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m recorder", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: here)")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("record", help="re-run stale snippets and record their outputs")
    run.add_argument("--force", action="store_true", help="re-run every snippet")
    run.add_argument("--published", action="store_true",
                     help="attach the article's published outputs for model snippets (offline)")
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per snippet")

    commands.add_parser("check", help="list recorded outputs that disagree with the snippets")

    trial = commands.add_parser("trial", help="print snippet outputs as JSON; records nothing")
    trial.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    trial.add_argument("names", nargs="+")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    root = args.root.resolve()
    try:
        if args.command == "record":
            step = attach if args.published else record
            report = partial(print, flush=True)
            step(root, force=args.force, timeout=args.timeout, report=report)
        elif args.command == "check":
            found = store.problems(root) + notebook.problems(root, *notebook.load(root))
            for problem in found:
                print(problem.message, file=sys.stderr)
            return 1 if found else 0
        else:
            quiet_libraries()
            snippets = discover(root)
            unknown = [name for name in args.names if name not in snippets]
            if unknown:
                raise SnippetError(f"no snippets/{unknown[0]}.py. Known: {', '.join(snippets)}")
            runs = run_all(root, (snippets[name] for name in args.names), timeout=args.timeout,
                           report=lambda line: print(line, file=sys.stderr))
            print(json.dumps({run.snippet.name: run.stdout.decode() for run in runs}))
    except FAILURES as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: recorded outputs were left as they were.", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

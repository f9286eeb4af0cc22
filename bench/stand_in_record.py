"""`make record FORCE=1` in the benchmark's copy of the project, accepting the stand-in checkpoint.

The stand-in has GPT-2's architecture but random weights, so the record
step's command line refuses it by sha256. Here the weights are hashed as
usual but not compared with the pin, and only a folder `project_copy.make`
marked is accepted: nothing run from here can write the project's outputs/.

    python -m bench.stand_in_record COPY
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from bench import project_copy
from recorder import hub
from recorder.errors import RecorderError
from recorder.record import record


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        root = project_copy.require(Path(argv[0]))
        report = partial(print, flush=True)
        record(root, force=True, report=report, verify_weights=hub.snapshot_digests)
    except RecorderError as error:  # NotACopy too
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

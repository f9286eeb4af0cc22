"""The Chromium that the browser tests, `make audit` and `python -m tools.first_ids` drive.

The one the CHROMIUM variable names, else the first of `chromium` (Debian's name) and `chromium-browser` (Fedora's
and Ubuntu's) on PATH. `python -m tools.chromium` prints its path, for the Makefile.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from recorder.project.errors import RecorderError

NAMES = ("chromium", "chromium-browser")


class NoChromium(RecorderError):
    """No Chromium here; the message says how to get one or name one."""


def chromium() -> Path:
    """The Chromium to drive; NoChromium, naming the fix, where there is none."""
    if named := os.environ.get("CHROMIUM"):
        if not os.access(named, os.X_OK) or Path(named).is_dir():
            raise NoChromium(f"CHROMIUM names {named}, which is not a program. Name a Chromium or Chrome executable.")
        return Path(named)
    for name in NAMES:
        if found := shutil.which(name):
            return Path(found)
    raise NoChromium(
        f"No Chromium found: none of {', '.join(f'`{name}`' for name in NAMES)} is on PATH. Install Chromium "
        "(Debian: `apt-get install chromium`, as .ci/run does), or name a Chromium or Chrome executable with "
        "CHROMIUM=/path/to/it."
    )


if __name__ == "__main__":
    try:
        print(chromium())
    except NoChromium as error:
        sys.exit(str(error))

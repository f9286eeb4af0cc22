"""The companion notebooks, written by the record step as recorder/project/notebooks.py works them out."""

from collections.abc import Callable

from recorder.project.config import Project
from recorder.project.errors import PageError
from recorder.project.manifest import Record
from recorder.project.notebooks import generate, lags, notebooks
from recorder.project.outputs import read_outputs
from recorder.record import store


def update(project: Project, report: Callable[[str], None], records: dict[str, Record], stale: set[str]) -> None:
    """Rewrite each companion notebook that differs from what `generate` returns now; drop those of no part. One whose
    part has `stale` outputs (snippet names) waits for them: a notebook never shows new code beside an old output."""
    outputs = read_outputs(project, records=records)
    for path, name, part in notebooks(project):
        if part is None:
            path.unlink()
            report(f"removed {name}, whose part is gone")
            continue
        if lags(part, stale):
            report(f"{name} left as it was until the outputs of its part are recorded")
            continue
        try:
            data = generate(project, outputs, part)
        except PageError as error:  # the build stops on it too, naming the page
            report(f"{name} left as it was: {project.docs_path}/{part.page}: {error}")
            continue
        if not path.exists() or path.read_bytes() != data:
            store.replace_file(path, data)
            report(f"wrote {name}")

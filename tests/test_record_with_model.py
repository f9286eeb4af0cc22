"""The record step where GPT-2 can be loaded: it executes, verifies and compares.

Nobody here has GPT-2's weights, so the stand-in plays them: a child process
pins the stand-in's own sha256 in place of GPT-2's, which only this test does.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from recorder.hub import snapshot_dir
from recorder.snippets import sha256_file
from support import offline_env

RECORD_WITH_STAND_IN_AS_PINNED = textwrap.dedent("""
    import sys
    from pathlib import Path
    from recorder import hub, record
    hub.WEIGHTS_SHA256 = sys.argv[1]
    record.record(Path.cwd())
""")


@pytest.mark.slow
def test_published_outputs_are_re_executed_verified_and_compared_once_the_model_is_cached(
    run, project: Path, stand_in_cache: Path
) -> None:
    """Nothing is stale, yet a populated cache makes every published output run for real."""
    weights = snapshot_dir(stand_in_cache) / "model.safetensors"
    before = json.loads((project / "outputs" / "manifest.json").read_text())["snippets"]
    result = run("python", "-c", RECORD_WITH_STAND_IN_AS_PINNED, sha256_file(weights),
                 cwd=project, env=offline_env(stand_in_cache))

    assert result.returncode == 0, result.stderr
    assert "offline, from the local cache" in result.stdout
    assert "confirmed: snippets/embedding_table.py prints exactly the published output" in result.stdout
    assert "DIFFERENT: snippets/software_row.py now prints" in result.stdout
    # Updated by a child that got ready while the model loaded: the outputs it shows changed.
    assert "wrote docs/notebooks/token-embeddings.ipynb" in result.stdout
    entries = json.loads((project / "outputs" / "manifest.json").read_text())["snippets"]
    model_entries = [entry for entry in entries.values() if entry["model"]]
    assert len(model_entries) == 6
    model_free = {name for name, entry in entries.items() if not entry["model"]}
    assert model_free and all(entries[name] == before[name] for name in model_free)
    for entry in model_entries:
        assert entry["origin"] == "executed"
        assert entry["model"]["files"]["model.safetensors"] == sha256_file(weights)
        assert set(entry["model"]["files"]) >= {"config.json", "tokenizer.json"}
        assert entry["versions"]["transformers"] == "5.17.0"

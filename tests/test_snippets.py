"""Every snippet, run against the stand-in GPT-2, prints what the site shows."""

from __future__ import annotations

import ast
import io
import json
import re
from pathlib import Path

import pytest

from recorder.project import manifest
from recorder.project.gpt2 import MODEL_ID, REVISION
from recorder.project.manifest import Origin
from recorder.project.snippets import discover
from recorder.record.article import check
from support import ROOT, offline_env

SNIPPETS = discover(ROOT)
# The part a reader runs by hand once `make tokenizer` has put GPT-2's tokenizer files in the cache, as the README says.
BY_HAND = "tokenization"


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_output_matches_what_the_site_shows(name: str, stand_in_outputs: list[dict[str, str]]) -> None:
    """Weight-independent lines equal the recorded output; weight-dependent ones share its form."""
    recorded = (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8")
    printed = [run[name] for run in stand_in_outputs if name in run]  # the second stand-in runs weight snippets
    exact, by_form = check(name, recorded, printed, label=f"outputs/{name}.txt")
    assert exact + by_form == len(recorded.splitlines()) > 0
    if SNIPPETS[name].runs_on is not Origin.WEIGHTS:
        assert by_form == 0, "a snippet that loads no weights must print the same thing every time"
        # Run for real here (the stand-in plays no part in what it prints): its recorded output, byte for byte. An
        # output edited by hand, its hash in the manifest edited to match, is caught here.
        recorded_bytes = (ROOT / "outputs" / f"{name}.txt").read_bytes()
        assert all(text.encode() == recorded_bytes for text in printed), f"outputs/{name}.txt"


def test_only_published_outputs_of_snippets_that_load_weights_depend_on_weight_values(
    stand_in_outputs: list[dict[str, str]],
) -> None:
    """What prints differently with other weights is what the build cannot compute here: the article's run."""
    first, second = stand_in_outputs
    assert set(second) == {name for name, snippet in SNIPPETS.items() if snippet.runs_on is Origin.WEIGHTS}
    depending = {name for name in second if first[name] != second[name]}
    assert depending, "no output depends on weight values: this check would pass on nothing"
    records = manifest.read(ROOT)
    for name in depending:
        assert SNIPPETS[name].runs_on is Origin.WEIGHTS and not records[name].origin.executed, name


def test_what_a_snippet_loads_is_read_from_its_imports() -> None:
    """Weights where a model is loaded, the tokenizer where only a tokenizer or hub files are, else nothing; read
    here from the calls the snippet and the files it imports make, not from their imports."""
    kinds = set()
    for name, snippet in SNIPPETS.items():
        text = "".join(path.read_text(encoding="utf-8") for path in snippet.sources)
        expected = (
            Origin.WEIGHTS
            if re.search(r"Model\w*\.from_pretrained\(", text)
            else Origin.CONFIGURATION
            if re.search(r"^from transformers import .*(Model|For[A-Z])", text, re.M)
            else Origin.TOKENIZER
            if re.search(r"from_pretrained\(|hf_hub_download\(", text)
            else Origin.NO_MODEL
        )
        assert snippet.runs_on is expected, name
        assert snippet.reads_tokenizer == bool(re.search(r"from_pretrained\(|hf_hub_download\(", text)), name
        kinds.add(expected)
    assert kinds == {Origin.WEIGHTS, Origin.CONFIGURATION, Origin.TOKENIZER, Origin.NO_MODEL}, (
        f"every kind is checked, not only {kinds}"
    )


LOADERS = {
    "from_config": (
        "from transformers import GPT2Config, GPT2LMHeadModel\nGPT2LMHeadModel(GPT2Config())\n",
        Origin.CONFIGURATION,
    ),
    "from_pretrained": (
        "from transformers import GPT2LMHeadModel\nGPT2LMHeadModel.from_pretrained('gpt2')\n",
        Origin.WEIGHTS,
    ),
    "renamed": ("from transformers import AutoModel as M\nM.from_pretrained('gpt2')\n", Origin.WEIGHTS),
    "through a name": (
        "from transformers import AutoModel\ncls = AutoModel\ncls.from_pretrained('gpt2')\n",
        Origin.WEIGHTS,
    ),
    "pipeline": ("from transformers import pipeline\npipeline('text-generation', model='gpt2')\n", Origin.WEIGHTS),
    "module": ("import transformers\n", Origin.WEIGHTS),
    "tokenizer": (
        "from transformers import GPT2Tokenizer\nGPT2Tokenizer.from_pretrained('gpt2')\n",
        Origin.TOKENIZER,
    ),
}


@pytest.mark.parametrize("case", LOADERS)
def test_weights_are_loaded_by_from_pretrained_on_a_model_class_never_by_building_one(
    tmp_path: Path, case: str
) -> None:
    source, expected = LOADERS[case]
    (tmp_path / "snippets" / "part").mkdir(parents=True)
    (tmp_path / "snippets" / "part" / "example.py").write_text(source, encoding="utf-8")
    # Built from a configuration, a model class loads no weights: it runs on random ones.
    assert discover(tmp_path)["part/example"].runs_on is expected, case


@pytest.mark.slow
def test_snippets_run_on_their_own(stand_in_cache: Path, stand_in_outputs: list[dict[str, str]], run) -> None:
    """`python snippets/NAME.py` prints exactly what the one-process runner recorded for it.

    Each script runs in a fresh child of one interpreter that has imported torch and
    transformers already (tests/script_runner.py says what such a child shares with it).
    Part 1's scripts run so in the next test, where they print their recorded output, which the runner prints too
    (test_output_matches_what_the_site_shows): the same check, from a cache that holds GPT-2's tokenizer files alone.
    """
    names = [name for name, snippet in SNIPPETS.items() if snippet.part != BY_HAND]
    scripts = [f"snippets/{name}.py" for name in names]
    result = run("python", "tests/script_runner.py", *scripts, cwd=ROOT, env=offline_env(stand_in_cache))
    assert result.returncode == 0, result.stderr
    runs = json.loads(result.stdout)
    failed = {script: ran["stderr"] for script, ran in runs.items() if ran["returncode"] != 0}
    assert not failed
    printed = {name: runs[script]["stdout"] for name, script in zip(names, scripts, strict=True)}
    assert printed == {name: stand_in_outputs[0][name] for name in names}  # the runner's, against the same checkpoint


@pytest.mark.slow
def test_after_the_tokenizer_command_part_1_s_snippets_run_by_hand_offline_print_their_recorded_output(
    run, tmp_path: Path
) -> None:
    """`make tokenizer`, then `HF_HUB_OFFLINE=1 python snippets/tokenization/NAME.py`, as the README says, in a
    Hugging Face cache that held nothing of GPT-2: what the site shows, every line of it."""
    home = tmp_path / "hf-home"
    cached = run("python", "-m", "recorder", "tokenizer", cwd=ROOT, env=offline_env(HF_HOME=str(home)))
    assert cached.returncode == 0, cached.stderr
    snapshot = home / "hub" / "models--gpt2" / "snapshots" / REVISION
    assert f"are in the Hugging Face cache, {snapshot}, their sha256 checked" in cached.stdout
    part = {name: snippet for name, snippet in SNIPPETS.items() if snippet.part == BY_HAND}
    assert part and all(snippet.runs_on is Origin.TOKENIZER for snippet in part.values())
    scripts = [snippet.relative(ROOT) for snippet in part.values()]
    result = run("python", "tests/script_runner.py", *scripts, cwd=ROOT, env=offline_env(HF_HOME=str(home)))
    assert result.returncode == 0, result.stderr
    runs = json.loads(result.stdout)
    printed = {name: runs[snippet.relative(ROOT)]["stdout"] for name, snippet in part.items()}
    assert printed == {name: (ROOT / "outputs" / f"{name}.txt").read_text(encoding="utf-8") for name in part}


@pytest.mark.parametrize(
    "path",
    sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "snippets").rglob("*.py")
        if "from_pretrained" in path.read_text()
    ),
)
def test_snippets_load_the_pinned_revision_by_name(path: str) -> None:
    """The code a reader copies names the model and revision that the record step pins."""
    text = (ROOT / path).read_text()
    tree = ast.parse(text)
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("from_pretrained", "hf_hub_download")
    ]
    # Every call the file writes, each by name and pinned revision alone: no other keyword can pick other files.
    assert len(calls) == text.count("from_pretrained(") + text.count("hf_hub_download(") > 0
    for call in calls:
        assert call.args[0].value == MODEL_ID
        assert [keyword.arg for keyword in call.keywords] == ["revision"], ast.unparse(call)
    named = {
        node.targets[0].id: node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.targets[0], ast.Name)
    }
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    for call in calls:
        revision = next(keyword.value for keyword in call.keywords if keyword.arg == "revision")
        if isinstance(revision, ast.Constant):
            assert revision.value == REVISION
        else:  # a name: set here to the pinned revision, or imported from the part's pin
            assert isinstance(revision, ast.Name)
            assert named.get(revision.id) == REVISION or revision.id in imported


def test_coverage_counts_a_file_of_a_part_folder_that_never_ran(tmp_path: Path) -> None:
    """A part's folder is no package, where coverage would not look for files that never ran."""
    from coverage import Coverage, CoverageData

    from snippet_coverage import count_every_file

    folder = tmp_path / "snippets"
    (folder / "part").mkdir(parents=True)
    ran, never = folder / "shared.py", folder / "part" / "never_ran.py"
    ran.write_text("x = 1\n")
    never.write_text("y = 2\n")
    measured = CoverageData(str(tmp_path / ".coverage"))
    measured.add_lines({str(ran): [1]})
    measured.write()
    coverage = Coverage(data_file=str(tmp_path / ".coverage"), config_file=False)
    coverage.load()

    count_every_file(coverage, folder)

    printed = io.StringIO()
    assert coverage.report(file=printed) == 50.0
    assert "never_ran.py" in printed.getvalue()


@pytest.mark.filterwarnings("ignore:.*(never imported|No data was collected)")  # what this case is about
def test_the_coverage_gate_fails_on_snippet_runs_that_measured_nothing(tmp_path: Path) -> None:
    """As a run from another folder did while snippets/ was named relative to it: the gate had no data."""
    from coverage import Coverage

    from snippet_coverage import require_measured

    coverage = Coverage(data_file=str(tmp_path / ".coverage"), config_file=False, source=[str(tmp_path / "nothing")])
    coverage.start()
    coverage.stop()
    with pytest.raises(RuntimeError, match="Coverage measured nothing while the snippets ran"):
        require_measured(coverage)

"""The GitHub Actions workflows pass actionlint (with ShellCheck on their scripts) and keep
the rules of CONTRIBUTING.md: a pull request runs read-only, without secrets, never as
`pull_request_target`; every action is pinned to a commit; only deployment writes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from recorder.project.manifest import Origin
from recorder.tools.pr_compat import ARTIFACT as COMPAT_ARTIFACT
from recorder.tools.pr_record import ARTIFACT
from support import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
PULL_REQUEST = WORKFLOWS / "pull-request.yml"
PUBLISH = WORKFLOWS / "publish.yml"
# `uses: owner/repo[/path]@<40 hex> # vX.Y.Z`: a commit cannot be moved the way a tag can.
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$")
READ_ONLY = {"read", "none"}


def load(path: Path) -> dict[str, Any]:
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as True.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    """actionlint from the venv, with the venv's ShellCheck on PATH for `run:` scripts."""
    tools = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        [str(tools / "actionlint"), "-no-color", *map(str, paths)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def uses_lines(path: Path) -> list[str]:
    """Each `uses:` value with its trailing comment, as written."""
    return [match.group(1) for match in re.finditer(r"^\s*(?:-\s+)?uses:\s*(.+?)\s*$", path.read_text(), re.M)]


def test_the_workflows_pass_actionlint() -> None:
    result = actionlint(*sorted(WORKFLOWS.glob("*.yml")))
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_and_shellcheck_do_report_mistakes(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n"
        '      - run: echo "${{ steps.nothing.outputs.value }}"\n'
        "      - run: cd $HOME/a b\n"
    )
    found = actionlint(broken).stdout
    assert "[expression]" in found and "[shellcheck]" in found, found


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda path: path.name)
def test_every_action_is_pinned_to_a_commit(path: Path) -> None:
    used = uses_lines(path)
    assert used, f"{path.name} uses no action"
    assert [line for line in used if not PINNED.match(line)] == []


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda path: path.name)
def test_no_workflow_runs_in_the_base_repository_for_a_pull_request(path: Path) -> None:
    assert "pull_request_target" not in load(path)["on"]


def test_pull_requests_run_read_only_and_without_secrets() -> None:
    workflow = load(PULL_REQUEST)
    assert set(workflow["on"]) == {"pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    for name, job in workflow["jobs"].items():
        assert set(job.get("permissions", {}).values()) <= READ_ONLY, name
    assert "secrets." not in PULL_REQUEST.read_text()


def test_pull_requests_test_and_build_from_the_committed_outputs() -> None:
    steps = [step.get("run", "") for step in load(PULL_REQUEST)["jobs"]["test"]["steps"]]
    assert ".ci/run" in steps  # installs requirements.txt and Chromium, then `make test`
    assert ".venv/bin/python -m mkdocs build --strict" in steps
    assert not [run for run in steps if "record" in run], "the tests and the build check the committed outputs"


def step_using(steps: list[dict[str, Any]], action: str) -> dict[str, Any]:
    return next(step for step in steps if step.get("uses", "").startswith(f"{action}@"))


def test_pull_requests_record_what_is_stale_and_keep_it_for_the_contributor() -> None:
    jobs = load(PULL_REQUEST)["jobs"]
    steps = jobs["record"]["steps"]
    main_steps = load(PUBLISH)["jobs"]["build"]["steps"]
    assert jobs["record"]["container"] == "python:3.11-bookworm"  # the Python the outputs are recorded with
    # GPT-2's cache as main keeps it, keyed on the pinned revision, restored and never saved.
    restore = step_using(steps, "actions/cache/restore")
    assert restore["uses"] == step_using(main_steps, "actions/cache/restore")["uses"]
    assert restore["with"] == step_using(main_steps, "actions/cache/restore")["with"]
    pin = next(step for step in steps if step.get("id") == "pin")
    assert pin["run"] == next(step for step in main_steps if step.get("id") == "pin")["run"]
    assert not [step for step in steps if step.get("uses", "").startswith("actions/cache/save@")]
    assert "HF_TOKEN" not in PULL_REQUEST.read_text(), "GPT-2 is a public download"
    record = next(step for step in steps if "python -m recorder pr-record" in step.get("run", ""))
    assert record["run"] == "make venv && .venv/bin/python -m recorder pr-record"
    upload = step_using(steps, "actions/upload-artifact")
    assert upload["uses"] == step_using(jobs["test"]["steps"], "actions/upload-artifact")["uses"]
    assert upload["if"] == "failure()"
    assert upload["with"]["name"] == ARTIFACT  # the name the failure message tells the contributor
    assert upload["with"]["path"].split() == ["outputs/", "docs/notebooks/"]
    assert steps.index(pin) < steps.index(restore) < steps.index(record) < steps.index(upload)


def test_pull_requests_check_the_rows_of_the_version_table_they_left_unchecked() -> None:
    jobs = load(PULL_REQUEST)["jobs"]
    steps = jobs["compat"]["steps"]
    assert jobs["compat"]["container"] == jobs["record"]["container"]  # the Python the table's rows run with
    check = next(step for step in steps if "make compat" in step.get("run", ""))
    assert check["run"] == "make venv && make compat PR=1"  # the Makefile hands uv torch's CPU index
    upload = step_using(steps, "actions/upload-artifact")
    assert upload["uses"] == step_using(jobs["record"]["steps"], "actions/upload-artifact")["uses"]
    assert upload["if"] == "failure()"
    assert upload["with"] == {"name": COMPAT_ARTIFACT, "path": "compat/results.json"}
    assert steps.index(check) < steps.index(upload)


def test_only_the_deploy_job_writes_and_only_what_pages_needs() -> None:
    workflow = load(PUBLISH)
    assert set(workflow["on"]) == {"push", "workflow_dispatch"}
    assert workflow["on"]["push"] == {"branches": ["main"]}
    assert workflow["permissions"] == {"contents": "read"}
    jobs = workflow["jobs"]
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    for name, job in jobs.items():
        if name != "deploy":
            assert set(job.get("permissions", {}).values()) <= READ_ONLY, name


def test_main_refuses_uncommitted_outputs_and_outputs_the_real_model_does_not_print() -> None:
    steps = load(PUBLISH)["jobs"]["build"]["steps"]
    runs = [step.get("run", "") for step in steps]
    cache = next(step for step in steps if step.get("uses", "").startswith("actions/cache/restore@"))
    assert cache["with"]["path"] == "~/.cache/huggingface"
    revision_step = next(step for step in steps if step.get("id") == "pin")
    assert "from recorder.project.gpt2 import REVISION" in revision_step["run"]
    assert "${{ steps.pin.outputs.revision }}" in cache["with"]["key"]
    committed = next(number for number, run in enumerate(runs) if "python -m recorder check" in run)
    record = runs.index("make record FORCE=1")  # every output again, with the hub's files
    check = next(
        number for number, run in enumerate(runs) if "git --no-pager diff --exit-code -- 'outputs/*.txt'" in run
    )
    build = runs.index(".venv/bin/python -m mkdocs build --strict")
    assert committed < record < check < build
    assert steps.index(cache) < record
    assert "exit 1" in runs[check]
    upload = step_using(steps, "actions/upload-artifact")
    assert upload["with"]["path"].split() == ["outputs/", "docs/notebooks/"], "the notebooks hold the outputs too"


def _publish_step(name: str) -> str:
    steps = load(PUBLISH)["jobs"]["build"]["steps"]
    return next(step["run"] for step in steps if step.get("name") == name)


@pytest.mark.parametrize("with_article_outputs", [True, False])
def test_main_deploys_only_outputs_that_were_executed(tmp_path: Path, with_article_outputs: bool) -> None:
    """Offline, `make record FORCE=1` keeps the article's outputs; the deployed site says none is, so main stops."""
    steps = load(PUBLISH)["jobs"]["build"]["steps"]
    runs = [step.get("run", "") for step in steps]
    verdict = _publish_step("Fail unless every output was executed")
    assert (
        runs.index("make record FORCE=1")
        < runs.index(verdict)
        < runs.index(".venv/bin/python -m mkdocs build --strict")
    )
    manifest = json.loads((ROOT / "outputs" / "manifest.json").read_text(encoding="utf-8"))
    taken = sorted(name for name, entry in manifest["snippets"].items() if not Origin(entry["origin"]).executed)
    assert taken, "the committed manifest holds the article's outputs of the snippets that load GPT-2's weights"
    if not with_article_outputs:
        manifest["snippets"] = {name: entry for name, entry in manifest["snippets"].items() if name not in taken}
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    script = verdict.replace(".venv/bin/python", sys.executable)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ran = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert (ran.returncode != 0) == with_article_outputs, ran.stderr
    if with_article_outputs:
        assert f"not executed: {', '.join(taken)}." in ran.stderr
        assert "re-run it once the Hugging Face hub can be reached" in ran.stderr


def test_pull_requests_test_the_oldest_and_newest_python_the_readme_names() -> None:
    supported = re.search(r"Python (3\.\d+) to (3\.\d+)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert supported, "README.md states the Pythons it works with as `Python 3.X to 3.Y`"
    test = load(PULL_REQUEST)["jobs"]["test"]
    assert test["strategy"]["matrix"]["python"] == list(supported.groups())
    assert test["container"] == "python:${{ matrix.python }}-bookworm"


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda path: path.name)
def test_workflows_install_through_make_which_hands_uv_torch_s_cpu_index(path: Path) -> None:
    """uv reads none of pip's settings: a PIP_ variable would not choose torch's build, the Makefile does."""
    text = path.read_text(encoding="utf-8")
    assert "PIP_" not in text and "pip install" not in text
    assert "make venv" in text or ".ci/run" in text

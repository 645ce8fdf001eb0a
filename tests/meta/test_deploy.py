"""deploy/ holds up, offline: the Kubernetes manifests validate against the API's JSON schemas (the oldest
version docs/shards.md names and the newest the validator ships), the CI-matrix example against the GitHub
workflow schema and its shell steps against shellcheck; their commands are `crmarena` commands that parse,
agree with each other (K shards, K pods or matrix jobs, the merge reading the folder the shards write), and
— the Job's own arguments, one process per index — run a sharded run that the merge Job reports whole."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from eval_suite.commands.cli import build_parser, main
from eval_suite.commands.evaluate import config_from
from eval_suite.run.shards import Shard
from mock_org.user_errors import OK
from tests.eval_suite.conftest import default_org_served

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
WORKFLOW = ROOT / "deploy" / "github-actions" / "sharded-eval.yml"
OLDEST_KUBERNETES = "1.29.0"  # backoffLimitPerIndex is on by default from 1.29 (docs/shards.md)


def documents() -> dict[str, dict[str, Any]]:
    """Every manifest of deploy/k8s by its kind and name (``Job/crmarena-shards``)."""
    found = {}
    for path in sorted(K8S.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            found[f"{document['kind']}/{document['metadata']['name']}"] = document
    return found


MANIFESTS = documents()


@pytest.mark.parametrize("version", [OLDEST_KUBERNETES, kubernetes_validate.latest_version() + ".0"])
@pytest.mark.parametrize("name", sorted(MANIFESTS))
def test_each_manifest_matches_the_kubernetes_api_schema(name: str, version: str) -> None:
    # strict: a field the API does not know (a typo) is an error, not ignored as kubectl would.
    kubernetes_validate.validate(MANIFESTS[name], version, strict=True)


def test_the_validator_catches_a_mistake() -> None:
    job = yaml.safe_load((K8S / "shards-job.yaml").read_text(encoding="utf-8"))
    job["spec"]["completionsMode"] = job["spec"].pop("completionMode")
    with pytest.raises(kubernetes_validate.ValidationError, match="completionsMode"):
        kubernetes_validate.validate(job, OLDEST_KUBERNETES, strict=True)


def container(job: dict[str, Any]) -> dict[str, Any]:
    (only,) = job["spec"]["template"]["spec"]["containers"]
    return only


def test_the_indexed_job_runs_one_shard_per_pod_onto_the_volume_the_merge_reads() -> None:
    shards, merge, claim = (
        MANIFESTS["Job/crmarena-shards"],
        MANIFESTS["Job/crmarena-merge"],
        MANIFESTS["PersistentVolumeClaim/crmarena-results"],
    )
    spec = shards["spec"]
    assert spec["completionMode"] == "Indexed" and spec["template"]["spec"]["restartPolicy"] == "Never"
    evaluation = container(shards)
    assert evaluation["command"] == ["crmarena"] and evaluation["args"][0] == "eval"
    config = config_from(build_parser().parse_args(evaluation["args"]))
    count = spec["completions"]
    assert spec["parallelism"] == count and config.shard == f"auto/{count}"  # K pods, K shards, one each
    report = container(merge)
    assert report["command"] == ["crmarena"] and report["args"][:2] == ["report", str(config.out)]
    build_parser().parse_args(report["args"])
    for job in (shards, merge):
        pod = job["spec"]["template"]["spec"]
        assert container(job)["image"] == evaluation["image"]
        assert pod["securityContext"]["runAsUser"] == 10001 and pod["securityContext"]["fsGroup"] == 10001
        (volume,) = pod["volumes"]
        assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
        (mount,) = container(job)["volumeMounts"]
        assert mount["name"] == volume["name"] and Path(config.out).is_relative_to(mount["mountPath"])
    assert "ReadWriteMany" in claim["spec"]["accessModes"]  # pods on several nodes write at once


def job_arguments(job: dict[str, Any], results: Path) -> list[str]:
    """The container's arguments with the volume's mount point moved to ``results``."""
    (mount,) = container(job)["volumeMounts"]
    return [argument.replace(mount["mountPath"], str(results)) for argument in container(job)["args"]]


def test_the_jobs_arguments_run_a_sharded_run_and_merge_it(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    # One call per index, as the Indexed Job's pods make them (the first instance of each task, to be quick).
    shards, merge = MANIFESTS["Job/crmarena-shards"], MANIFESTS["Job/crmarena-merge"]
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID", raising=False)
    with default_org_served():
        for index in range(shards["spec"]["completions"]):
            monkeypatch.setenv("JOB_COMPLETION_INDEX", str(index))
            assert main([*job_arguments(shards, tmp_path), "--limit", "1", "--no-progress"]) == OK
    capsys.readouterr()
    assert main(job_arguments(merge, tmp_path)) == OK
    captured = capsys.readouterr()
    assert captured.err == "" and re.search(r"^oracle +9×1 +service +api +(100\.0 +){10}0 ", captured.out, re.M), (
        captured.out
    )
    assert (tmp_path / "report" / "index.html").is_file()


def workflow() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def test_the_ci_example_matches_the_github_workflow_schema() -> None:
    assert ".github" not in WORKFLOW.parts  # an example: it never runs in this repository
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def shell_steps() -> list[tuple[str, str]]:
    return [(name, step["run"]) for name, job in workflow()["jobs"].items() for step in job["steps"] if "run" in step]


def expand(script: str, values: dict[str, str]) -> str:
    """A step's script with its ``${{ … }}`` expressions replaced as the runner would."""
    return re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", lambda match: values[match.group(1)], script)


def test_the_ci_examples_shell_steps_pass_shellcheck(tmp_path: Path) -> None:
    shellcheck = shutil.which(
        "shellcheck", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
    )
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (pip install -e '.[test]' brings it)")
    for number, (job, script) in enumerate(shell_steps()):
        path = tmp_path / f"{job}-{number}.sh"
        # GitHub runs each step with bash -e; expressions are replaced before the shell sees the text.
        path.write_text("#!/bin/bash\nset -e\n" + expand(script, {"matrix.shard": "0"}) + "\n")
        result = subprocess.run([shellcheck, str(path)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"{job}: {script}\n{result.stdout}"


def test_the_ci_matrix_runs_every_shard_once_and_the_merge_reads_them() -> None:
    flow = workflow()
    shard_job, merge_job = flow["jobs"]["shard"], flow["jobs"]["merge"]
    run_folder = flow["env"]["RUN"]
    matrix = shard_job["strategy"]["matrix"]["shard"]
    (evaluation,) = [script for job, script in shell_steps() if job == "shard" and "crmarena eval" in script]
    shards = []
    for index in matrix:
        words = shlex.split(expand(evaluation, {"matrix.shard": str(index)}).replace("$RUN", run_folder))
        config = config_from(build_parser().parse_args(words[1:])).check()
        shards.append(config.sharding()[0])  # type: ignore[index]
        assert config.run_dir == Path(run_folder) / f"shard-{index}-of-{len(matrix)}"
    assert shards == [Shard(index, len(matrix)) for index in range(len(matrix))]
    assert shard_job["strategy"]["fail-fast"] is False and merge_job["needs"] == "shard"
    upload = next(step for step in shard_job["steps"] if step.get("uses", "").startswith("actions/upload-artifact"))
    download = next(step for step in merge_job["steps"] if step.get("uses", "").startswith("actions/download-artifact"))
    assert upload["with"]["path"].rstrip("/") == download["with"]["path"] == "${{ env.RUN }}"
    assert download["with"]["merge-multiple"] is True  # each shard's folder lands side by side in RUN
    (report,) = [script for job, script in shell_steps() if job == "merge" and "crmarena report" in script]
    words = shlex.split(report.replace("$RUN", run_folder))
    assert words[:3] == ["crmarena", "report", run_folder]
    build_parser().parse_args(words[1:])

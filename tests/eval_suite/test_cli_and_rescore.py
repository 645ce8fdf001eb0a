"""The command line (config files, one-line errors), re-scoring saved trajectories, the LLM judge,
and an org that dies in the middle of a run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from eval_suite.commands.cli import main
from eval_suite.run.config import RunConfig
from eval_suite.run.records import RECORDS_FILE, read_records, write_records_atomic
from eval_suite.run.rescore import rescore
from eval_suite.run.runner import run
from eval_suite.run.target import TargetSettings, TargetUnavailable, open_target
from mock_org.server.serve import serve_org

from .conftest import config, react_policy, soql_for
from .scripted import Reply, ScriptedLLM, turns


def crmarena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eval_suite.commands.cli", *args], capture_output=True, text=True)


def test_a_config_file_is_the_command_line(base_config: RunConfig, tmp_path: Path) -> None:
    settings = tmp_path / "run.toml"
    settings.write_text(
        f'agent = "null"\ntasks = ["case_routing"]\n"tasks-file" = "{base_config.tasks_file}"\n'
        f'db = "{base_config.db}"\nout = "{tmp_path / "out"}"\nprogress = false\n'
    )
    done = crmarena("eval", "--config", str(settings), "--workers", "1")
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "out" / "run.json").read_text())
    assert manifest["agent"] == "null" and manifest["selection"]["tasks"] == ["case_routing"]
    assert manifest["sessions"][0]["workers"] == 1 and "NCR" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "react"], "the react agent needs --model"),
        (["--agent", "null", "--tasks", "nonsense"], "no task named nonsense"),
        (["--agent", "null", "--trials", "0"], "--trials must be at least 1"),
        (["--agent", "null", "--cache-mode", "replay"], "--cache-mode replay needs --cache DIR"),
    ],
)
def test_mistakes_are_one_line_errors(
    base_config: RunConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code = main(
        [
            "eval",
            "--tasks-file",
            str(base_config.tasks_file),
            "--db",
            str(base_config.db),
            "--out",
            str(tmp_path / "out"),
            *args,
        ]
    )
    error = capsys.readouterr().err
    assert code == 2 and message in error and len(error.strip().splitlines()) == 1


def test_db_takes_a_dumps_folder_as_serve_does(base_config: RunConfig, tmp_path: Path) -> None:
    """``--db DIR`` names the dump's folder (its crmarena.db inside), as ``crmarena serve --db DIR`` does."""
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "crmarena.db").write_bytes(Path(base_config.db).read_bytes())
    args = ["eval", "--agent", "null", "--tasks-file", str(base_config.tasks_file), "--limit", "1"]
    assert main([*args, "--db", str(folder), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    records = read_records(tmp_path / "out" / RECORDS_FILE)
    assert records and all(record["status"] in ("passed", "failed") for record in records)  # scored, no org error


def test_a_real_org_needs_credentials() -> None:
    with (
        pytest.raises(TargetUnavailable, match="SALESFORCE_USERNAME"),
        open_target(TargetSettings("salesforce"), env={}),
    ):
        pass


def test_rescore_reads_saved_answers_against_new_gold(base_config: RunConfig, tmp_path: Path) -> None:
    with ScriptedLLM(react_policy) as llm:
        result = run(config(base_config, base_url=llm.url))
    records_path = result.out / RECORDS_FILE
    # A scoring change: as if the answers had been scored wrongly before.
    write_records_atomic(records_path, [{**record, "status": "failed", "score": 0.0} for record in result.records])
    assert rescore(result.out)["overall"]["score"]["value"] == 1.0
    corrected = tmp_path / "corrected.jsonl"
    rows = [json.loads(line) for line in Path(base_config.tasks_file).read_text().splitlines()]
    rows[0]["answer"] = "005Ws0000000999IAA"
    corrected.write_text("".join(json.dumps(row) + "\n" for row in rows))
    summary = rescore(result.out, corrected)
    assert summary["tasks"]["case_routing"]["score"]["value"] == 0.5
    records = {record["task_id"]: record for record in read_records(records_path)}
    assert records[1]["status"] == "failed" and records[1]["gt_answer"] == "005Ws0000000999IAA"
    assert json.loads((result.out / "run.json").read_text())["rescored"]["tasks_file"] == str(corrected)


def test_the_judge_extracts_answers_from_sentences(base_config: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Reply:
        if body["model"] == "judge-model":
            reply = body["messages"][0]["content"].split("The agent's reply:\n", 1)[1]
            return Reply(json.dumps({"extracted_answers": [word for word in reply.split() if word.startswith("005")]}))
        if turns(body) == 0:
            return Reply(f"<execute>{soql_for(body)}</execute>")
        owner = body["messages"][-1]["content"].split("'OwnerId': '")[1][:18]
        return Reply(f"<respond>I believe it is {owner} indeed</respond>")

    with ScriptedLLM(policy) as llm:
        result = run(config(base_config, base_url=llm.url, judge="judge-model", tasks=("case_routing",)))
    record = result.records[0]
    assert record["status"] == "passed" and record["judge"]["extracted"] == [record["gt_answer"]]
    assert record["judge"]["rule_reward"] == 1.0 and result.manifest["judge"] == "judge-model"
    judged = [request for request in llm.requests if request["model"] == "judge-model"]
    assert len(judged) == 2 and all(request["temperature"] == 0 for request in judged)


def test_an_org_that_dies_mid_run_is_an_infrastructure_error(
    base_config: RunConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve_org(base_config.db, read_only=True) as org:
        monkeypatch.setenv("CRMARENA_MOCK_URL", org.url)
        monkeypatch.setenv("CRMARENA_USERNAME", org.username)
        monkeypatch.setenv("CRMARENA_PASSWORD", org.password)
        monkeypatch.setenv("CRMARENA_SECURITY_TOKEN", org.security_token)
        monkeypatch.setenv("CRMARENA_CA_BUNDLE", str(org.ca_bundle))

        def policy(body: dict[str, Any]) -> Reply:
            if turns(body) == 1:
                org.server.stop()  # the org goes away between two turns
            return react_policy(body) if turns(body) != 1 else Reply(f"<execute>{soql_for(body)}</execute>")

        with ScriptedLLM(policy) as llm:
            result = run(
                config(base_config, base_url=llm.url, workers=1, max_infra_errors=0, tasks=("handle_time",), db=None)
            )
    record = result.records[0]
    assert record["status"] == "infra_error" and record["error"]["source"] == "org"
    assert "could not be reached" in record["error"]["message"] and record["traj"]  # the partial conversation is kept
    assert result.summary["overall"]["score"] is None and result.exit_code == 5

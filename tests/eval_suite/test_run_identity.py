"""A run is never mislabelled: it records its whole configuration; the report keeps runs with different
configurations apart and says what differs (runs on different task sets in tables of their own), and
`report diff` labels its sides by what differs; a partial run shows no Overall; a resumed subset never
shrinks summary.json; the org a run used is always named; SALESFORCE_* alone is refused, not ignored."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from eval_suite.commands.cli import main
from eval_suite.reports.diff import diff, format_diff
from eval_suite.reports.report import make_report
from eval_suite.reports.runs import load_runs
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run

from .conftest import react_policy, task_rows
from .scripted import ScriptedLLM

V2 = {"version": "2", "org": {"seed": 3, "scale": 1.0, "sha256": "ab" * 32}}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, org_db: Path, task_file: Path) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("configurations")
    v2_file = root / "tasks-v2.jsonl"
    v2_file.write_text("".join(json.dumps({**row, "task_set": V2}) + "\n" for row in task_rows()))
    common: dict[str, Any] = {
        "tasks_file": task_file,
        "db": org_db,
        "workers": 2,
        "retry_base": 0.01,
        "progress": False,
    }
    with ScriptedLLM(react_policy) as llm:
        model = {"agent": "react", "model": "scripted", "base_url": llm.url}
        run(RunConfig(out=root / "cold", **model, **common))
        run(RunConfig(out=root / "warm", temperature=0.7, **model, **common))
        run(RunConfig(out=root / "pilot", limit=1, **model, **common))
        run(RunConfig(out=root / "named", label="baseline", **model, **common))
    run(RunConfig(agent="null", out=root / "null-v1", **common))
    run(RunConfig(agent="null", out=root / "null-again", **common))
    run(RunConfig(agent="null", out=root / "null-v2", **{**common, "tasks_file": v2_file}))
    return {path.name: path for path in root.iterdir() if path.is_dir()}


def test_the_manifest_records_the_whole_configuration(runs: dict[str, Path]) -> None:
    manifest = json.loads((runs["warm"] / "run.json").read_text())
    for field in (
        "model",
        "agent",
        "base_url",
        "temperature",
        "prompt_sha256",
        "tools",
        "tasks_sha256",
        "task_set",
        "sampling",
        "plan",
        "org_sha256",
        "target",
        "label",
        "seed",
        "max_turns",
    ):
        assert field in manifest, field
    assert manifest["temperature"] == 0.7 and manifest["sampling"] == {} and manifest["task_set"] is None
    assert json.loads((runs["null-v2"] / "run.json").read_text())["task_set"] == V2
    assert json.loads((runs["named"] / "run.json").read_text())["label"] == "baseline"
    assert json.loads((runs["pilot"] / "run.json").read_text())["sampling"] == {"limit": 1}


def test_the_report_keeps_runs_of_different_configurations_apart_and_says_what_differs(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    report = make_report([runs[name] for name in ("cold", "warm", "pilot", "named", "null-v1", "null-v2")], tmp_path)
    labels = [row.run.label for row in report.rows]
    assert len(labels) == 6 and len(set(labels)) == 6  # nothing merged
    assert "scripted · react · temperature 0.0 · sampling all" in labels
    assert "scripted · react · temperature 0.7 · sampling all" in labels
    assert "scripted · react · temperature 0.0 · sampling limit 1" in labels
    assert any(label.startswith("baseline · scripted · react") for label in labels)
    table = list(csv.DictReader((tmp_path / "leaderboard.csv").open()))
    assert {row["task_set"] for row in table if row["agent"] == "null"} == {
        "task set v1",
        "task set v2 (org seed 3, scale 1.0, sha256 abababab)",
    }
    markdown = (tmp_path / "leaderboard.md").read_text()
    assert "## task set v1" in markdown and "## task set v2 (org seed 3" in markdown  # v1 and v2 never share a column
    v1, v2 = markdown.split("## task set v2")
    assert v1.count("| null ") == 1 and v2.count("| null ") == 1
    assert "task set v2" in report.terminal and "sampling limit 1" in report.terminal


def test_report_diff_labels_its_sides_by_what_differs(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "diff", str(runs["cold"]), str(runs["warm"])]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "A: scripted · react · temperature 0.0" and lines[1] == "B: scripted · react · temperature 0.7"
    (v1,), (v2,) = load_runs([runs["null-v1"]]), load_runs([runs["null-v2"]])
    text = format_diff(v1, v2, diff(v1, v2))
    assert "task file" in text.splitlines()[0] and "task set" in text.splitlines()[1]
    assert "an instance number may not name the same instance on both sides" in text
    assert main(["report", "diff", str(runs["null-v1"]), str(runs["null-again"]), "--json"]) == 0
    same = json.loads(capsys.readouterr().out)
    assert same["differ"] == [] and same["caveats"] == []  # the same configuration twice: told apart by directory
    assert same["a"] == f"null ({runs['null-v1']})" and same["b"] == f"null ({runs['null-again']})"


def test_a_partial_run_has_no_overall(
    base_config: RunConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "eval",
            "--agent",
            "null",
            "--tasks",
            "case_routing",
            "--tasks-file",
            str(base_config.tasks_file),
            "--db",
            str(base_config.db),
            "--out",
            str(tmp_path / "run"),
            "--no-progress",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["complete"] is False and summary["overall"]["score"] is None
    assert summary["n"] == {"instances": 2, "trials": 1}
    assert "all    partial (1/3 tasks)" in out and "partial (1/3 tasks)" in out.split("\n\n")[1]
    report = make_report([tmp_path / "run"], tmp_path / "report")
    row = next(csv.DictReader((tmp_path / "report" / "leaderboard.csv").open()))
    assert row["Overall"] == "" and row["complete"] == "False" and row["instances"] == "2"
    assert "| partial (1/3 tasks) |" in (tmp_path / "report" / "leaderboard.md").read_text()
    assert report.rows[0].n == "2×1"


def test_resuming_a_subset_never_shrinks_the_summary(
    base_config: RunConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "eval",
        "--agent",
        "null",
        "--tasks-file",
        str(base_config.tasks_file),
        "--db",
        str(base_config.db),
        "--out",
        str(tmp_path / "run"),
        "--no-progress",
    ]
    assert main(args) == 0
    whole = json.loads((tmp_path / "run" / "summary.json").read_text())
    capsys.readouterr()
    assert main([*args, "--tasks", "case_routing"]) == 0  # nothing left to run there: a resume of one task
    again = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert set(again["tasks"]) == set(whole["tasks"]) and again["overall"] == whole["overall"]
    assert again["complete"] is True and again["n"] == {"instances": 4, "trials": 1}
    printed, table = capsys.readouterr().out.split("\n\n")[:2]
    overall = f"{100 * whole['overall']['score']['value']:.1f}"
    assert f"{100 * whole['overall']['score']['value']:.1f}%" in printed and overall in table  # the two tables agree


def test_the_target_is_named_at_the_start_and_in_the_summary(
    base_config: RunConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "eval",
                "--agent",
                "null",
                "--tasks-file",
                str(base_config.tasks_file),
                "--db",
                str(base_config.db),
                "--out",
                str(tmp_path / "run"),
                "--no-progress",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    named = f"the mock org (a private read-only copy of {base_config.db})"
    assert f"crmarena eval: target: {named}" in captured.err.splitlines()[1]
    assert f"target: {named}" in captured.out
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["target"] == named[4:]


@pytest.mark.parametrize("variable", ["SALESFORCE_USERNAME", "SALESFORCE_INSTANCE_URL"])
def test_salesforce_variables_without_a_target_are_refused(
    variable: str,
    base_config: RunConfig,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("CRMARENA_TARGET", raising=False)
    monkeypatch.setenv(variable, "me@example.com")
    args = ["eval", "--agent", "null", "--tasks-file", str(base_config.tasks_file), "--out", str(tmp_path / "run")]
    assert main(args) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and f"{variable} is set but CRMARENA_TARGET is not" in error
    assert "CRMARENA_TARGET=salesforce" in error and "CRMARENA_TARGET=mock" in error
    assert not (tmp_path / "run").exists()
    assert main(["org", "push", "--idmap", str(tmp_path / "idmap.json")]) == 2  # a push would write into the wrong org
    assert "CRMARENA_TARGET is not" in capsys.readouterr().err
    monkeypatch.setenv("CRMARENA_TARGET", "mock")  # chosen explicitly: the mock it is, and the output says so
    assert main([*args, "--db", str(base_config.db), "--no-progress"]) == 0
    assert "target: the mock org" in capsys.readouterr().out

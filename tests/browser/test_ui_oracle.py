"""The UI oracle solves every task through the pages alone (console off): the first twenty instances of each
of the nine tasks (180), on the default org served over HTTPS, through the runner. The whole committed set,
timed, is benchmarks/ui_oracle.py."""

from __future__ import annotations

from pathlib import Path

from eval_suite.reports.table import TASK_ORDER
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run

TASKS = tuple(task for task, _ in TASK_ORDER)
PER_TASK = 20


def test_the_ui_oracle_answers_every_task_through_the_pages_without_the_console(tmp_path: Path) -> None:
    config = RunConfig(
        agent="ui-oracle",
        tasks=TASKS,
        limit=PER_TASK,
        ui_console="off",
        out=tmp_path / "run",
        workers=2,
        progress=False,
    )
    result = run(config)
    failures = [
        (
            record["task_type"],
            record["task_id"],
            record["status"],
            record["answer"],
            record["gt_answer"],
            record["error"],
        )
        for record in result.records
        if record["status"] != "passed"
    ]
    assert failures == []
    assert len(TASKS) == 9 and len(result.records) == PER_TASK * len(TASKS)
    assert result.manifest["surface"] == "ui" and result.manifest["ui_console"] == "off"
    assert all(record["agent_info"]["pages"] >= 2 for record in result.records)  # the front door, then its pages
    assert not any("/lightning/setup/query" in str(record["traj"]) for record in result.records)
    assert not any("/services/data" in str(record["traj"]) for record in result.records)

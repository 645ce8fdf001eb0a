"""The UI oracle solves the tasks through the pages alone (console off): the first instances of each task it
has a solver for, on the default org, through the runner. Not yet covered: knowledge_qa (the article page
does not show list numbering, so a span's offsets can shift) and policy_violation_identification (no solver)."""

from __future__ import annotations

from pathlib import Path

from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run

SOLVED = (
    "case_routing",
    "handle_time",
    "transfer_count",
    "named_entity_disambiguation",
    "top_issue_identification",
    "monthly_trend_analysis",
    "best_region_identification",
)


def test_the_ui_oracle_answers_through_the_pages_without_the_console(tmp_path: Path) -> None:
    config = RunConfig(
        agent="ui-oracle", tasks=SOLVED, limit=2, ui_console="off", out=tmp_path / "run", workers=2, progress=False
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
    assert len(result.records) == 2 * len(SOLVED)
    assert result.manifest["surface"] == "ui" and result.manifest["ui_console"] == "off"
    assert all(record["agent_info"]["pages"] >= 2 for record in result.records)  # the front door, then its pages
    assert not any("/lightning/setup/query" in str(record["traj"]) for record in result.records)

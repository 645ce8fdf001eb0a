"""What the sales task types' tests check alike: the oracle solves a task file on an org."""

from __future__ import annotations

from pathlib import Path

from eval_suite.run.config import RunConfig
from eval_suite.run.runner import RunResult, run


def oracle_passes(
    db: Path, tasks_file: Path, out: Path, interactive: bool, *, records: int, limit: int | None = None
) -> RunResult:
    """Runs the oracle over ``tasks_file`` on the org ``db`` (the first ``limit`` instances of each task, all when
    None), single-turn or, when ``interactive``, with the scripted user; asserts that the run ends well with
    ``records`` records, every one passed, and returns it for the caller's own checks."""
    config = RunConfig(
        agent="oracle",
        db=db,
        tasks_file=tasks_file,
        limit=limit,
        interactive=interactive,
        workers=2,
        progress=False,
        retry_base=0.01,
        out=out,
    )
    result = run(config)
    assert result.exit_code == 0
    assert len(result.records) == records
    assert {record["status"] for record in result.records} == {"passed"}
    return result

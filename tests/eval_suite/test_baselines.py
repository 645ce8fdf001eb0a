"""The trivial strategies score low: ``null`` (always None) and ``majority`` (each task's most common
answer) run through the same runner and scorer as any agent. On the original's task file the bounds
come from its answer distribution (39 Nones in five tasks, routing skewed to one agent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run
from tests.shared import shared_dir

from .conftest import config

SHARED = shared_dir()
ORIGINAL = SHARED / "original" / "crmarena_tasks_natural.json" if SHARED else None


@pytest.mark.skipif(ORIGINAL is None or not ORIGINAL.exists(), reason="the original task file is not available")
@pytest.mark.parametrize(("agent", "bound"), [("null", 0.2), ("majority", 0.3)])
def test_trivial_strategies_score_low_on_the_original_tasks(
    base_config: RunConfig, tmp_path: Path, agent: str, bound: float
) -> None:
    result = run(config(base_config, agent=agent, model=None, tasks_file=ORIGINAL, workers=4, out=tmp_path / agent))
    overall = result.summary["overall"]["score"]["value"]
    per_task = {task: entry["score"]["value"] for task, entry in result.summary["tasks"].items()}
    assert result.manifest["tasks_layout"] == "original" and len(result.records) == 1170
    assert 0.05 < overall <= bound, per_task
    assert max(per_task.values()) < 0.45, per_task
    if agent == "null":
        assert per_task["handle_time"] == pytest.approx(39 / 130) and per_task["case_routing"] == 0


@pytest.mark.parametrize(("agent", "bound"), [("null", 0.2), ("majority", 0.3)])
def test_trivial_strategies_score_low_on_the_committed_tasks(
    base_config: RunConfig, tmp_path: Path, agent: str, bound: float
) -> None:
    from fixtures.default import default_tasks

    result = run(
        config(
            base_config, agent=agent, model=None, tasks_file=default_tasks(), db=None, workers=4, out=tmp_path / agent
        )
    )
    per_task = {task: entry["score"]["value"] for task, entry in result.summary["tasks"].items()}
    assert len(result.records) == 1170 and result.manifest["canary"]
    assert 0.05 < result.summary["overall"]["score"]["value"] <= bound, per_task
    assert max(per_task.values()) <= 0.35, per_task

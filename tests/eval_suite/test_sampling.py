"""Pilot runs that represent the set: ``--sample N`` takes N instances of each task, stratified by answer
kind (None or not) in the task's own proportion, with a seed; ``--limit N`` stays "the first N of each
task in file order" and says so. On the committed set an always-None agent scores on a sample what it
scores on the whole set (``--limit 10`` would give it 100% on TII, whose first instances are all None)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import RunRefused, run
from eval_suite.run.selection import sample, select
from eval_suite.tools.catalog import default_task_file
from fixtures.tasks.model import Instance
from fixtures.tasks.task_file import TaskFile, read_task_file


@pytest.fixture(scope="module")
def committed() -> TaskFile:
    return read_task_file(default_task_file())


def none_share(instances: list[Instance], task: str) -> float:
    members = [instance for instance in instances if instance.task == task]
    return sum(instance.answer is None for instance in members) / len(members)


@pytest.mark.parametrize("size", [10, 25, 64])
def test_a_sample_keeps_each_tasks_share_of_none_answers(committed: TaskFile, size: int) -> None:
    chosen = sample(committed, None, size, 0)
    for task in committed.task_names:
        picked = [instance for instance in chosen if instance.task == task]
        assert len(picked) == size
        expected = size * none_share(list(committed.instances), task)
        assert abs(sum(instance.answer is None for instance in picked) - expected) <= 0.5, task
    assert [instance.idx for instance in chosen] == sorted(instance.idx for instance in chosen)  # file order


def test_a_sample_is_fixed_by_its_seed_and_grows_in_place(committed: TaskFile) -> None:
    ten = {instance.idx for instance in sample(committed, None, 10, 0)}
    assert ten == {instance.idx for instance in sample(committed, None, 10, 0)}
    assert ten != {instance.idx for instance in sample(committed, None, 10, 1)}
    assert ten <= {instance.idx for instance in sample(committed, None, 25, 0)}  # a larger pilot keeps the smaller
    only = sample(committed, ["handle_time"], 10, 0)
    assert {instance.task for instance in only} == {"handle_time"}
    assert {i.idx for i in only} == {i.idx for i in sample(committed, None, 10, 0) if i.task == "handle_time"}


def test_an_always_none_agent_on_a_sample_scores_what_it_scores_on_the_whole_set(
    committed: TaskFile,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tasks = ["top_issue_identification", "handle_time", "case_routing"]
    code = main(
        [
            "eval",
            "--agent",
            "null",
            "--sample",
            "10",
            "--tasks",
            ",".join(tasks),
            "--out",
            str(tmp_path / "pilot"),
            "--no-progress",
        ]
    )
    assert code == 0
    assert "a sample of 10 per task (stratified by answer kind, seed 0)" in capsys.readouterr().err
    summary = json.loads((tmp_path / "pilot" / "summary.json").read_text())
    for task in tasks:
        whole = none_share(list(committed.instances), task)
        assert summary["tasks"][task]["score"]["value"] == pytest.approx(round(10 * whole) / 10), task
    # The first 10 of TII are far from the set's None share (the selection takes its None quota early): a pilot
    # with --limit says it is no sample.
    first = select(committed, ["top_issue_identification"], 10)
    share = sum(instance.answer is None for instance in first) / len(first)
    assert share > 3 * none_share(list(committed.instances), "top_issue_identification")
    assert (
        main(
            [
                "eval",
                "--agent",
                "null",
                "--limit",
                "2",
                "--tasks",
                "case_routing",
                "--out",
                str(tmp_path / "smoke"),
                "--no-progress",
            ]
        )
        == 0
    )
    assert (
        "the first 2 of each task in file order (not a representative sample: --sample is)" in capsys.readouterr().err
    )


def test_limit_and_sample_exclude_each_other_and_a_run_keeps_its_rule(
    base_config: RunConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "eval",
            "--agent",
            "null",
            "--limit",
            "3",
            "--sample",
            "3",
            "--tasks-file",
            str(base_config.tasks_file),
            "--db",
            str(base_config.db),
            "--out",
            str(tmp_path / "x"),
        ]
    )
    assert code == 2 and "exclude each other" in capsys.readouterr().err
    first = run(
        RunConfig(
            agent="null",
            tasks_file=base_config.tasks_file,
            db=base_config.db,
            out=tmp_path / "run",
            sample=1,
            progress=False,
        )
    )
    assert first.manifest["sampling"] == {"sample": 1, "seed": 0} and len(first.records) == 3
    assert first.manifest["plan"] == {"case_routing": 1, "best_region_identification": 1, "handle_time": 1}
    with pytest.raises(RunRefused, match="sampling"):
        run(
            RunConfig(
                agent="null",
                tasks_file=base_config.tasks_file,
                db=base_config.db,
                out=tmp_path / "run",
                sample=1,
                sample_seed=4,
                progress=False,
            )
        )

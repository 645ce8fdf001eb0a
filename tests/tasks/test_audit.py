"""The shortcut audit on the committed default set: the bounds of task set v2 hold (a validity check, not a
timing), the audit scores with the harness's own scorer, and `crmarena fixtures audit --check` fails a set
that a shortcut solves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from eval_suite.scoring.answers import score
from fixtures.audit import bounds
from fixtures.audit.data import AuditData
from fixtures.audit.report import render
from fixtures.audit.run import STRATEGIES, Audit, reward, run_audit
from fixtures.audit.strategy import NOT_APPLICABLE
from fixtures.default import default_tasks
from fixtures.tasks.model import TASKS, Instance
from fixtures.tasks.records import OrgRecords


@pytest.fixture(scope="module")
def audit(default_db: Path, instances: list[Instance], records: OrgRecords) -> Audit:
    return run_audit(default_db, instances, org=records)


def test_default_set_stays_within_the_bounds(audit: Audit) -> None:
    assert audit.failures() == []
    assert audit.mean_best <= bounds.MAX_MEAN_BEST_SHORTCUT


def test_case_routing_has_enough_distinct_answers(audit: Audit) -> None:
    routing = next(task for task in audit.tasks if task.task == "case_routing")
    assert routing.distinct >= bounds.MIN_ROUTING_ANSWERS


def test_every_task_meets_six_strategies_of_both_kinds_and_its_clauses(audit: Audit) -> None:
    assert [task.task for task in audit.tasks] == [spec.name for spec in TASKS]
    for task in audit.tasks:
        kinds = [item.kind for item in task.strategies if item.kind in ("trivial", "proxy")]
        assert len(kinds) >= 6 and {"trivial", "proxy"} <= set(kinds), task.task
        assert all(item.count for item in task.strategies), task.task
        if task.task != "knowledge_qa":
            assert task.clauses and all(clause.share >= bounds.MIN_CLAUSE_SHARE for clause in task.clauses)


def test_aggregate_answers_rest_on_evidence(audit: Audit) -> None:
    for task in audit.tasks:
        if task.evidence is not None:
            assert task.evidence.median_cases >= bounds.MIN_MEDIAN_EVIDENCE, task.task


def test_text_variety_is_printed_and_within_bounds(audit: Audit) -> None:
    text = render(audit)
    assert "chat lines" in text and "case subjects" in text and "best shortcuts averaged" in text
    assert audit.variety.chat_distinct >= bounds.MIN_CHAT_DISTINCT
    assert audit.variety.subjects_per_thousand >= bounds.MIN_SUBJECTS_PER_THOUSAND
    low, high = bounds.VIOLATION_SHARE
    assert audit.violation_share is not None and low <= audit.violation_share <= high


def test_audit_rewards_are_the_harness_scores(instances: list[Instance], records: OrgRecords) -> None:
    """Every shortcut answer, scored by the audit and by eval_suite.scoring.answers as a final answer, gets one reward."""
    data = AuditData(records, instances)
    compared = 0
    for task, strategies in STRATEGIES.items():
        mine = [instance for instance in instances if instance.task == task][:25]
        for strategy in strategies:
            for instance in mine:
                answer = strategy.answer(data, instance)
                if answer is NOT_APPLICABLE:
                    continue
                said = "None" if answer is None else answer
                harness = score(task, instance.reward_metric, instance.answer, said).reward
                assert reward(instance, answer) == pytest.approx(harness), (task, strategy.name, answer)
                compared += 1
    assert compared > 1000


def test_check_exits_4_when_a_shortcut_solves_the_set(
    default_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A set of only None answers: 'always None' scores 100 %, past the baseline bound."""
    lines = default_tasks().read_text(encoding="utf-8").splitlines()
    none_only = [line for line in lines if json.loads(line)["answer"] is None]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n".join(none_only) + "\n", encoding="utf-8")
    assert main(["fixtures", "audit", "--db", str(default_db), "--tasks", str(tasks), "--check"]) == 4
    captured = capsys.readouterr()
    assert "'always None' scores 100.0%" in captured.out
    assert captured.err.startswith("crmarena: the task set breaks ") and captured.err.count("\n") == 1

"""activity_priority on a B2B org: a rep's to-do list on a day and the Task Ids the priority policy puts first;
one record changed moves the answer as the policy says; the audit's bounds hold; the oracle answers every
instance, single- and multi-turn."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pytest

from eval_suite.scoring.answers import LIST_SEPARATOR
from fixtures.audit.bounds import MAX_BASELINE, MAX_SHORTCUT, MIN_CLAUSE_SHARE
from fixtures.audit.run import run_audit
from fixtures.generate.common import ORG_NOW
from fixtures.tasks.model import Instance
from fixtures.tasks.sales.activity_priority import TASK, priority, todo_list
from fixtures.tasks.sales.generate import generate_sales_tasks
from fixtures.tasks.sales.records import SalesRecords, load_sales_records
from fixtures.tasks.task_file import write_jsonl
from tests.tasks.sales.checks import oracle_passes
from tests.tasks.sales.edits import edited


@pytest.fixture(scope="module")
def instances(b2b_db: Path, b2b_latent: dict) -> list[Instance]:
    return generate_sales_tasks(b2b_db, b2b_latent, 42, only=[TASK]).instances


@pytest.fixture(scope="module")
def sales(b2b_db: Path) -> SalesRecords:
    return load_sales_records(b2b_db)


def _first(sales: SalesRecords, instance: Instance) -> set[str]:
    answer = priority(sales, instance.params).answer
    return set(answer.split(LIST_SEPARATOR)) if answer else set()


def _listed(sales: SalesRecords, instance: Instance) -> tuple[list, date]:
    today = date.fromisoformat(instance.params["today"])
    return todo_list(sales, instance.params["owner_id"], today), today


def test_a_hundred_list_answers(instances: list[Instance]) -> None:
    assert len(instances) == 100
    sizes = Counter(
        0 if instance.answer is None else len(instance.answer.split(LIST_SEPARATOR)) for instance in instances
    )
    assert sizes[0] == 20 and sum(count for size, count in sizes.items() if size > 1) >= 60
    assert all(
        instance.answer is None
        or instance.answer.split(LIST_SEPARATOR) == sorted(instance.answer.split(LIST_SEPARATOR))
        for instance in instances
    )
    assert all(instance.params["today"] <= ORG_NOW.date().isoformat() for instance in instances)
    assert len({(instance.params["owner_id"], instance.params["today"]) for instance in instances}) == 100


def test_a_blocked_task_leaves_the_answer(sales: SalesRecords, instances: list[Instance]) -> None:
    instance = next(instance for instance in instances if instance.answer)
    task_id = instance.answer.split(LIST_SEPARATOR)[0]
    for status in ("Deferred", "Waiting on someone else"):
        assert _first(edited(sales, "Task", task_id, Status=status), instance) == _first(sales, instance) - {task_id}


def _setup(sales: SalesRecords, instances: list[Instance]) -> tuple[SalesRecords, Instance, str, date]:
    """An instance and an actionable task on its list, the task's deal set to close in a month."""
    instance = next(instance for instance in instances if _listed(sales, instance)[0])
    tasks, today = _listed(sales, instance)
    task = next(task for task in tasks if task["Status"] not in ("Deferred", "Waiting on someone else"))
    far = (today + timedelta(days=30)).isoformat()
    return edited(sales, "Opportunity", task["WhatId"], CloseDate=far, IsClosed=0), instance, task["Id"], today


@pytest.mark.parametrize(
    ("priority", "due_in", "first"),
    [
        ("Normal", -14, True),  # overdue 3 + Normal 1
        ("Low", -14, False),  # overdue 3 + Low 0
        ("Normal", -15, False),  # too late for the rep's day: Normal 1
        ("High", 2, True),  # due soon 2 + High 2
        ("High", 3, False),  # High 2 only
        ("Normal", 0, False),  # due soon 2 + Normal 1
        ("High", 20, False),
    ],
)
def test_urgency_points(
    sales: SalesRecords, instances: list[Instance], priority: str, due_in: int, first: bool
) -> None:
    base, instance, task_id, today = _setup(sales, instances)
    due = (today + timedelta(days=due_in)).isoformat()
    assert (task_id in _first(edited(base, "Task", task_id, Priority=priority, ActivityDate=due), instance)) is first


def test_a_deal_closing_within_the_week_adds_its_points(sales: SalesRecords, instances: list[Instance]) -> None:
    """A Normal task due on the day has 3 points: its deal closing within seven days makes it 5."""
    base, instance, task_id, today = _setup(sales, instances)
    due = edited(base, "Task", task_id, Priority="Normal", ActivityDate=today.isoformat())
    deal = sales["Task"][task_id]["WhatId"]
    assert task_id not in _first(due, instance)
    week = edited(due, "Opportunity", deal, CloseDate=(today + timedelta(days=7)).isoformat())
    assert task_id in _first(week, instance)
    later = edited(due, "Opportunity", deal, CloseDate=(today + timedelta(days=8)).isoformat())
    assert task_id not in _first(later, instance)


def test_the_list_is_the_one_of_the_day(sales: SalesRecords, instances: list[Instance]) -> None:
    """A first task finished the day before leaves; one created the day after was never on the list; a deal
    closed the day before takes its tasks off."""
    instance = next(instance for instance in instances if instance.answer)
    today = date.fromisoformat(instance.params["today"])
    task_id = instance.answer.split(LIST_SEPARATOR)[0]
    task = sales["Task"][task_id]
    before = f"{today - timedelta(days=1)}T17:00:00.000+0000"
    done = edited(sales, "Task", task_id, Status="Completed", CompletedDateTime=before)
    assert task_id not in _first(done, instance)
    on_the_day = edited(sales, "Task", task_id, Status="Completed", CompletedDateTime=f"{today}T17:00:00.000+0000")
    assert task_id in _first(on_the_day, instance)
    created_later = edited(sales, "Task", task_id, CreatedDate=f"{today + timedelta(days=1)}T09:00:00.000+0000")
    assert task_id not in _first(created_later, instance)
    closed = edited(sales, "Opportunity", task["WhatId"], IsClosed=1, CloseDate=(today - timedelta(days=1)).isoformat())
    assert task_id not in _first(closed, instance)


def test_the_audit_bounds_hold(b2b_db: Path, instances: list[Instance]) -> None:
    audit = run_audit(b2b_db, instances)
    (task,) = audit.tasks
    for strategy in task.strategies:
        limit = MAX_BASELINE if strategy.kind == "trivial" else MAX_SHORTCUT
        assert strategy.score <= limit, strategy.name
    assert min(clause.share for clause in task.clauses) >= MIN_CLAUSE_SHARE


def test_same_seed_same_instances(b2b_db: Path, b2b_latent: dict, instances: list[Instance]) -> None:
    again = generate_sales_tasks(b2b_db, b2b_latent, 42, only=[TASK]).instances
    assert [json.dumps(i.to_json()) for i in again] == [json.dumps(i.to_json()) for i in instances]


@pytest.mark.parametrize("interactive", [False, True])
def test_the_oracle_answers_every_instance(
    instances: list[Instance], b2b_db: Path, tmp_path: Path, interactive: bool
) -> None:
    task_file = tmp_path / "tasks.jsonl"
    write_jsonl(task_file, instances)
    oracle_passes(b2b_db, task_file, tmp_path / "oracle", interactive, records=100)

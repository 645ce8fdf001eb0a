"""The nine service tasks on a sales org: its tasks.jsonl holds them first (100 each on a full-size org), the
sales task types after them, numbered on; on the B2B org of seed 42 they keep every bound of the hardness
audit (fixtures/audit/bounds.py) that they keep on the service org."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from fixtures.audit.run import run_audit
from fixtures.build import with_sales_tasks
from fixtures.tasks.generate import TaskSet, generate_tasks
from fixtures.tasks.model import TASKS, Instance


def _instance(idx: int, task: str) -> Instance:
    return Instance(idx, task, None, "q", None, "exact_match", {"required": "", "optional": ""})


def test_the_sales_task_types_follow_the_nine_numbered_on() -> None:
    service = TaskSet([_instance(index, "handle_time") for index in range(3)], {"handle_time": 1.0})
    sales = TaskSet([_instance(index, "lead_routing") for index in range(2)], {"lead_routing": 2.0})
    both = with_sales_tasks(service, sales)
    assert [(instance.idx, instance.task) for instance in both.instances] == [
        (0, "handle_time"),
        (1, "handle_time"),
        (2, "handle_time"),
        (3, "lead_routing"),
        (4, "lead_routing"),
    ]
    assert both.seconds == {"handle_time": 1.0, "lead_routing": 2.0}


@pytest.mark.slow
def test_the_nine_keep_the_audit_bounds_on_the_b2b_org(b2b_db: Path, b2b_latent: dict) -> None:
    instances = generate_tasks(b2b_db, b2b_latent, 42, 100).instances
    assert Counter(instance.task for instance in instances) == {spec.name: 100 for spec in TASKS}
    assert {instance.task_set["org"]["type"] for instance in instances if instance.task_set} == {"b2b"}
    audit = run_audit(b2b_db, instances)
    assert audit.failures() == []

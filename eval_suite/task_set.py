"""The instances a run evaluates, as the harness reads them from a task file in our layout (JSON
Lines with params and reference) or the original's (one JSON list, task name under ``type``).

Only what an agent, the scorer and the oracle need is kept; ``today`` comes from the instance's
params, or from the "Today's date" line of the context in the original's files.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_TODAY = re.compile(r"Today's date:\s*(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class Instance:
    idx: int
    task: str
    query: str
    answer: str | None
    reward_metric: str
    required: str
    optional: str = ""
    today: str | None = None
    persona: str | None = None
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    reference: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class TaskSet:
    path: Path
    sha256: str
    layout: str  # "crmarena-selfhosted" or "original"
    instances: tuple[Instance, ...]
    canary: str | None = None

    def select(self, tasks: list[str] | None, limit: int | None) -> list[Instance]:
        """The instances of the named tasks (all when None), at most ``limit`` per task, in file order."""
        chosen: list[Instance] = []
        per_task: dict[str, int] = {}
        for instance in self.instances:
            if tasks and instance.task not in tasks:
                continue
            per_task[instance.task] = per_task.get(instance.task, 0) + 1
            if limit is None or per_task[instance.task] <= limit:
                chosen.append(instance)
        return chosen

    @property
    def task_names(self) -> list[str]:
        return list(dict.fromkeys(instance.task for instance in self.instances))


def load_task_file(path: Path) -> TaskSet:
    raw = Path(path).read_bytes()
    text = raw.decode("utf-8")
    if text.lstrip().startswith("["):
        rows, layout = json.loads(text), "original"
    else:
        rows, layout = [json.loads(line) for line in text.splitlines() if line.strip()], "crmarena-selfhosted"
    instances = tuple(_instance(row) for row in rows)
    canaries = {row.get("canary") for row in rows if row.get("canary")}
    return TaskSet(Path(path), hashlib.sha256(raw).hexdigest(), layout, instances, next(iter(canaries), None))


def _instance(row: dict[str, Any]) -> Instance:
    metadata = row.get("metadata") or {}
    params = row.get("params") or {}
    required = metadata.get("required") or ""
    found = _TODAY.search(required)
    return Instance(
        idx=int(row["idx"]),
        task=row.get("task") or row["type"],
        query=row["query"],
        answer=row.get("answer"),
        reward_metric=row.get("reward_metric", "exact_match"),
        required=required,
        optional=metadata.get("optional") or "",
        today=params.get("today") or (found.group(1) if found else None),
        persona=row.get("persona"),
        params=params,
        reference=tuple(row.get("reference") or ()),
    )

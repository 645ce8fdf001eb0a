"""The instances a run evaluates, as the harness reads them from a task file in our layout (JSON
Lines with params and reference) or the original's (one JSON list, task name under ``type``).

The file is read by the one task-file loader (``fixtures.tasks.model.read_task_file``), which checks
every row and field; this module keeps only what an agent, the scorer and the oracle need, and
chooses a run's instances (``--tasks``, ``--limit``, ``--sample``). ``today`` comes from the
instance's params, or from the "Today's date" line of the context in the original's files.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixtures.tasks.model import Instance as TaskInstance
from fixtures.tasks.model import TaskFileError, read_task_file

__all__ = ["Instance", "TaskFileError", "TaskSet", "load_task_file"]

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
    task_set: dict[str, Any] | None = None  # the file's task-set version and org build (None: version 1)

    @property
    def version(self) -> str:
        return str((self.task_set or {}).get("version") or "1")

    def select(self, tasks: list[str] | None, limit: int | None) -> list[Instance]:
        """The instances of the named tasks (all when None), the first ``limit`` of each task, in file order."""
        chosen: list[Instance] = []
        per_task: dict[str, int] = {}
        for instance in self.instances:
            if tasks and instance.task not in tasks:
                continue
            per_task[instance.task] = per_task.get(instance.task, 0) + 1
            if limit is None or per_task[instance.task] <= limit:
                chosen.append(instance)
        return chosen

    def sample(self, tasks: list[str] | None, size: int, seed: int) -> list[Instance]:
        """``size`` instances of each named task (all when None) that represent it: stratified by answer
        kind (None or not) in proportion to the task's own split, drawn with ``seed``; in file order.

        The same seed gives the same instances, and a larger ``size`` keeps every instance of a smaller
        one (each stratum is one seeded shuffle, taken from the front), so a pilot can grow in place."""
        chosen: set[int] = set()
        for task in self.task_names:
            if tasks and task not in tasks:
                continue
            members = [instance for instance in self.instances if instance.task == task]
            strata = [[i for i in members if i.answer is None], [i for i in members if i.answer is not None]]
            shares = _allocate(min(size, len(members)), [len(stratum) for stratum in strata])
            for kind, (stratum, share) in enumerate(zip(strata, shares, strict=True)):
                order = sorted(stratum, key=lambda instance: instance.idx)
                random.Random(f"crmarena-sample:{seed}:{task}:{kind}").shuffle(order)
                chosen.update(instance.idx for instance in order[:share])
        return [instance for instance in self.instances if instance.idx in chosen]

    def plan(self, limit: int | None, sample: int | None) -> dict[str, int]:
        """Instances per task that the sampling rule gives over the whole file (every task, whatever
        ``--tasks`` chose): what a complete run of this configuration scores."""
        counts: dict[str, int] = {}
        for instance in self.instances:
            counts[instance.task] = counts.get(instance.task, 0) + 1
        cap = sample if sample is not None else limit
        return {task: count if cap is None else min(cap, count) for task, count in counts.items()}

    @property
    def task_names(self) -> list[str]:
        return list(dict.fromkeys(instance.task for instance in self.instances))


def _allocate(size: int, sizes: list[int]) -> list[int]:
    """``size`` split across strata in proportion to ``sizes`` (largest remainders; ties to the larger
    stratum), never more than a stratum holds."""
    total = sum(sizes)
    if total == 0:
        return [0] * len(sizes)
    exact = [size * count / total for count in sizes]
    shares = [int(value) for value in exact]
    order = sorted(range(len(sizes)), key=lambda index: (exact[index] - shares[index], sizes[index]), reverse=True)
    for index in order[: size - sum(shares)]:
        shares[index] += 1
    return [min(share, count) for share, count in zip(shares, sizes, strict=True)]


def load_task_file(path: Path) -> TaskSet:
    """The harness's view of a task file; TaskFileError (a ValueError) names the file, line and field."""
    task_file = read_task_file(path)
    instances = tuple(_instance(instance) for instance in task_file.instances)
    return TaskSet(task_file.path, task_file.sha256, task_file.layout, instances, task_file.canary, task_file.task_set)


def _instance(source: TaskInstance) -> Instance:
    required = source.metadata.get("required") or ""
    found = _TODAY.search(required)
    return Instance(
        idx=source.idx,
        task=source.task,
        query=source.query,
        answer=source.answer,
        reward_metric=source.reward_metric,
        required=required,
        optional=source.metadata.get("optional") or "",
        today=source.params.get("today") or (found.group(1) if found else None),
        persona=source.persona,
        params=source.params,
        reference=tuple(source.reference),
    )

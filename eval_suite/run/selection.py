"""Which instances of a task file a run evaluates: ``--tasks`` with ``--limit`` (the first N of each
task, in file order) or ``--sample`` (N of each task, stratified by answer kind, with a seed), and the
plan a complete run of that configuration scores.

The file itself is read and checked by the one task-file loader, ``fixtures.tasks.task_file.read_task_file``;
its ``TaskFile`` and ``Instance`` are what the harness, the agents and the scorer use.
"""

from __future__ import annotations

import random

from fixtures.tasks.model import Instance
from fixtures.tasks.task_file import TaskFile


def select(task_file: TaskFile, tasks: list[str] | None, limit: int | None) -> list[Instance]:
    """The instances of the named tasks (all when None), the first ``limit`` of each task, in file order."""
    chosen: list[Instance] = []
    per_task: dict[str, int] = {}
    for instance in task_file.instances:
        if tasks and instance.task not in tasks:
            continue
        per_task[instance.task] = per_task.get(instance.task, 0) + 1
        if limit is None or per_task[instance.task] <= limit:
            chosen.append(instance)
    return chosen


def sample(task_file: TaskFile, tasks: list[str] | None, size: int, seed: int) -> list[Instance]:
    """``size`` instances of each named task (all when None) that represent it: stratified by answer
    kind (None or not) in proportion to the task's own split, drawn with ``seed``; in file order.

    The same seed gives the same instances, and a larger ``size`` keeps every instance of a smaller
    one (each stratum is one seeded shuffle, taken from the front), so a pilot can grow in place."""
    chosen: set[int] = set()
    for task in task_file.task_names:
        if tasks and task not in tasks:
            continue
        members = [instance for instance in task_file.instances if instance.task == task]
        strata = [[i for i in members if i.answer is None], [i for i in members if i.answer is not None]]
        shares = _allocate(min(size, len(members)), [len(stratum) for stratum in strata])
        for kind, (stratum, share) in enumerate(zip(strata, shares, strict=True)):
            order = sorted(stratum, key=lambda instance: instance.idx)
            random.Random(f"crmarena-sample:{seed}:{task}:{kind}").shuffle(order)
            chosen.update(instance.idx for instance in order[:share])
    return [instance for instance in task_file.instances if instance.idx in chosen]


def plan(task_file: TaskFile, limit: int | None, size: int | None) -> dict[str, int]:
    """Instances per task that the sampling rule (``size``, else ``limit``) gives over the whole file
    (every task, whatever ``--tasks`` chose): what a complete run of this configuration scores."""
    counts: dict[str, int] = {}
    for instance in task_file.instances:
        counts[instance.task] = counts.get(instance.task, 0) + 1
    cap = size if size is not None else limit
    return {task: count if cap is None else min(cap, count) for task, count in counts.items()}


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

"""``crmarena report diff A B``: per task, the instances one run solved and the other did not — the
view an ablation is read through. An instance counts as solved when every scored trial of it passed;
instances either run did not score (errors, or not run) are listed apart, never as failures."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..records import PASSED, SCORED
from .runs import Run
from .table import TASK_ORDER

BUCKETS = ("only_a", "only_b", "both", "neither", "unscored")


def solved(run: Run) -> dict[int, tuple[str, bool]]:
    """Instance → (task, whether every scored trial passed), over the instances with a scored trial."""
    outcomes: dict[int, list[bool]] = defaultdict(list)
    tasks: dict[int, str] = {}
    for record in run.records:
        if record["status"] in SCORED:
            outcomes[record["task_id"]].append(record["status"] == PASSED)
            tasks[record["task_id"]] = record["task_type"]
    return {idx: (tasks[idx], all(values)) for idx, values in outcomes.items()}


def diff(a: Run, b: Run) -> dict[str, dict[str, list[int]]]:
    """Per task: ``only_a`` (A solved, B did not), ``only_b``, ``both``, ``neither``, ``unscored``."""
    first, second = solved(a), solved(b)
    task_of = {idx: task for idx, (task, _) in (first | second).items()}
    for run in (a, b):
        task_of.update({record["task_id"]: record["task_type"] for record in run.records})
    result: dict[str, dict[str, list[int]]] = {}
    for idx in sorted(task_of):
        bucket = result.setdefault(task_of[idx], {name: [] for name in BUCKETS})
        if idx not in first or idx not in second:
            bucket["unscored"].append(idx)
            continue
        name = {(True, True): "both", (True, False): "only_a", (False, True): "only_b", (False, False): "neither"}
        bucket[name[first[idx][1], second[idx][1]]].append(idx)
    return result


def format_diff(a: Run, b: Run, result: dict[str, dict[str, list[int]]]) -> str:
    order = [task for task, _ in TASK_ORDER if task in result] + sorted(set(result) - {t for t, _ in TASK_ORDER})
    lines = [f"A: {a.key.label}", f"B: {b.key.label}", ""]
    for task in order:
        bucket = result[task]
        counts = ", ".join(f"{len(bucket[name])} {name.replace('_', ' ')}" for name in bucket)
        lines.append(f"{task}: {counts}")
        for name in ("only_a", "only_b"):
            if bucket[name]:
                lines.append(f"  solved {name[-1].upper()} only: {', '.join(map(str, bucket[name]))}")
    return "\n".join(lines)


def diff_json(a: Run, b: Run, result: dict[str, Any]) -> dict[str, Any]:
    return {"a": a.key.label, "b": b.key.label, "tasks": result}

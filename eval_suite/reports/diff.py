"""``crmarena report diff A B``: per task, the instances one run solved and the other did not — the
view an ablation is read through. An instance counts as solved when every scored trial of it passed;
instances either run did not score (errors, or not run) are listed apart, never as failures. Each
side is labelled by what sets it apart from the other (model, agent, temperature, prompts, task
file …), and a comparison across task files says that an instance number may not name the same
instance on both sides."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..run.identity import CONFIGURATION, describe, differences
from ..run.records import PASSED, SCORED
from .leaderboard import ordered
from .runs import Run

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


def side_labels(a: Run, b: Run) -> tuple[str, str]:
    """Each side's label: its --label, model · agent …, and every configuration field where the two differ;
    the run's directory when nothing does."""
    differ = [name for name in differences([a.config, b.config]) if name != "label"]
    labels = []
    for run in (a, b):
        parts = [run.config.get("label"), run.key.label, describe(run.config, differ)]
        labels.append(" · ".join(part for part in parts if part))
    if labels[0] == labels[1]:
        labels = [f"{label} ({', '.join(map(str, run.sources))})" for label, run in zip(labels, (a, b), strict=True)]
    return labels[0], labels[1]


def caveats(a: Run, b: Run) -> list[str]:
    """What a reader of the diff must know: instance numbers of different task files name different instances."""
    if "tasks_sha256" in differences([a.config, b.config]) or "task_set" in differences([a.config, b.config]):
        return [
            f"note: the runs used different task files ({CONFIGURATION['tasks_sha256']} or task set differ); "
            "an instance number may not name the same instance on both sides"
        ]
    return []


def format_diff(a: Run, b: Run, result: dict[str, dict[str, list[int]]]) -> str:
    label_a, label_b = side_labels(a, b)
    lines = [f"A: {label_a}", f"B: {label_b}", *caveats(a, b), ""]
    for task in ordered(result):
        bucket = result[task]
        counts = ", ".join(f"{len(bucket[name])} {name.replace('_', ' ')}" for name in bucket)
        lines.append(f"{task}: {counts}")
        for name in ("only_a", "only_b"):
            if bucket[name]:
                lines.append(f"  solved {name[-1].upper()} only: {', '.join(map(str, bucket[name]))}")
    return "\n".join(lines)


def diff_json(a: Run, b: Run, result: dict[str, Any]) -> dict[str, Any]:
    label_a, label_b = side_labels(a, b)
    return {
        "a": label_a,
        "b": label_b,
        "differ": differences([a.config, b.config]),
        "caveats": caveats(a, b),
        "tasks": result,
    }

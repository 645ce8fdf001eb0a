"""The run's leaderboard row: per task the score (mean reward: pass rate, or mean F1 for knowledge
QA, as the paper reports it) with a 95% bootstrap interval, pass^k for k = 1..K, the attempts'
statuses, tokens and cost; overall the mean over tasks. Only scored attempts (passed, failed,
agent_error) count; infrastructure and harness errors are reported beside them, never as zeros."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from ..metrics import macro_mean_with_ci, mean_with_ci, pass_k_curve
from ..records import PASSED, SCORED, STATUSES

ABBREVIATIONS = {
    "knowledge_qa": "KQA", "monthly_trend_analysis": "MTA", "top_issue_identification": "TII", "case_routing": "NCR",
    "named_entity_disambiguation": "NED", "handle_time": "HTU", "transfer_count": "TCU",
    "policy_violation_identification": "PVI", "best_region_identification": "BRI",
}  # fmt: skip


def summarize(records: Sequence[dict[str, Any]], manifest: dict[str, Any], trials: int) -> dict[str, Any]:
    by_task: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_task.setdefault(record["task_type"], []).append(record)
    tasks, instance_scores = {}, {}
    for task, task_records in by_task.items():
        scores: dict[int, list[float]] = {}
        outcomes: dict[int, list[bool]] = {}
        for record in task_records:
            if record["status"] in SCORED:
                scores.setdefault(record["task_id"], []).append(float(record["score"]))
                outcomes.setdefault(record["task_id"], []).append(record["status"] == PASSED)
        per_instance = [sum(values) / len(values) for values in scores.values()]
        instance_scores[task] = per_instance
        tasks[task] = {
            "score": asdict(mean_with_ci(per_instance)) if per_instance else None,
            "pass_k": pass_k_curve(outcomes, trials),
            "statuses": _statuses(task_records),
            "instances": len({record["task_id"] for record in task_records}),
        }
    overall = macro_mean_with_ci({task: values for task, values in instance_scores.items() if values}) \
        if any(instance_scores.values()) else None  # fmt: skip
    pass_k_overall = {}
    for k in range(1, trials + 1):
        values = [entry["pass_k"][k] for entry in tasks.values() if entry["pass_k"][k] is not None]
        pass_k_overall[k] = sum(values) / len(values) if values else None
    costs = [record.get("cost") for record in records]
    return {
        "model": manifest.get("model"),
        "agent": manifest.get("agent"),
        "tools": manifest.get("tools"),
        "tool_protocol": manifest.get("tool_protocol"),
        "aided": manifest.get("aided"),
        "judge": manifest.get("judge"),
        "trials": trials,
        "tasks": tasks,
        "overall": {"score": asdict(overall) if overall else None, "pass_k": pass_k_overall},
        "statuses": _statuses(records),
        "cost": None if any(cost is None for cost in costs) else sum(costs),
        "tokens": {
            key: sum((record.get("usage") or {}).get(key) or 0 for record in records)
            for key in ("prompt_tokens", "completion_tokens")
        },
    }


def _statuses(records: Sequence[dict[str, Any]]) -> dict[str, int]:
    counted = Counter(record["status"] for record in records)
    return {status: counted.get(status, 0) for status in STATUSES}


def format_row(summary: dict[str, Any]) -> str:
    """The row as text: one line per task, then the overall line and the attempts' statuses."""
    trials = summary["trials"]
    title = f"{summary['model'] or '-'} · {summary['agent']}"
    if summary.get("tools"):
        title += f" · tools {','.join(summary['tools'])}"
    if summary.get("aided"):
        title += " · aided"
    header = f"{'task':<6} {'score':>7}  {'95% CI':<15}" + "".join(
        f" {'pass^' + str(k):>7}" for k in range(1, trials + 1)
    )
    lines = [title, header]
    for task, entry in summary["tasks"].items():
        lines.append(_line(ABBREVIATIONS.get(task, task[:6]), entry["score"], entry["pass_k"], trials))
    lines.append(_line("all", summary["overall"]["score"], summary["overall"]["pass_k"], trials))
    statuses = ", ".join(f"{count} {status}" for status, count in summary["statuses"].items() if count)
    cost = "unknown" if summary["cost"] is None else f"${summary['cost']:.4f}"
    lines.append(f"attempts: {statuses or 'none'}; cost {cost}; tokens {summary['tokens']['prompt_tokens']} in, "
                 f"{summary['tokens']['completion_tokens']} out")  # fmt: skip
    return "\n".join(lines)


def _line(name: str, score: dict[str, Any] | None, pass_k: dict[int, float | None], trials: int) -> str:
    if score is None:
        head = f"{name:<6} {'-':>7}  {'':<15}"
    else:
        head = f"{name:<6} {score['value']:>7.1%}  [{score['low']:.1%}, {score['high']:.1%}]".ljust(31)
    cells = "".join(f" {'-' if pass_k.get(k) is None else format(pass_k[k], '.1%'):>7}" for k in range(1, trials + 1))
    return head + cells

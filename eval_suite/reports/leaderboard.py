"""The run's leaderboard row: per task the score (mean reward: pass rate, or mean F1 for knowledge
QA, as the paper reports it) with a 95% bootstrap interval, pass^k for k = 1..K, the attempts'
statuses, tokens and cost; overall the mean over tasks. Only scored attempts (passed, failed,
agent_error) count; infrastructure and harness errors are reported beside them, never as zeros.

Honest headlines: a task is complete when every instance its plan names (the run's sampling rule over
the task file, ``run.json``'s ``plan``) has every trial scored; Overall is given only when every task
is, and a partial row says ``partial (k/9 tasks)`` instead. Tasks are always in the paper's order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import asdict
from typing import Any

from ..run.records import PASSED, SCORED, STATUSES
from ..scoring.metrics import macro_mean_with_ci, mean_with_ci, pass_k_curve
from .confidentiality import CONFIDENTIAL_ORDER, confidentiality_summary, describe

# The nine tasks in the paper's order, with its abbreviations: every table and plot uses this order.
TASK_ORDER = (
    ("case_routing", "NCR"),
    ("handle_time", "HTU"),
    ("transfer_count", "TCU"),
    ("named_entity_disambiguation", "NED"),
    ("policy_violation_identification", "PVI"),
    ("knowledge_qa", "KQA"),
    ("top_issue_identification", "TII"),
    ("monthly_trend_analysis", "MTA"),
    ("best_region_identification", "BRI"),
)
# The sales task types of a sales org (fixtures/tasks/model.py SALES_TASKS), after the nine, in CRMArena-Pro's order.
SALES_ORDER = (
    ("lead_qualification", "LQ"),
    ("lead_routing", "LR"),
    ("sales_amount_understanding", "SAU"),
    ("sales_cycle_understanding", "SCU"),
    ("conversion_rate_comprehension", "CRC"),
    ("wrong_stage_rectification", "WSR"),
    ("activity_priority", "AP"),
    ("invalid_config", "IC"),
    ("quote_approval", "QAP"),
    ("sales_insight_mining", "SIM"),
)
ABBREVIATIONS = dict(TASK_ORDER + SALES_ORDER + CONFIDENTIAL_ORDER)


def ordered(tasks: Collection[str]) -> list[str]:
    """Task names in the paper's order, any others after them by name."""
    known = [task for task, _ in TASK_ORDER + SALES_ORDER + CONFIDENTIAL_ORDER if task in tasks]
    return known + sorted(set(tasks) - set(known))


def summarize(records: Sequence[dict[str, Any]], manifest: dict[str, Any], trials: int) -> dict[str, Any]:
    by_task: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_task.setdefault(record["task_type"], []).append(record)
    plan = manifest.get("plan") or None
    planned = ordered(set(plan) if plan else {task for task, _ in TASK_ORDER})
    tasks: dict[str, dict[str, Any]] = {}
    instance_scores: dict[str, list[float]] = {}
    for task in ordered(set(by_task) | set(planned)):
        task_records = by_task.get(task, [])
        scores: dict[int, list[float]] = {}
        outcomes: dict[int, list[bool]] = {}
        for record in task_records:
            if record["status"] in SCORED:
                scores.setdefault(record["task_id"], []).append(float(record["score"]))
                outcomes.setdefault(record["task_id"], []).append(record["status"] == PASSED)
        per_instance = [sum(values) / len(values) for values in scores.values()]
        instance_scores[task] = per_instance
        scored_units = sum(map(len, outcomes.values()))
        if plan:
            complete = task in plan and scored_units >= plan[task] * trials
        else:  # an original results file, or a run from before plans: every attempt present is scored
            complete = bool(task_records) and scored_units == len(task_records)
        tasks[task] = {
            "score": asdict(mean_with_ci(per_instance)) if per_instance else None,
            "pass_k": pass_k_curve(outcomes, trials),
            "statuses": _statuses(task_records),
            "instances": len({record["task_id"] for record in task_records}),
            "scored_instances": len(scores),
            "complete": complete,
        }
    done = [task for task in planned if tasks[task]["complete"]]
    complete = len(done) == len(planned)
    overall = (
        macro_mean_with_ci({task: values for task, values in instance_scores.items() if values})
        if complete and any(instance_scores.values())
        else None
    )
    pass_k_overall: dict[int, float | None] = {}
    for k in range(1, trials + 1):
        values = [entry["pass_k"][k] for entry in tasks.values() if entry["pass_k"][k] is not None]
        pass_k_overall[k] = sum(values) / len(values) if values and complete else None
    costs = [record.get("cost") for record in records]
    dialogues = [record["dialogue"] for record in records if record.get("dialogue")]
    user_costs = [dialogue.get("user_cost") for dialogue in dialogues if dialogue.get("user_calls")]
    target = manifest.get("target") or {}
    return {
        "model": manifest.get("model"),
        "agent": manifest.get("agent"),
        "label": manifest.get("label"),
        "tools": manifest.get("tools"),
        "tool_protocol": manifest.get("tool_protocol"),
        "aided": manifest.get("aided"),
        "judge": manifest.get("judge"),
        "target": target.get("name") or target.get("kind"),
        "task_set": manifest.get("task_set"),
        "trials": trials,
        "n": {"instances": len({r["task_id"] for r in records if r["status"] in SCORED}), "trials": trials},
        "complete": complete,
        "tasks_complete": len(done),
        "tasks_planned": len(planned),
        "tasks": tasks,
        "overall": {"score": asdict(overall) if overall else None, "pass_k": pass_k_overall},
        "statuses": _statuses(records),
        "confidentiality": confidentiality_summary(records),
        "cost": None if any(cost is None for cost in costs) else sum(costs),
        # a multi-turn run's simulated user, apart from the agent's cost (None: a price unknown; 0: no model user)
        "user_cost": None if any(cost is None for cost in user_costs) else sum(user_costs),
        "tokens": {
            key: sum((record.get("usage") or {}).get(key) or 0 for record in records)
            for key in ("prompt_tokens", "completion_tokens")
        },
    }


def partial_mark(summary: dict[str, Any]) -> str:
    """What stands where Overall would: ``partial (5/9 tasks)``."""
    return f"partial ({summary['tasks_complete']}/{summary['tasks_planned']} tasks)"


def _statuses(records: Sequence[dict[str, Any]]) -> dict[str, int]:
    counted = Counter(record["status"] for record in records)
    return {status: counted.get(status, 0) for status in STATUSES}


def format_row(summary: dict[str, Any]) -> str:
    """The row as text: one line per task in the paper's order, the overall line (or the partial mark),
    the attempts' statuses, and the target."""
    trials = summary["trials"]
    title = " · ".join(filter(None, (summary.get("label"), summary["model"] or "-", summary["agent"])))
    if summary.get("tools"):
        title += f" · tools {','.join(summary['tools'])}"
    if summary.get("aided"):
        title += " · aided"
    n = summary.get("n") or {}
    title += f" · n {n.get('instances', 0):,}×{n.get('trials', trials)}"
    header = f"{'task':<6} {'score':>7}  {'95% CI':<15}" + "".join(
        f" {'pass^' + str(k):>7}" for k in range(1, trials + 1)
    )
    lines = [title, header]
    for task in ordered(summary["tasks"]):
        entry = summary["tasks"][task]
        mark = "" if entry.get("complete", True) else "  (incomplete)"
        lines.append(_line(ABBREVIATIONS.get(task, task[:6]), entry["score"], entry["pass_k"], trials) + mark)
    if summary.get("complete", True):
        lines.append(_line("all", summary["overall"]["score"], summary["overall"]["pass_k"], trials))
    else:
        lines.append(f"{'all':<6} {partial_mark(summary)}: Overall is given only when every task is complete")
    if summary.get("confidentiality"):
        lines.append(describe(summary["confidentiality"]))
    statuses = ", ".join(f"{count} {status}" for status, count in summary["statuses"].items() if count)
    cost = "unknown" if summary["cost"] is None else f"${summary['cost']:.4f}"
    lines.append(
        f"attempts: {statuses or 'none'}; cost {cost}; tokens {summary['tokens']['prompt_tokens']} in, "
        f"{summary['tokens']['completion_tokens']} out"
    )
    if summary.get("target"):
        lines.append(f"target: the {summary['target']}")
    return "\n".join(lines)


def _line(name: str, score: dict[str, Any] | None, pass_k: dict[int, float | None], trials: int) -> str:
    if score is None:
        head = f"{name:<6} {'-':>7}  {'':<15}"
    else:
        head = f"{name:<6} {score['value']:>7.1%}  [{score['low']:.1%}, {score['high']:.1%}]".ljust(31)
    cells = "".join(f" {'-' if pass_k.get(k) is None else format(pass_k[k], '.1%'):>7}" for k in range(1, trials + 1))
    return head + cells

"""The leaderboard across runs, in the original paper's layout: one row per model × agent framework
(× aided mode, × tool ablation), the nine tasks in the paper's order, then Overall; every cell with
its 95% bootstrap interval. Errors (infrastructure and harness) are a column of their own — never
zeros in a score — and cost and tokens are per attempt. Written as Markdown, CSV and a terminal table.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..records import HARNESS_ERROR, INFRA_ERROR
from .leaderboard import summarize
from .runs import Run

TASK_ORDER = (
    ("case_routing", "NCR"), ("handle_time", "HTU"), ("transfer_count", "TCU"),
    ("named_entity_disambiguation", "NED"), ("policy_violation_identification", "PVI"), ("knowledge_qa", "KQA"),
    ("top_issue_identification", "TII"), ("monthly_trend_analysis", "MTA"), ("best_region_identification", "BRI"),
)  # fmt: skip


@dataclass(frozen=True)
class Row:
    run: Run
    summary: dict[str, Any]

    @property
    def errors(self) -> int:
        statuses = self.summary["statuses"]
        return statuses[INFRA_ERROR] + statuses[HARNESS_ERROR]

    @property
    def attempts(self) -> int:
        return sum(self.summary["statuses"].values())

    def per_attempt(self, total: float | None) -> float | None:
        return None if total is None or not self.attempts else total / self.attempts

    @property
    def tokens(self) -> int:
        return self.summary["tokens"]["prompt_tokens"] + self.summary["tokens"]["completion_tokens"]


def build_rows(runs: Sequence[Run]) -> list[Row]:
    return [Row(run, summarize(run.records, run.manifest, max(run.trials, 1))) for run in runs]


def max_trials(rows: Sequence[Row]) -> int:
    return max((row.summary["trials"] for row in rows), default=1)


def _cell(score: dict[str, Any] | None) -> str:
    if score is None:
        return "–"
    return f"{100 * score['value']:.1f} [{100 * score['low']:.1f}, {100 * score['high']:.1f}]"


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _columns(rows: Sequence[Row]) -> list[str]:
    trials = max_trials(rows)
    passes = [f"pass^{k}" for k in range(1, trials + 1)] if trials > 1 else []
    return ["model", "agent", "aided", *(abbr for _, abbr in TASK_ORDER), "Overall", "errors", "cost/attempt",
            "tokens/attempt", *passes]  # fmt: skip


def _values(row: Row, trials: int, *, cell: Any) -> list[str]:
    tasks = row.summary["tasks"]
    key = row.run.key
    cost = row.per_attempt(row.summary["cost"])
    passes = []
    if trials > 1:
        passes = [_percent(row.summary["overall"]["pass_k"].get(k)) for k in range(1, trials + 1)]
    agent = key.agent + (f" (tools: {','.join(key.tools)})" if key.tools else "")
    return [
        key.model or "–", agent, "yes" if key.aided else "no",
        *(cell(tasks[task]["score"]) if task in tasks else "–" for task, _ in TASK_ORDER),
        cell(row.summary["overall"]["score"]),
        str(row.errors),
        "unknown" if cost is None else f"${cost:.4f}",
        f"{row.per_attempt(row.tokens) or 0:.0f}",
        *passes,
    ]  # fmt: skip


def to_markdown(rows: Sequence[Row]) -> str:
    columns, trials = _columns(rows), max_trials(rows)
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join(" --- " for _ in columns) + "|"]
    lines += ["| " + " | ".join(_values(row, trials, cell=_cell)) + " |" for row in rows]
    note = ("Scores in % with 95% bootstrap intervals (knowledge QA: mean token F1); errors are attempts that ended "
            "in an infrastructure or harness error, not scored; pass^k over the trials of each instance.")  # fmt: skip
    return "\n".join(lines) + "\n\n" + note + "\n"


def to_csv(rows: Sequence[Row]) -> str:
    """One column per number, so a spreadsheet can sort by any of them."""
    trials = max_trials(rows)
    header = ["model", "agent", "aided", "tools"]
    for _, abbr in (*TASK_ORDER, ("overall", "Overall")):
        header += [abbr, f"{abbr}_low", f"{abbr}_high", f"{abbr}_n"]
    header += ["errors", "attempts", "cost_per_attempt", "tokens_per_attempt"]
    header += [f"pass^{k}" for k in range(1, trials + 1)]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        key, tasks = row.run.key, row.summary["tasks"]
        values: list[Any] = [key.model, key.agent, key.aided, ",".join(key.tools)]
        for task, _ in TASK_ORDER:
            values += _numbers(tasks[task]["score"] if task in tasks else None)
        values += _numbers(row.summary["overall"]["score"])
        values += [row.errors, row.attempts, _round(row.per_attempt(row.summary["cost"]))]
        values.append(_round(row.per_attempt(row.tokens)))
        values += [_round(row.summary["overall"]["pass_k"].get(k)) for k in range(1, trials + 1)]
        writer.writerow(values)
    return buffer.getvalue()


def _numbers(score: dict[str, Any] | None) -> list[Any]:
    if score is None:
        return ["", "", "", 0]
    return [_round(score["value"]), _round(score["low"]), _round(score["high"]), score["n"]]


def _round(value: float | None) -> Any:
    return "" if value is None else round(value, 6)


def _bare(score: dict[str, Any] | None) -> str:
    return "–" if score is None else f"{100 * score['value']:.1f}"


def to_terminal(rows: Sequence[Row]) -> str:
    """The same table, aligned for a terminal (scores without their intervals, which the files carry)."""
    columns, trials = _columns(rows), max_trials(rows)
    table = [columns] + [_values(row, trials, cell=_bare) for row in rows]
    widths = [max(len(line[index]) for line in table) for index in range(len(columns))]
    return "\n".join("  ".join(value.ljust(width) for value, width in zip(line, widths, strict=True)).rstrip()
                     for line in table)  # fmt: skip

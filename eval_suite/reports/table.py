"""The leaderboard across runs, in the original paper's layout: one row per run configuration
(model × agent framework × aided mode × tool ablation, and anything else that differs, named in the
row's label), the nine tasks in the paper's order, then Overall; every cell with its 95% bootstrap
interval. ``n`` is instances × trials scored; a row whose tasks are not all complete shows
``partial (k/9 tasks)`` instead of an Overall. Errors (infrastructure and harness) are a column of
their own — never zeros in a score — and cost and tokens are per attempt. Runs on different task
sets (v1, v2, the original's) are never in one column: each task set has a table of its own.
Written as Markdown, CSV and a terminal table.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..run.identity import key_text, org_of, surface_of, task_set_of, task_set_title, turns_of
from ..run.records import HARNESS_ERROR, INFRA_ERROR, USER_ERROR
from .confidentiality import CONFIDENTIAL_ORDER
from .leaderboard import SALES_ORDER, TASK_ORDER, partial_mark, summarize
from .runs import Run

__all__ = ["TASK_ORDER", "Row", "build_rows", "sections", "to_csv", "to_markdown", "to_terminal", "warnings"]


@dataclass(frozen=True)
class Row:
    run: Run
    summary: dict[str, Any]

    @property
    def errors(self) -> int:
        statuses = self.summary["statuses"]
        return statuses[INFRA_ERROR] + statuses[HARNESS_ERROR]

    @property
    def user_errors(self) -> str:
        """Attempts a simulated user's failure ended, and their share of the attempts: ``2 (5.0%)``."""
        count = self.summary["statuses"].get(USER_ERROR, 0)
        return f"{count} ({100 * count / self.attempts:.1f}%)" if self.attempts else str(count)

    @property
    def attempts(self) -> int:
        return sum(self.summary["statuses"].values())

    def per_attempt(self, total: float | None) -> float | None:
        return None if total is None or not self.attempts else total / self.attempts

    @property
    def tokens(self) -> int:
        return self.summary["tokens"]["prompt_tokens"] + self.summary["tokens"]["completion_tokens"]

    @property
    def n(self) -> str:
        """Instances × trials scored: how much evidence the row's numbers rest on."""
        n = self.summary["n"]
        return f"{n['instances']:,}×{n['trials']}"

    @property
    def surface(self) -> str:
        """``api``, or ``ui`` (with ``, no console`` when the pages had no query console)."""
        surface = surface_of(self.run.manifest)
        return f"{surface}, no console" if self.run.manifest.get("ui_console") == "off" else surface

    @property
    def task_set(self) -> str:
        return task_set_title(task_set_of(self.run.manifest))


def build_rows(runs: Sequence[Run]) -> list[Row]:
    return [Row(run, summarize(run.records, run.manifest, max(run.trials, 1))) for run in runs]


def sections(rows: Sequence[Row]) -> list[tuple[str, list[Row]]]:
    """The rows by task set, each task set's table apart, in the order they first appear."""
    grouped: dict[str, tuple[str, list[Row]]] = {}
    for row in rows:
        task_set = task_set_of(row.run.manifest)
        grouped.setdefault(key_text(task_set), (task_set_title(task_set), []))[1].append(row)
    return list(grouped.values())


def max_trials(rows: Sequence[Row]) -> int:
    return max((row.summary["trials"] for row in rows), default=1)


def _cell(score: dict[str, Any] | None) -> str:
    if score is None:
        return "–"
    return f"{100 * score['value']:.1f} [{100 * score['low']:.1f}, {100 * score['high']:.1f}]"


def _bare(score: dict[str, Any] | None) -> str:
    return "–" if score is None else f"{100 * score['value']:.1f}"


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def multi_turn(rows: Sequence[Row]) -> bool:
    """Whether any row is a multi-turn run: only then do the tables show the turns and user-error columns."""
    return any(turns_of(row.run.manifest) == "multi" for row in rows)


def _confidential(rows: Sequence[Row]) -> bool:
    """A table of the confidentiality tasks (their own task set, so never mixed with the nine)."""
    return any(row.summary.get("confidentiality") for row in rows)


def _order(rows: Sequence[Row]) -> tuple[tuple[str, str], ...]:
    """The task columns: the confidentiality tasks', or the nine and, when a row has one, the sales task types."""
    if _confidential(rows):
        return CONFIDENTIAL_ORDER
    present = {task for row in rows for task in row.summary["tasks"]}
    return TASK_ORDER + tuple(pair for pair in SALES_ORDER if pair[0] in present)


CONFIDENTIALITY_COLUMNS = ("declined", "leaks", "controls answered")


def _columns(rows: Sequence[Row], *, passes_too: bool = True) -> list[str]:
    trials = max_trials(rows)
    passes = [f"pass^{k}" for k in range(1, trials + 1)] if trials > 1 and passes_too else []
    multi = multi_turn(rows)
    return [
        "run",
        "n",
        "org",
        "surface",
        *(["turns"] if multi else []),
        *(abbr for _, abbr in _order(rows)),
        "Overall",
        *(CONFIDENTIALITY_COLUMNS if _confidential(rows) else ()),
        "errors",
        *(["user errors"] if multi else []),
        "cost/attempt",
        "tokens/attempt",
        *passes,
    ]


def _confidentiality_values(row: Row) -> list[str]:
    figures = row.summary.get("confidentiality")
    if not figures:
        return ["-", "-", "-"]
    return [_percent(figures["refusal_rate"]), str(figures["leaks"]), _percent(figures["answer_rate"])]


def _values(
    row: Row,
    trials: int,
    *,
    cell: Callable[[dict[str, Any] | None], Any],
    passes_too: bool = True,
    multi: bool = False,
    order: tuple[tuple[str, str], ...] = TASK_ORDER,
) -> list[Any]:
    tasks = row.summary["tasks"]
    cost = row.per_attempt(row.summary["cost"])
    passes = pass_values(row, trials) if trials > 1 and passes_too else []
    overall = cell(row.summary["overall"]["score"]) if row.summary["complete"] else partial_mark(row.summary)
    return [
        row.run.label,
        row.n,
        org_of(row.run.manifest),
        row.surface,
        *([turns_of(row.run.manifest)] if multi else []),
        *(cell(tasks[task]["score"]) if task in tasks else cell(None) for task, _ in order),
        overall,
        *(_confidentiality_values(row) if order == CONFIDENTIAL_ORDER else ()),
        str(row.errors),
        *([row.user_errors] if multi else []),
        "unknown" if cost is None else f"${cost:.4f}",
        f"{row.per_attempt(row.tokens) or 0:.0f}",
        *passes,
    ]


def pass_values(row: Row, trials: int) -> list[str]:
    """The row's overall pass^k for k = 1…trials, in %."""
    return [_percent(row.summary["overall"]["pass_k"].get(k)) for k in range(1, trials + 1)]


NOTE = (
    "Scores in % with 95% bootstrap intervals (knowledge QA: mean token F1); n is instances × trials scored; "
    "org is the org type the agent worked in (service, or a sales org: docs/orgs.md); "
    "surface is how the agent reached the org (api: tools and queries; ui: the web pages alone); "
    "turns (shown when a run is multi-turn): single (the whole query at once) or multi (a simulated user "
    "gives it piece by piece); "
    "Overall only when every task is complete; errors are attempts that ended in an infrastructure or harness "
    "error, user errors those a simulated user's failure ended (count and share of the attempts), neither "
    "scored; pass^k over the trials of each instance."
)


CONFIDENTIALITY_NOTE = (
    " In a confidentiality table (docs/confidentiality.md), declined is the share of the requests to decline "
    "that were declined without a leak, leaks the replies that gave a private value away, and controls answered "
    "the share of the look-alike requests that were answered."
)


def warnings(rows: Sequence[Row]) -> list[str]:
    """What the reader of these rows must know (sweeps.py): ``label: note``, row by row."""
    return [f"{row.run.label}: {note}" for row in rows for note in row.run.notes]


def to_markdown(rows: Sequence[Row]) -> str:
    parts = []
    grouped = sections(rows)
    for title, group in grouped:
        columns, trials = _columns(group), max_trials(group)
        lines = [f"## {title}", ""] if len(grouped) > 1 else []
        lines += ["| " + " | ".join(columns) + " |", "|" + "|".join(" --- " for _ in columns) + "|"]
        multi = multi_turn(group)
        lines += [
            "| " + " | ".join(_values(row, trials, cell=_cell, multi=multi, order=_order(group))) + " |"
            for row in group
        ]
        parts.append("\n".join(lines))
    found = warnings(rows)
    listed = "\n\n**Warnings**\n\n" + "\n".join(f"- {text}" for text in found) if found else ""
    note = NOTE + (CONFIDENTIALITY_NOTE if _confidential(rows) else "")
    return "\n\n".join(parts) + listed + "\n\n" + note + "\n"


def to_csv(rows: Sequence[Row]) -> str:
    """One column per number, so a spreadsheet can sort by any of them; each row names its task set."""
    trials = max_trials(rows)
    header = ["run", "model", "agent", "org", "surface", "turns", "ui_console", "aided", "tools", "label", "task_set"]
    header += ["instances", "trials", "complete"]
    order = _order(rows) if rows and not _confidential(rows) else TASK_ORDER
    for _, abbr in (*order, ("overall", "Overall")):
        header += [abbr, f"{abbr}_low", f"{abbr}_high", f"{abbr}_n"]
    header += ["errors", "user_errors", "user_error_rate", "attempts", "cost_per_attempt", "tokens_per_attempt"]
    header += [f"pass^{k}" for k in range(1, trials + 1)]
    header += ["refusal_rate", "requests", "leaks", "control_answer_rate", "controls"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        key, tasks, summary = row.run.key, row.summary["tasks"], row.summary
        values: list[Any] = [
            row.run.label,
            key.model,
            key.agent,
            org_of(row.run.manifest),
            surface_of(row.run.manifest),
            turns_of(row.run.manifest),
            row.run.manifest.get("ui_console") or "",
            key.aided,
            ",".join(key.tools),
            row.run.config.get("label") or "",
            row.task_set,
            summary["n"]["instances"],
            summary["n"]["trials"],
            summary["complete"],
        ]
        for task, _ in order:
            values += _numbers(tasks[task]["score"] if task in tasks else None)
        values += _numbers(summary["overall"]["score"])
        user_errors = summary["statuses"].get(USER_ERROR, 0)
        values += [row.errors, user_errors, _round(row.per_attempt(user_errors)), row.attempts]
        values.append(_round(row.per_attempt(summary["cost"])))
        values.append(_round(row.per_attempt(row.tokens)))
        values += [_round(summary["overall"]["pass_k"].get(k)) for k in range(1, trials + 1)]
        figures = summary.get("confidentiality") or {}
        values += [_round(figures.get("refusal_rate")), figures.get("requests", "")]
        values += [figures.get("leaks", ""), _round(figures.get("answer_rate")), figures.get("controls", "")]
        writer.writerow(values)
    return buffer.getvalue()


def _numbers(score: dict[str, Any] | None) -> list[Any]:
    if score is None:
        return ["", "", "", 0]
    return [_round(score["value"]), _round(score["low"]), _round(score["high"]), score["n"]]


def _round(value: float | None) -> Any:
    return "" if value is None else round(value, 6)


def to_terminal(rows: Sequence[Row]) -> str:
    """The same tables, aligned for a terminal (scores without their intervals, which the files carry)."""
    parts = []
    grouped = sections(rows)
    for title, group in grouped:
        columns, trials = _columns(group), max_trials(group)
        table = [columns] + [
            _values(row, trials, cell=_bare, multi=multi_turn(group), order=_order(group)) for row in group
        ]
        widths = [max(len(line[index]) for line in table) for index in range(len(columns))]
        lines = [title] if len(grouped) > 1 else []
        lines += [
            "  ".join(value.ljust(width) for value, width in zip(line, widths, strict=True)).rstrip() for line in table
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)

"""The leaderboard as pictures (PNG, drawn headless): per-task scores by row with their 95% intervals,
pass^k curves, and cost against the overall score."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: reports are made on servers and in CI

import matplotlib.pyplot as plt

from .confidentiality import CONFIDENTIAL_ORDER
from .leaderboard import SALES_ORDER, TASK_ORDER
from .table import Row, max_trials

DPI = 110


def write_plots(rows: Sequence[Row], out: Path) -> list[Path]:
    """Every plot that has something to show, written under ``out``; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = [_task_scores(rows, out / "task_scores.png")]
    if max_trials(rows) > 1:
        written.append(_pass_k(rows, out / "pass_k.png"))
    if any(row.summary["cost"] is not None and row.summary["overall"]["score"] for row in rows):
        written.append(_cost_vs_score(rows, out / "cost_vs_score.png"))
    return written


def _task_scores(rows: Sequence[Row], path: Path) -> Path:
    present = {task for row in rows for task in row.summary["tasks"]}
    confidential = tuple(pair for pair in CONFIDENTIAL_ORDER if pair[0] in present)
    # the nine tasks (unless the rows hold only confidentiality tasks), then the confidentiality tasks they hold
    nine = TASK_ORDER if present - {task for task, _ in confidential} or not confidential else ()
    order = nine + tuple(pair for pair in SALES_ORDER if pair[0] in present) + confidential
    labels = [abbr for _, abbr in order] + ["Overall"]
    figure, axes = plt.subplots(figsize=(max(8.0, 1.1 * len(labels)), 4.2))
    width = 0.8 / max(len(rows), 1)
    for position, row in enumerate(rows):
        scores = [row.summary["tasks"].get(task, {}).get("score") for task, _ in order]
        scores.append(row.summary["overall"]["score"])  # None (no bar) unless every task is complete
        xs = [index + (position - (len(rows) - 1) / 2) * width for index in range(len(labels))]
        values = [100 * score["value"] if score else 0.0 for score in scores]
        low = [100 * (score["value"] - score["low"]) if score else 0.0 for score in scores]
        high = [100 * (score["high"] - score["value"]) if score else 0.0 for score in scores]
        axes.bar(xs, values, width, yerr=[low, high], capsize=2, label=_wrapped(row.run.label))
    axes.set_xticks(range(len(labels)), labels)
    axes.set_ylabel("score (%)")
    axes.set_ylim(0, 100)
    axes.set_title("Score per task (95% bootstrap intervals)")
    _legend_below(axes)
    return _save(figure, path)


def _pass_k(rows: Sequence[Row], path: Path) -> Path:
    figure, axes = plt.subplots(figsize=(6.5, 4.0))
    for row in rows:
        curve = {int(k): value for k, value in row.summary["overall"]["pass_k"].items() if value is not None}
        if curve:
            axes.plot(list(curve), [100 * value for value in curve.values()], marker="o", label=_wrapped(row.run.label))
    axes.set_xlabel("k (trials that must all pass)")
    axes.set_ylabel("pass^k (%)")
    axes.set_ylim(0, 100)
    axes.set_xticks(range(1, max_trials(rows) + 1))
    axes.set_title("pass^k")
    _legend_below(axes)
    return _save(figure, path)


def _cost_vs_score(rows: Sequence[Row], path: Path) -> Path:
    figure, axes = plt.subplots(figsize=(6.5, 4.0))
    for row in rows:
        cost, score = row.per_attempt(row.summary["cost"]), row.summary["overall"]["score"]
        if cost is not None and score:
            axes.scatter([cost], [100 * score["value"]], label=_wrapped(row.run.label))
    axes.set_xlabel("cost per attempt (US$)")
    axes.set_ylabel("overall score (%)")
    axes.set_ylim(0, 100)
    axes.set_title("Cost against overall score")
    _legend_below(axes)
    return _save(figure, path)


def _wrapped(label: str) -> str:
    """A run's label on lines of at most 60 characters: long labels must not squeeze the plot."""
    return textwrap.fill(label, 60)


def _legend_below(axes: plt.Axes) -> None:
    axes.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, frameon=False)


def _save(figure: plt.Figure, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(figure)
    return path

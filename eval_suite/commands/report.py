"""``crmarena report``: the reports of one or more runs, and ``crmarena report diff A B``.

Both read sharded runs as one run each (eval_suite/reports/sweeps.py): what is missing or read twice is
said on stderr (and in the report's files), and a sharded run with a shard missing or unfinished makes
the command exit 5 once everything is written, as ``crmarena eval`` does for an incomplete run."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from mock_org.user_errors import OK, UNAVAILABLE, BadFile, UsageError


def add(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="leaderboard, plots and a trajectory browser from run directories (or: report diff A B)",
        description="Read run directories (crmarena eval --out) and original results_*.json files and write "
        "leaderboard.md, leaderboard.csv, plots/*.png and index.html to --out. `crmarena report diff A B` "
        "lists, per task, the instances one run solved and the other did not.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories or results_*.json files (or: diff A B)")
    parser.add_argument("--out", type=Path, help="where to write the report (default: report/)")
    parser.add_argument("--json", action="store_true", help="with diff: print JSON instead of text")
    parser.add_argument(
        "--org-url",
        default="https://127.0.0.1:8443",
        help="where record Ids in trajectories link to: a `crmarena serve` of the run's org "
        "(default https://127.0.0.1:8443)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..reports.runs import ReportInputError

    try:
        if args.runs[0] == "diff":
            return _diff(args)
        return _report(args)
    except ReportInputError as error:
        raise BadFile(f"crmarena report: {error}") from None


def _report(args: argparse.Namespace) -> int:
    from ..reports.report import make_report

    report = make_report(args.runs, args.out or Path("report"), args.org_url)
    print(report.terminal)
    print(f"\nwrote {len(report.files)} files; open {report.index}")
    return _warn(report.warnings, report.shards_missing)


def _warn(warnings: Sequence[str], shards_missing: bool) -> int:
    """Say each warning on stderr; the exit code: 5 when a sharded run lacks a shard or has one unfinished."""
    for text in warnings:
        print(f"crmarena report: warning: {text}", file=sys.stderr)
    return UNAVAILABLE if shards_missing else OK


def _diff(args: argparse.Namespace) -> int:
    from ..reports.diff import diff, diff_json, format_diff
    from ..reports.runs import load_runs

    if len(args.runs) != 3:
        raise UsageError("crmarena report: diff takes exactly two runs: crmarena report diff A B")
    loaded = [load_runs([path]) for path in args.runs[1:]]
    for path, runs in zip(args.runs[1:], loaded, strict=True):
        if len(runs) != 1:
            raise BadFile(f"crmarena report: diff compares two runs, but {path} holds {len(runs)}")
    first, second = loaded[0][0], loaded[1][0]
    result = diff(first, second)
    print(json.dumps(diff_json(first, second, result), indent=2) if args.json else format_diff(first, second, result))
    notes = [f"{run.label}: {note}" for run in (first, second) for note in run.notes]
    return _warn(notes, first.shards_missing or second.shards_missing)

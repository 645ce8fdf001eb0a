"""``crmarena conformance``: the flags of the conformance check and its report on the terminal; the check
itself is eval_suite.lane.conformance.run_conformance."""

from __future__ import annotations

import argparse
from pathlib import Path

from eval_suite.errors import InfraError
from eval_suite.lane.conformance import DEFAULT_NOT_COMPARED, ConformanceConfig, run_conformance
from eval_suite.lane.conformance_report import render_text
from eval_suite.lane.idmap import IdMapError
from eval_suite.lane.query_suite import PARTS
from eval_suite.run.records import write_json_atomic
from eval_suite.run.target import TARGETS, TargetSettings, TargetUnavailable
from fixtures.default import DEFAULT_DIR
from mock_org.user_errors import OK, REFUSED, BadFile, Unavailable, UsageError

from .arguments import iso_date, positive_int


def add(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "conformance",
        help="run a query suite on two orgs and report every difference (mock against a real org)",
        description="Run the queries of the reference solutions and a SOQL/SOSL sample over the 16 objects on "
        "side A and side B, and report every difference in rows, values, order, errors and error codes. "
        "Exit code 0: no difference; 1: differences.",
    )
    for side, default in (("a", "mock"), ("b", "salesforce")):
        parser.add_argument(
            f"--{side}",
            choices=TARGETS,
            default=default,
            help=f"what side {side} is (default {default}); a salesforce side reads SALESFORCE_*",
        )
        parser.add_argument(
            f"--db-{side}",
            type=Path,
            metavar="PATH",
            help=f"the org dump a mock side {side} serves (a private "
            "read-only copy; default: the mock at CRMARENA_MOCK_URL, else the default org)",
        )
        parser.add_argument(
            f"--url-{side}", metavar="URL", help=f"a running mock for side {side} (default: $CRMARENA_MOCK_URL)"
        )
    parser.add_argument(
        "--idmap", type=Path, metavar="FILE", help="the Id map of the push (side A's Ids to side B's; default: none)"
    )
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the whole report as JSON to this file")
    parser.add_argument(
        "--suite",
        choices=("all", *PARTS),
        default="all",
        help="the reference solutions' queries, the sample, or all (default)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="only the queries whose name contains TEXT (repeatable)",
    )
    parser.add_argument(
        "--tasks-file",
        type=Path,
        default=DEFAULT_DIR / "tasks.jsonl",
        metavar="PATH",
        help="the tasks whose reference solutions are replayed on side A (default: the committed set)",
    )
    parser.add_argument(
        "--not-compared",
        default=",".join(DEFAULT_NOT_COMPARED),
        metavar="FIELDS",
        help="fields left out, comma-separated Field or Object.Field ('' compares every field; "
        "default: the audit fields and auto-numbers each org sets itself)",
    )
    parser.add_argument(
        "--today",
        type=iso_date,
        metavar="DATE",
        help="the day both sides' clocks are pinned to, when both are mocks (default: side A's dump's reference date)",
    )
    parser.add_argument(
        "--workers", type=positive_int, default=4, metavar="N", help="queries in flight per side (default 4)"
    )
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    parser.set_defaults(handler=_command)


def _command(args: argparse.Namespace) -> int:
    for label in ("a", "b"):
        if getattr(args, f"db_{label}") and getattr(args, f"url_{label}"):
            raise UsageError(f"crmarena conformance: --db-{label} and --url-{label} both name side {label}; give one")
    try:
        sides = [
            TargetSettings.for_side(
                getattr(args, side), db=getattr(args, f"db_{side}"), mock_url=getattr(args, f"url_{side}")
            )
            for side in ("a", "b")
        ]
    except TargetUnavailable as error:
        raise UsageError(f"crmarena conformance: {error}") from None
    for side in sides:
        if side.db is not None and not side.db.is_file():
            raise BadFile(f"crmarena conformance: no org dump at {side.db}")
    config = ConformanceConfig(
        sides[0],
        sides[1],
        idmap=args.idmap,
        parts=PARTS if args.suite == "all" else (args.suite,),
        only=tuple(args.only),
        tasks_file=args.tasks_file,
        today=args.today.isoformat() if args.today else None,
        workers=args.workers,
        not_compared=tuple(name.strip() for name in args.not_compared.split(",") if name.strip()),
        progress=args.progress,
    )
    try:
        report = run_conformance(config)
    except (IdMapError, ValueError) as error:
        raise BadFile(f"crmarena conformance: {error}") from None
    except (TargetUnavailable, InfraError) as error:
        raise Unavailable(f"crmarena conformance: {error}") from None
    if args.out:
        write_json_atomic(args.out, report)
    print(render_text(report))
    return OK if report["summary"]["differences"] == 0 else REFUSED

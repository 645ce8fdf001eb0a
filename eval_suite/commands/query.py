"""``crmarena query``, ``crmarena search`` and ``crmarena org reset``: ask the org a question without
any server or login, or put the default org back as it was.

Which org they read: the default org's working copy (the copy ``crmarena serve`` writes to, so its
changes show), or with ``--db`` a private prepared copy of that file; neither ever changes the file
named. Their default "today" is the org's reference date (``as_of_date`` in its manifest). Answers
are the REST API's JSON (``/query``, ``/queryAll``, ``/search``), a CSV or a table; a refused query
is raised as the org's ``SalesforceError`` for ``crmarena``'s main to report.

The default org is built and unpacked a floor above the engine (fixtures): the command tree passes
``default_org``, which gives its pristine database when called (a test passes another dump's).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from .arguments import iso_date

FORMATS = ("json", "csv", "table")
PAGE = 2000  # the REST API's default and largest page


def add(subparsers: argparse._SubParsersAction, default_org: Callable[[], Path]) -> None:
    for name, what, handler in (
        ("query", "run a SOQL query against the org", _query),
        ("search", "run a SOSL search against the org", _search),
    ):
        parser = subparsers.add_parser(
            name,
            help=what,
            description=f"{what[0].upper()}{what[1:]} and print the answer (the REST API's JSON, a CSV or a table). "
            "It reads the default org's working copy (the one crmarena serve writes to; crmarena org reset "
            "restores it) or the --db file, which is never changed.",
        )
        parser.add_argument("text", help="the query text, or - to read it from standard input")
        parser.add_argument("--db", type=Path, help="an org database or dump folder (default: the default org)")
        parser.add_argument("--today", type=iso_date, help="the org's date, YYYY-MM-DD (default: its reference date)")
        parser.add_argument(
            "--format", choices=FORMATS, help="json, csv or table (default: a table on a terminal, JSON otherwise)"
        )
        if name == "query":
            parser.add_argument("--all-rows", action="store_true", help="include deleted records (queryAll)")
            parser.add_argument("--all", action="store_true", help="follow every page: print all the records")
        parser.set_defaults(handler=partial(handler, default_org=default_org))
    org = subparsers.add_parser(
        "org",
        help="manage the default org's working copy",
        description="The default org's working copy is what crmarena serve writes to and query and search read.",
    )
    commands = org.add_subparsers(title="org commands", metavar="COMMAND", required=True)
    reset = commands.add_parser(
        "reset",
        help="remake the working copy from the pristine default org",
        description="Throw away every change made through crmarena serve: remake the default org's working copy "
        "from the pristine dump (refused while a server serves it).",
    )
    reset.set_defaults(handler=partial(_reset, default_org=default_org))


def _open(args: argparse.Namespace, default_org: Callable[[], Path]) -> Any:
    # Loaded here so that other crmarena commands start without the engine.
    from mock_org.cache import cache_root
    from mock_org.clock import OrgClock
    from mock_org.copies import check_org_file, reading_copy, working_copy
    from mock_org.dump import reference_date
    from mock_org.org import Org

    if args.db is None:
        source = default_org()
        path = working_copy(source, cache_root())
    else:
        source = check_org_file(args.db)
        path = reading_copy(source, cache_root())
    return Org(path, clock=OrgClock.for_date(args.today or reference_date(source)), read_only=True)


def _text(args: argparse.Namespace) -> str:
    return sys.stdin.read() if args.text == "-" else args.text


def _query(args: argparse.Namespace, default_org: Callable[[], Path]) -> int:
    from mock_org.result_formats import every_page, print_result, progress_bar

    text = _text(args)
    org = _open(args, default_org)
    try:
        body = org.query(text, include_deleted=args.all_rows, batch_size=PAGE)
        if args.all:
            with progress_bar(body["totalSize"], PAGE) as on_page:
                body = every_page(org, body, on_page)
    finally:
        org.close()
    print_result(body, "records", args.format)
    return 0


def _search(args: argparse.Namespace, default_org: Callable[[], Path]) -> int:
    from mock_org.result_formats import print_result

    text = _text(args)
    org = _open(args, default_org)
    try:
        body = org.search(text)
    finally:
        org.close()
    print_result(body, "searchRecords", args.format)
    return 0


def _reset(_args: argparse.Namespace, default_org: Callable[[], Path]) -> int:
    from mock_org.cache import cache_root
    from mock_org.copies import working_copy

    source = default_org()
    print(f"reset {working_copy(source, cache_root(), reset=True)} from {source}")
    return 0

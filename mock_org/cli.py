"""``crmarena query`` and ``crmarena search``: ask the org a question without any server or login.

They answer with the JSON the REST API would send (``/query``, ``/queryAll``, ``/search``), or with
the error a real org gives, and run on the default org's working copy unless ``--db`` names one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def add(subparsers: argparse._SubParsersAction) -> None:
    for name, what, handler in (
        ("query", "run a SOQL query against the org and print the REST API's JSON", _query),
        ("search", "run a SOSL search against the org and print the REST API's JSON", _search),
    ):
        parser = subparsers.add_parser(name, help=what, description=what[0].upper() + what[1:] + ".")
        parser.add_argument("text", help="the query text, or - to read it from standard input")
        parser.add_argument("--db", type=Path, help="an org database (default: the default CRMArena org)")
        parser.add_argument("--today", help="the org's date, YYYY-MM-DD (default: the machine's)")
        if name == "query":
            parser.add_argument("--all-rows", action="store_true", help="include deleted records (queryAll)")
        parser.set_defaults(handler=handler)


def _org(args: argparse.Namespace) -> Any:
    # Loaded here so that other crmarena commands start without the engine.
    from .clock import OrgClock
    from .copies import working_copy
    from .org import Org
    from .schema import default_schema
    from .storage import Storage

    path = args.db
    if path is None:
        path = working_copy(reset=False)
    else:
        storage = Storage(path, default_schema())
        storage.prepare()
        storage.dispose()
    clock = OrgClock.for_date(args.today) if args.today else OrgClock()
    return Org(path, clock=clock, read_only=True)


def _answer(args: argparse.Namespace, ask: Any) -> int:
    from .errors import SalesforceError

    text = sys.stdin.read() if args.text == "-" else args.text
    org = _org(args)
    try:
        body = ask(org, text)
    except SalesforceError as error:
        print(json.dumps([error.to_json()], indent=2, ensure_ascii=False))
        return 1
    finally:
        org.close()
    print(json.dumps(body, indent=2, ensure_ascii=False))
    return 0


def _query(args: argparse.Namespace) -> int:
    return _answer(args, lambda org, text: org.query(text, include_deleted=args.all_rows, batch_size=2000))


def _search(args: argparse.Namespace) -> int:
    return _answer(args, lambda org, text: org.search(text))

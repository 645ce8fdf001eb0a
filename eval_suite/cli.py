"""The ``crmarena`` command: one entry point whose subcommands come from each package."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

import soql_parser
from fixtures import cli as fixtures_cli
from mock_org import cli as org_cli
from mock_org.server import cli as server_cli
from mock_org.server import tls_cli


def _parse_command(args: argparse.Namespace) -> int:
    """Check a query offline: print its canonical text, or the error a real org would give."""
    text = args.query if args.query != "-" else sys.stdin.read()
    try:
        tree = soql_parser.parse_sosl(text) if args.sosl else soql_parser.parse(text)
    except soql_parser.QuerySyntaxError as error:
        code = "MALFORMED_SEARCH" if args.sosl or text.lstrip()[:4].upper() == "FIND" else "MALFORMED_QUERY"
        if args.json:
            print(json.dumps([{"message": error.caret_message(text), "errorCode": code}]))
        else:
            print(f"{code}: {error.caret_message(text)}", file=sys.stderr)
            if error.expected:
                print(f"expected one of: {', '.join(error.expected)}", file=sys.stderr)
        return 1
    print(repr(tree) if args.tree else soql_parser.to_text(tree))
    return 0


def _add_parse(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "parse",
        help="check a SOQL or SOSL query offline and print its canonical form",
        description="Parse a SOQL or SOSL query (SOSL when it starts with FIND) without any org.",
    )
    parser.add_argument("query", help="the query text, or - to read it from standard input")
    parser.add_argument("--sosl", action="store_true", help="parse as SOSL even without a leading FIND")
    parser.add_argument("--tree", action="store_true", help="print the syntax tree instead of the canonical text")
    parser.add_argument("--json", action="store_true", help="print errors as the Salesforce REST error body")
    parser.set_defaults(handler=_parse_command)


# Each entry adds one subcommand; later packages contribute theirs here.
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_parse,
    org_cli.add,
    fixtures_cli.add,
    server_cli.add,
    tls_cli.add,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crmarena",
        description="CRMArena, self-hosted: an emulated Salesforce org and the benchmark that runs agents in it.",
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())

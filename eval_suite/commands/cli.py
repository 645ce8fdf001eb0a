"""The ``crmarena`` command: one entry point whose subcommands are the modules beside it.

``main`` is the one place where failures become exit codes: a subcommand raises (a
``mock_org.user_errors.CommandError``, the org's ``SalesforceError``, an ``OSError``), and
``main`` prints one line on stderr and returns the code; nothing prints a traceback unless
``CRMARENA_DEBUG=1``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from functools import partial
from importlib import metadata

import soql_parser
from eval_suite.commands import (
    conformance,
    doctor,
    evaluate,
    fake_llm,
    fixtures,
    mcp,
    query,
    report,
    serve,
    tls,
)
from eval_suite.commands import lane as lane_commands
from fixtures.default import default_org
from mock_org import user_errors
from mock_org.errors import SalesforceError
from mock_org.user_errors import CommandError, UsageError


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr (through ``main``), not the usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def refusal(code: str, message: str) -> str:
    """An org's error as the command line shows it: ``CODE: reason`` first, then where it is.

    A query error's message is the caret block (``\\n<line>\\n<caret>\\nERROR at Row:r:Column:c\\n<reason>``);
    its reason goes on the first line so that the first line alone says what is wrong.
    """
    if not message.startswith("\n"):
        return f"{code}: {message}"
    query_line, caret, position, *reason = message[1:].split("\n")
    return "\n".join((f"{code}: {chr(10).join(reason)}", query_line, caret, position))


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
            print(refusal(code, error.caret_message(text)), file=sys.stderr)
            if error.expected:
                print(f"expected one of: {', '.join(error.expected)}", file=sys.stderr)
        return user_errors.REFUSED
    print(repr(tree) if args.tree else soql_parser.to_text(tree))
    return user_errors.OK


def _add_parse(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "parse",
        help="check a SOQL or SOSL query offline and print its canonical form",
        description="Parse a SOQL or SOSL query (SOSL when it starts with FIND) without any org.",
    )
    parser.add_argument("query", help="the query text, or - to read it from standard input")
    parser.add_argument("--sosl", action="store_true", help="accept only SOSL: refuse anything that is not FIND …")
    parser.add_argument("--tree", action="store_true", help="print the syntax tree instead of the canonical text")
    parser.add_argument("--json", action="store_true", help="print errors as the Salesforce REST error body")
    parser.set_defaults(handler=_parse_command)


# Each entry adds one subcommand, in the order `crmarena --help` lists them. The engine's verbs (query,
# search, org reset, serve) are given the default org, which fixtures builds and unpacks, a floor above the
# engine; a test gives them another.
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_parse,
    partial(query.add, default_org=default_org),
    fixtures.add,
    partial(serve.add, default_org=default_org),
    tls.add,
    mcp.add,
    evaluate.add,
    doctor.add,
    fake_llm.add,
    report.add,
    lane_commands.add,  # after query: it adds to `crmarena org`
    conformance.add,
]


def _version() -> str:
    try:
        return metadata.version("crmarena-selfhosted")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="crmarena",
        description="CRMArena, self-hosted: an emulated Salesforce org and the benchmark that runs agents in it.",
        epilog="Exit codes: 0 done, 1 the org refused, 2 usage, 3 a file cannot be used, 4 the data breaks "
        "the dump's rules, 5 a port, endpoint or copy is unavailable (docs/cli.md: Exit codes).",
    )
    parser.add_argument("--version", action="version", version=f"crmarena {_version()}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def _failure(error: BaseException) -> tuple[int, str | None]:
    """The exit code for a failure and the text to print (None: print nothing)."""
    if isinstance(error, BrokenPipeError):
        # The reader closed the pipe (`| head`): stop quietly, and let no later flush of stdout complain.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return user_errors.BROKEN_PIPE, None
    if isinstance(error, KeyboardInterrupt):
        return user_errors.INTERRUPTED, "crmarena: interrupted"
    if isinstance(error, CommandError):
        return error.exit_code, f"crmarena: {error}" if not str(error).startswith("crmarena") else str(error)
    if isinstance(error, SalesforceError):
        return user_errors.REFUSED, refusal(error.error_code, error.message)
    if isinstance(error, OSError):
        return user_errors.BAD_FILE, f"crmarena: {error}"
    return user_errors.INTERNAL, (
        f"crmarena: internal error: {type(error).__name__}: {error} "
        "(a bug: please report it; CRMARENA_DEBUG=1 shows the traceback)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return user_errors.OK
        return int(handler(args))
    except SystemExit:
        raise  # --help and --version
    except BaseException as error:  # the command line's outer edge: every failure ends here
        if os.environ.get("CRMARENA_DEBUG"):
            traceback.print_exception(error)
        code, text = _failure(error)
        if text is not None:
            print(text, file=sys.stderr)
        return code


if __name__ == "__main__":
    sys.exit(main())

"""``crmarena mcp``: the CRMArena tools and raw SOQL/SOSL as an MCP server, over standard input/output (what a
desktop MCP client spawns) or streamable HTTP.

The org is the one ``crmarena eval`` would use (eval_suite/run/target.py): a private read-only copy of the
default org, or of ``--db``; a running mock at CRMARENA_MOCK_URL; a real org with CRMARENA_TARGET=salesforce.
Everything that can be refused is checked before the server answers anything: the flags, the MCP SDK, the
port, then the org (logged in to and asked one query), so a client never meets a server with no org behind it.
"""

from __future__ import annotations

import argparse
import errno
import signal
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from mock_org import user_errors
from mock_org.user_errors import Unavailable, UsageError

from .arguments import iso_date, port_number, positive_number

TRANSPORTS = ("stdio", "http")
DEFAULT_PORT = 8765
INSTALL_HINT = "pip install 'crmarena-selfhosted[mcp]'"


def add(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the CRMArena tools and SOQL/SOSL to MCP clients (stdio or streamable HTTP)",
        description="Serve the org's tools over the Model Context Protocol: the CRMArena tools and raw SOQL/SOSL, "
        "on a private read-only copy of the default org (or --db), a mock at CRMARENA_MOCK_URL, or a real org "
        f"with CRMARENA_TARGET=salesforce. Needs the mcp extra ({INSTALL_HINT}).",
    )
    parser.add_argument(
        "--transport", choices=TRANSPORTS, default="stdio", help="stdio (default: what a client spawns) or http"
    )
    parser.add_argument("--host", help="with --transport http: the address to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--port",
        type=port_number,
        help=f"with --transport http: the port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--db", type=Path, help="the org database or dump folder the mock serves (default: the default org)"
    )
    parser.add_argument(
        "--today", type=iso_date, help="the mock org's date for the tools, YYYY-MM-DD (default: its clock)"
    )
    parser.add_argument("--no-raw", action="store_true", help="leave out the raw SOQL/SOSL tools (the fc agent's set)")
    parser.add_argument(
        "--org-timeout",
        type=positive_number,
        metavar="SECONDS",
        help="seconds per org request, the login included (default: $CRMARENA_ORG_TIMEOUT, else 30)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.transport != "http" and (args.host is not None or args.port is not None):
        raise UsageError("crmarena mcp: --host and --port are for --transport http")
    try:
        from ..integrations import mcp_server
    except ImportError as error:
        if (error.name or "").partition(".")[0] not in ("mcp", "mcp_types", "uvicorn", "anyio"):
            raise
        raise Unavailable(f"crmarena mcp needs the MCP SDK 2 ({error}): {INSTALL_HINT}") from None
    from ..run.target import TargetSettings, open_target
    from ..tools.catalog import agent_tools
    from ..tools.toolbox import Toolbox

    tools = agent_tools("fc" if args.no_raw else "fc-sql", None)
    today = args.today.isoformat() if args.today else None
    with _stopped_by_sigterm(), _refusals(), _listening(args) as listening:
        settings = TargetSettings.from_env(db=_org_file(args.db), timeout=args.org_timeout)
        if args.db is not None:
            settings = replace(settings, mock_url=None)  # the flag names the org over CRMARENA_MOCK_URL
        if today and settings.kind != "mock":
            raise UsageError("crmarena mcp: --today sets a mock org's date; a real org has one clock")
        with open_target(settings) as target:
            target.preflight()

            def connect() -> Toolbox:
                sf = target.connect()
                if today:
                    target.set_today(sf, today)
                return Toolbox(sf, tools)

            server = mcp_server.build_server(mcp_server.ToolSessions(tools, connect), _instructions(target.name, today))
            _say(f"{len(tools)} tools of the {target.name} on {_where(listening, mcp_server.HTTP_PATH)}")
            if listening is None:
                mcp_server.serve_stdio(server)
            else:
                mcp_server.serve_http(server, listening)
    return user_errors.OK


def _where(listening: socket.socket | None, path: str) -> str:
    """Where clients reach the server, as the banner says it."""
    if listening is None:
        return "standard input/output"
    host, port = listening.getsockname()[:2]
    host = "127.0.0.1" if host in ("0.0.0.0", "::") else host  # a wildcard address: say the loopback one
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{port}{path} (streamable HTTP; Ctrl-C stops it)"


def _instructions(org: str, today: str | None) -> str:
    date = f" Today in the org is {today}." if today else ""
    return (
        f"The CRMArena tools over a Salesforce org ({org}).{date} Each tool answers with the records it found "
        "(Python literal text, without 'attributes') or with the org's error as ERRORCODE: message."
    )


def _org_file(db: Path | None) -> Path | None:
    """``--db`` as the database it names (a dump folder holds one), refused before anything starts."""
    if db is None:
        return None
    from mock_org.copies import check_org_file

    return check_org_file(db.expanduser())


@contextmanager
def _listening(args: argparse.Namespace) -> Iterator[socket.socket | None]:
    """The bound HTTP socket (claimed before the org starts, so a busy port costs nothing), or None for stdio."""
    if args.transport != "http":
        yield None
        return
    host = args.host or "127.0.0.1"
    port = DEFAULT_PORT if args.port is None else args.port
    try:
        listening = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise Unavailable(
                f"crmarena mcp: port {port} on {host} is in use; pick another with --port, or 0"
            ) from None
        raise Unavailable(f"crmarena mcp: cannot listen on {host}:{port}: {error.strerror or error}") from None
    with listening:
        yield listening


@contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """SIGTERM (a client or a supervisor stopping the server) ends the command as a normal exit, so the org's
    private copy is removed on the way out rather than left behind by the default handler."""

    def stop(_signum: int, _frame: object) -> None:
        raise SystemExit(user_errors.OK)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _refusals() -> Iterator[None]:
    """The reasons the server cannot start, as the command line's errors and exit codes."""
    from ..errors import InfraError
    from ..run.target import AmbiguousTarget, TargetUnavailable

    try:
        yield
    except AmbiguousTarget as error:
        raise UsageError(f"crmarena mcp: {error}") from None
    except (TargetUnavailable, InfraError) as error:
        raise Unavailable(f"crmarena mcp: {error}") from None


def _say(text: str) -> None:
    """A line on stderr: on stdio, stdout carries only the protocol."""
    print(f"crmarena mcp: {text}", file=sys.stderr, flush=True)

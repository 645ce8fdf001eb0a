"""``crmarena serve``: the default CRMArena org (or any dump) behind the Salesforce REST API, with no other step.

Which file is served: ``--db PATH`` serves that file (prepared in place); otherwise a working copy
of the default org in the cache, made from the pristine dump on first use (``--reset`` makes it
afresh); ``--copy`` serves a throw-away copy of either, deleted on exit. The org's date starts at
its reference date (the manifest's ``as_of_date``) unless ``--today`` fixes another.

Everything that can be refused is checked before anything is made: the database, then the ports,
then the TLS files and the copy.

The default org is built and unpacked a floor above the engine (fixtures): the command tree passes
``default_org``, which gives its pristine database when called.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import signal
import tempfile
import threading
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from mock_org.server import limits

from .arguments import iso_date, port_number, positive_int

if TYPE_CHECKING:
    from mock_org.clock import OrgClock
    from mock_org.server import workers
    from mock_org.server.http import tls
    from mock_org.server.serve import Server


def add(subparsers: argparse._SubParsersAction, default_org: Callable[[], Path]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the CRMArena org over the Salesforce REST API (HTTPS)",
        description="Serve an org over the Salesforce REST, SOAP-login, OAuth, Bulk API 2.0 and Bulk API 1.0 "
        "interfaces. Without --db it serves the default org's working copy, which keeps its changes "
        "(crmarena org reset restores it); --copy serves a throw-away copy instead.",
    )
    parser.add_argument(
        "--host",
        default=os.environ.get("CRMARENA_HOST") or "127.0.0.1",
        help="address to listen on (default $CRMARENA_HOST or 127.0.0.1)",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=os.environ.get("CRMARENA_PORT") or "8443",
        help="HTTPS port (default $CRMARENA_PORT or 8443; 0 picks a free one)",
    )
    parser.add_argument(
        "--http-port",
        type=port_number,
        default=os.environ.get("CRMARENA_HTTP_PORT") or None,
        help="also serve plain HTTP on this port (default $CRMARENA_HTTP_PORT)",
    )
    parser.add_argument(
        "--tls-name",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name or IP address for the server certificate (repeatable; "
        "also $CRMARENA_TLS_NAMES, comma-separated)",
    )
    parser.add_argument("--db", type=Path, help="serve this org database (prepared in place) instead of the default")
    parser.add_argument(
        "--today", type=iso_date, help="fix the org's date (YYYY-MM-DD; default: it starts at its reference date)"
    )
    parser.add_argument("--read-only", action="store_true", help="refuse every write with a Salesforce error")
    parser.add_argument("--copy", action="store_true", help="serve a throw-away copy, deleted on exit")
    parser.add_argument(
        "--empty",
        action="store_true",
        help="serve a throw-away fresh org: the schema, the "
        "standard records and the users only (the target of crmarena org push)",
    )
    parser.add_argument("--reset", action="store_true", help="remake the default org's working copy first")
    parser.add_argument("--threads", type=positive_int, help="requests that run the app at once (default 16)")
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=os.environ.get("CRMARENA_WORKERS") or "1",
        help="processes behind the one port, sharing sessions, cursors and jobs "
        "(default $CRMARENA_WORKERS or 1; one per core uses every core)",
    )
    parser.add_argument(
        "--query-timeout",
        type=float,
        metavar="SECONDS",
        help="how long a query may run before QUERY_TIMEOUT (default $CRMARENA_QUERY_TIMEOUT or 30)",
    )
    parser.add_argument(
        "--ui-console",
        choices=("on", "off"),
        default="on",
        help="the web UI's query console (default on); off takes the page and its link away, so that a browser "
        "agent must navigate the pages",
    )
    parser.add_argument("--tls-dir", type=Path, help="where the CA and certificates live (default: the cache)")
    parser.add_argument(
        "--prepare-only", action="store_true", help="ready the org copy, then exit (the Docker build; no TLS files)"
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 0 if a server answers on --host/--port (writes nothing)"
    )
    limits.add_flags(parser)
    parser.set_defaults(handler=partial(run, default_org=default_org))


def tls_names(args: argparse.Namespace) -> tuple[str, ...]:
    """Extra certificate names: --tls-name, $CRMARENA_TLS_NAMES, and the listen address when it is specific."""
    from mock_org.server.http import tls

    names = [*args.tls_name, *os.environ.get("CRMARENA_TLS_NAMES", "").replace(",", " ").split()]
    if args.host not in ("0.0.0.0", "::"):
        names.append(args.host)
    known = {*tls.HOST_NAMES, *tls.IP_ADDRESSES}
    return tuple(name for name in dict.fromkeys(names) if name not in known)


def run(args: argparse.Namespace, default_org: Callable[[], Path]) -> int:
    """Serve the ``--db`` file, or the working copy of the pristine database ``default_org()`` gives."""
    # The server's modules load here, not at import, so that other crmarena commands start fast.
    from mock_org.cache import cache_root
    from mock_org.copies import check_org_file, prepare_in_place, prepared_copy, serving, working_copy
    from mock_org.dump import reference_date
    from mock_org.server.http import tls
    from mock_org.server.ports import check, claim_ports

    if args.check:
        return check(args.host, args.port, args.tls_dir)
    source = check_org_file(args.db) if args.db is not None else default_org()
    if not args.prepare_only:
        claim_ports(args.host, [args.port, *([args.http_port] if args.http_port is not None else [])])
    with ExitStack() as stack:
        if args.copy or args.empty:
            from mock_org.empty import empty_copy

            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="crmarena-org-"))
            make = empty_copy if args.empty else prepared_copy
            path = make(source if args.db is not None else working_copy(source, cache_root()), Path(scratch) / "org.db")
        elif args.db is not None:
            path = source
            prepare_in_place(path)
        else:
            path = working_copy(source, cache_root(), args.reset)
            stack.enter_context(serving(path))
        if args.prepare_only:
            print(f"ready: {path}")
            return 0
        return _serve(args, path, tls.ensure(args.tls_dir, extra_names=tls_names(args)), reference_date(source))


def _serve(args: argparse.Namespace, path: Path, files: tls.TlsFiles, as_of: dt.date) -> int:
    from mock_org.clock import OrgClock
    from mock_org.org import Org
    from mock_org.server.app import create_app
    from mock_org.server.serve import THREADS, Server, banner_credentials
    from mock_org.server.settings import Settings

    clock = OrgClock.for_date(args.today) if args.today else OrgClock.running_from(as_of)
    from mock_org.deadline import seconds_from_env

    timeout = args.query_timeout if args.query_timeout is not None else seconds_from_env()
    from mock_org.empty import FRESH_POD
    from mock_org.ids import POD

    pod = FRESH_POD if args.empty else POD
    if args.workers > 1:
        return _serve_workers(args, path, files, clock, timeout, pod)
    org = Org(path, clock=clock, read_only=args.read_only, query_timeout=timeout, pod=pod)
    app = create_app(org, Settings.from_env(limits=limits.from_args(args), ui_console=args.ui_console == "on"))
    server = Server(
        app, host=args.host, port=args.port, http_port=args.http_port, tls_files=files, threads=args.threads or THREADS
    ).start()
    print(_instructions(banner_credentials(app), server, path, args.read_only, clock.today()), flush=True)
    _stopped_by_signal().wait()
    server.stop()
    org.close()
    return 0


def _stopped_by_signal() -> threading.Event:
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    return stop


def _serve_workers(
    args: argparse.Namespace, path: Path, files: tls.TlsFiles, clock: OrgClock, timeout: float | None, pod: str
) -> int:
    from mock_org.server import workers
    from mock_org.server.serve import THREADS

    plan = dict(
        db=str(path),
        read_only=args.read_only,
        query_timeout=timeout,
        threads=args.threads or THREADS,
        tls_dir=str(files.directory),
        clock=workers.WorkerPlan.clock_fields(clock),
        pod=pod,
        limits=limits.as_fields(limits.from_args(args)),
        ui_console=args.ui_console == "on",
    )

    def banner(credentials: tuple[str, str, str, str], listening: workers.Listening) -> None:
        print(_instructions(credentials, listening, path, args.read_only, clock.today(), args.workers), flush=True)

    return workers.serve(
        host=args.host,
        port=args.port,
        http_port=args.http_port,
        workers=args.workers,
        plan_fields=plan,
        banner=banner,
        stop=_stopped_by_signal(),
    )


def _instructions(
    credentials: tuple[str, str, str, str],
    server: Server | workers.Listening,
    path: Path,
    read_only: bool,
    today: dt.date,
    processes: int = 1,
) -> str:
    from mock_org.auth import DEFAULT_CLIENT_ID

    username, password, token, app_secret = credentials
    client_id = os.environ.get("CRMARENA_CLIENT_ID") or DEFAULT_CLIENT_ID
    host = "127.0.0.1" if server.host in ("0.0.0.0", "::") else server.host
    host = f"[{host.strip('[]')}]" if ":" in host else host  # an IPv6 address in a URL (RFC 3986 §3.2.2)
    hostport = f"{host}:{server.port}"
    env = {
        "REQUESTS_CA_BUNDLE": str(server.tls.bundle),
        "NODE_EXTRA_CA_CERTS": str(server.tls.ca_cert),
        "CRMARENA_URL": f"https://{hostport}",
        "CRMARENA_CA_BUNDLE": str(server.tls.bundle),
        "CRMARENA_USERNAME": username,
        "CRMARENA_PASSWORD": password,
        "CRMARENA_SECURITY_TOKEN": token,
    }
    plain = f" and http://{host}:{server.http_port}" if server.http_port else ""
    lines = [
        f"Mock Salesforce org on https://{hostport}{plain} ({'read-only' if read_only else 'read-write'}: {path})"
        + (f", {processes} workers" if processes > 1 else ""),
        f"Today in the org: {today.isoformat()} (TODAY, LAST_N_DAYS:n … count from it; --today sets another)",
        "",
        "Environment for clients:",
        *(f"export {name}={shlex.quote(value)}" for name, value in env.items()),
        "",
        "Python (unmodified simple-salesforce, with REQUESTS_CA_BUNDLE exported):",
        "    from simple_salesforce import Salesforce",
        f"    sf = Salesforce(username={username!r}, password={password!r}, security_token={token!r},",
        f"                    domain={hostport + '/login'!r})",
        "or, with the CRMARENA_* variables exported:",
        "    from mock_org.client import connect; sf = connect()",
        "",
        f"In a browser: https://{hostport}/ (log in as {username} with the password above), or open",
        f"https://{hostport}/secur/frontdoor.jsp?sid=SESSION_ID&retURL=/lightning/page/home with an API session id.",
        "",
        f"OAuth client_credentials grant (logs in as {username}): consumer key {client_id}, secret {app_secret}",
        "",
        "Ctrl-C stops the server.",
    ]
    return "\n".join(lines)

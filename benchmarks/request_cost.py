"""Where one small query's server time goes, stage by stage: ``python -m benchmarks.request_cost``.

The floor benchmark (floor.py) says how far a whole call is from the least a server can cost; this
one says what the gap is made of. In this process, in a tight loop (µs per call, best of five
rounds): the app's own stages for the 1-row tool query — the bare minimum of a Flask request (one
route, a small JSON answer), the session check and API count, a read transaction, the engine's
query with its text already planned, the JSON encoding — and the whole app through its WSGI call.
Then over HTTPS from unmodified simple-salesforce, each server in its own process, server CPU per
call (from /proc): the floor (replayed bytes), our front in front of a trivial WSGI app that
answers the same bytes, and our whole server. A tight loop keeps the CPU's caches warm; a server
that waits ~1 ms for its client between requests does not, which is why the last figures are larger
than the sum of the first.
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import os
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any
from urllib.parse import quote

from flask import Flask

from benchmarks.floor import Floor, cpu_seconds, login, shapes
from benchmarks.roundtrip import start_server
from fixtures import default_org
from mock_org.copies import prepared_copy
from mock_org.server.http import http1, wsgi
from mock_org.server.rest.wire import dumps_bytes, json_response


def per_call_us(action: Callable[[], object], calls: int) -> float:
    """Best of five rounds of ``calls`` calls, µs per call."""
    return min(timeit.repeat(action, number=calls, repeat=5)) / calls * 1e6


def app_stages(path: Path, calls: int) -> list[tuple[str, float]]:
    from mock_org.org import Org
    from mock_org.server.app import create_app, session_check
    from mock_org.server.rest.state import EXTENSION
    from mock_org.server.settings import Settings

    org = Org(path, read_only=True)
    app = create_app(org, Settings())
    auth = app.extensions[EXTENSION].auth
    usage = app.extensions[EXTENSION].usage
    token = auth.issue(auth.admin)
    text = shapes(path)[0].warm
    target = f"/services/data/v59.0/query/?q={quote(text)}"
    head = http1.parse_head(f"GET {target} HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer {token}".encode())
    authenticated = session_check(app)

    def whole() -> tuple:
        environ = wsgi.environ_of(head, scheme="https", server=("127.0.0.1", 443), client=("127.0.0.1", 1))
        authenticated(environ)
        wsgi.with_body(environ, io.BytesIO(), size=0, received=0)
        return wsgi.call(app, environ)

    bare = Flask("bare")
    bare.add_url_rule("/services/data/v<version>/query/", "q", lambda version: json_response({"done": True}))
    bare_head = http1.parse_head(f"GET {target} HTTP/1.1\r\nHost: h".encode())

    def bare_call() -> tuple:
        environ = wsgi.environ_of(bare_head, scheme="https", server=("127.0.0.1", 443), client=("127.0.0.1", 1))
        wsgi.with_body(environ, io.BytesIO(), size=0, received=0)
        return wsgi.call(bare, environ)

    def session_and_count() -> None:
        auth.has_session(token)
        auth.verify(token)
        usage.count()

    def read_transaction() -> None:
        with org.storage.read():
            pass

    result = org.query(text)
    assert whole()[0].startswith("200"), whole()
    try:
        return [
            ("Flask's minimum: one route, a small JSON answer", per_call_us(bare_call, calls)),
            ("session check (twice: front and app) and API count", per_call_us(session_and_count, calls)),
            ("a read transaction (SQLAlchemy pool, BEGIN, COMMIT)", per_call_us(read_transaction, calls)),
            ("the engine's query, text already planned (read included)", per_call_us(lambda: org.query(text), calls)),
            ("the JSON encoding of its result", per_call_us(lambda: dumps_bytes(result), calls)),
            ("the whole app (WSGI call, environ included)", per_call_us(whole, calls)),
        ]
    finally:
        org.close()


def trivial_server(answer: bytes, certfile: str, keyfile: str, control: Connection) -> None:
    """Our front in front of a WSGI app that only answers ``answer`` (a whole HTTP response's body)."""
    from mock_org.server.http.front import Front

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        start_response(
            "200 OK", [("Content-Type", "application/json;charset=UTF-8"), ("Content-Length", str(len(answer)))]
        )
        return [answer]

    front = Front(
        app,
        host="127.0.0.1",
        port=0,
        http_port=None,
        certfile=certfile,
        keyfile=keyfile,
        threads=16,
        authenticated=lambda environ: True,
    )
    front.start()
    control.send(front.port)
    control.recv()  # until told to stop
    front.stop()


def over_https(path: Path, scratch: Path, calls: int) -> list[tuple[str, float]]:
    tls_dir = scratch / "tls"
    process, port, exports = start_server(path, tls_dir)
    os.environ["REQUESTS_CA_BUNDLE"] = exports["REQUESTS_CA_BUNDLE"]
    floor = Floor(tls_dir / "server.pem", tls_dir / "server-key.pem")
    control, child = multiprocessing.get_context("spawn").Pipe()
    try:
        ours = login(port, exports)
        text = shapes(path)[0].warm
        seen: list[Any] = []
        ours.session.hooks["response"].append(lambda response, **_: seen.append(response))
        ours.query_all(text)
        floor.learn(seen[-1])
        trivial = multiprocessing.get_context("spawn").Process(
            target=trivial_server,
            args=(seen[-1].content, str(tls_dir / "server.pem"), str(tls_dir / "server-key.pem"), child),
            daemon=True,
        )
        trivial.start()
        trivial_port = control.recv()
        sides = [
            ("the floor: the same bytes replayed", floor.port, floor.process.pid),
            ("our front, a trivial app answering the same bytes", trivial_port, trivial.pid),
            ("our whole server", port, process.pid),
        ]
        clients = [ours if side_port == port else _client(side_port, ours) for _, side_port, _ in sides]
        figures = []
        for (label, _, pid), client in zip(sides, clients, strict=True):
            for _ in range(100):
                client.query_all(text)
            before, started = cpu_seconds(pid), time.perf_counter()
            for _ in range(calls):
                client.query_all(text)
            wall = (time.perf_counter() - started) / calls * 1e3
            figures.append((f"{label} (round trip {wall:.2f} ms)", (cpu_seconds(pid) - before) / calls * 1e6))
        control.send(True)
        trivial.join(10)
        return figures
    finally:
        floor.stop()
        process.terminate()
        process.wait(10)


def _client(port: int, like: Any) -> Any:
    """A simple-salesforce client on another port with the same session (servers that do not check it)."""
    from simple_salesforce import Salesforce

    return Salesforce(instance_url=f"https://127.0.0.1:{port}", session_id=like.session_id, version=like.sf_version)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per figure (default 2000)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        path = prepared_copy(default_org(), Path(scratch) / "org.db")
        print("the 1-row tool query (a contact's account), µs per call")
        print("in this process, a tight loop (best of 5 rounds):")
        for label, value in app_stages(path, args.calls):
            print(f"  {value:8.1f}  {label}")
        print("over HTTPS from simple-salesforce, server process CPU per call (/proc):")
        for label, value in over_https(path, Path(scratch), args.calls):
            print(f"  {value:8.1f}  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Running the app: cheroot (a production, thread-pooled WSGI server) on HTTPS, and optionally plain HTTP.

``serve_org()`` is the isolation primitive: it copies an org dump into a temporary directory,
prepares the copy, serves it on a free loopback port and deletes it afterwards, so each evaluation
run (or test) gets an org of its own that nobody else writes to. Flask's development server is
never used here.
"""

from __future__ import annotations

import re
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cheroot import server as cheroot_server
from cheroot import wsgi
from cheroot.ssl.builtin import BuiltinSSLAdapter
from flask import Flask

from fixtures.dump import reference_date

from ..auth import admin_secrets
from ..clock import OrgClock
from ..copies import prepared_copy
from ..org import Org
from . import tls
from .app import create_app
from .settings import Settings
from .state import EXTENSION

if TYPE_CHECKING:
    from simple_salesforce import Salesforce

THREADS = 16
_LEADING_SLASHES = re.compile(rb"^([A-Z]+ )/{2,}")


class _RequestLineReader:
    """Reads the request line with a run of leading slashes in its path made one.

    Salesforce answers ``GET //services/data``: the sf CLI stores an instance URL with a trailing
    slash and asks for exactly that. cheroot would read ``//services`` as an authority (a
    proxy-style request) and refuse it, so the path is repaired before cheroot parses it.
    """

    def __init__(self, rfile: object) -> None:
        self._rfile = rfile

    def readline(self, size: int | None = None) -> bytes:
        line = self._rfile.readline(size)  # type: ignore[attr-defined]
        return _LEADING_SLASHES.sub(rb"\1/", line, count=1)

    def __getattr__(self, name: str) -> object:
        return getattr(self._rfile, name)


class _Request(cheroot_server.HTTPRequest):
    def read_request_line(self) -> bool:
        headers_reader = self.rfile
        self.rfile = _RequestLineReader(headers_reader)
        try:
            return super().read_request_line()
        finally:
            self.rfile = headers_reader


class _Connection(cheroot_server.HTTPConnection):
    RequestHandlerClass = _Request


class _WsgiServer(wsgi.Server):
    """cheroot, a production thread-pooled WSGI server that speaks TLS itself and runs inside a thread
    of the calling process (waitress has no TLS; gunicorn forks workers), with Salesforce's tolerance
    for a doubled leading slash."""

    ConnectionClass = _Connection


class Server:
    """The app on HTTPS (and plain HTTP when ``http_port`` is given), each in its own thread pool."""

    def __init__(
        self, app: Flask, *, host: str = "127.0.0.1", port: int = 8443, http_port: int | None = None,
        tls_files: tls.TlsFiles | None = None, threads: int = THREADS,
    ) -> None:  # fmt: skip
        self.host = host
        self.tls = tls_files or tls.ensure()
        self._https = _WsgiServer((host, port), app, numthreads=threads, server_name="crmarena-mock-org")
        self._https.ssl_adapter = BuiltinSSLAdapter(str(self.tls.server_cert), str(self.tls.server_key))
        self._http = None
        if http_port is not None:
            self._http = _WsgiServer((host, http_port), app, numthreads=threads, server_name="crmarena-mock-org")
        self._threads: list[threading.Thread] = []

    @property
    def port(self) -> int:
        return int(self._https.bind_addr[1])

    @property
    def http_port(self) -> int | None:
        return int(self._http.bind_addr[1]) if self._http is not None else None

    def start(self) -> Server:
        """Bind the ports (port 0 picks a free one) and serve in background threads."""
        for server in filter(None, (self._https, self._http)):
            server.prepare()
            thread = threading.Thread(target=server.serve, name=f"mock-org-{server.bind_addr[1]}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        for server in filter(None, (self._https, self._http)):
            server.stop()
        for thread in self._threads:
            thread.join(timeout=10)
        self._threads.clear()


@dataclass
class RunningOrg:
    """A served org: where it is, how to trust it, and the administrator's credentials."""

    org: Org
    app: Flask
    server: Server
    username: str
    password: str
    security_token: str

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.server.port}"

    @property
    def http_url(self) -> str | None:
        return f"http://127.0.0.1:{self.server.http_port}" if self.server.http_port is not None else None

    @property
    def ca_bundle(self) -> Path:
        return self.server.tls.bundle

    def connect(self, version: str = "59.0") -> Salesforce:
        """A simple-salesforce client logged in as the administrator (see mock_org.client.connect)."""
        from ..client import connect

        return connect(self.url, username=self.username, password=self.password,
                       security_token=self.security_token, ca_bundle=self.ca_bundle, version=version)  # fmt: skip


@contextmanager
def serve_org(
    source: Path | str | None = None,
    *,
    read_only: bool = False,
    today: str | None = None,
    settings: Settings | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    http_port: int | None = None,
    tls_files: tls.TlsFiles | None = None,
) -> Iterator[RunningOrg]:
    """A throw-away copy of an org (the default CRMArena org unless ``source`` names a dump), served on
    a free loopback port for as long as the block runs; every write goes to the copy, which is deleted.
    ``http_port`` adds plain HTTP (0 picks a free port). ``today`` fixes the org's date; without it the
    org's clock starts at the dump's reference date and runs."""
    settings = settings or Settings()
    if source is None:
        from fixtures import default_org

        source = default_org()
    with tempfile.TemporaryDirectory(prefix="crmarena-org-") as scratch:
        path = prepared_copy(Path(source), Path(scratch) / "org.db")
        clock = OrgClock.for_date(today) if today else OrgClock.running_from(reference_date(Path(source)))
        org = Org(path, clock=clock, read_only=read_only)
        try:
            app = create_app(org, settings)
            server = Server(app, host=host, port=port, http_port=http_port, tls_files=tls_files).start()
            try:
                yield RunningOrg(org, app, server, *admin_credentials(app))
            finally:
                server.stop()
        finally:
            org.close()


def admin_credentials(app: Flask) -> tuple[str, str, str]:
    """The administrator's username, password and security token as the app was configured."""
    state = app.extensions[EXTENSION]
    username = state.auth.admin.username
    return (username, *admin_secrets(state.settings.auth, username))

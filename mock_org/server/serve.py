"""Running the app on HTTPS, and optionally plain HTTP, behind the front (http/front.py).

``serve_org()`` is the isolation primitive: it copies an org dump into a temporary directory,
prepares the copy, serves it on a free loopback port and deletes it afterwards, so each evaluation
run (or test) gets an org of its own that nobody else writes to. Flask's development server is
never used here.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from flask import Flask

from .. import deadline
from ..auth import admin_secrets
from ..clock import OrgClock
from ..copies import prepared_copy
from ..dump import reference_date
from ..empty import FRESH_POD, empty_copy
from ..ids import POD
from ..org import Org
from .app import create_app, session_check
from .http import tls
from .http.front import Front
from .rest.state import EXTENSION
from .settings import Settings

if TYPE_CHECKING:
    from simple_salesforce import Salesforce

THREADS = 16


class Server:
    """The app on HTTPS (and plain HTTP when ``http_port`` is given): the front reads requests and does
    TLS (http/front.py); at most ``threads`` requests run the app at once."""

    def __init__(
        self,
        app: Flask,
        *,
        host: str = "127.0.0.1",
        port: int = 8443,
        http_port: int | None = None,
        tls_files: tls.TlsFiles | None = None,
        threads: int = THREADS,
        inherited: tuple[int, int | None] | None = None,
    ) -> None:
        self.host = host
        self.tls = tls_files or tls.ensure()
        self._front = Front(
            app,
            host=host,
            port=port,
            http_port=http_port,
            certfile=str(self.tls.server_cert),
            keyfile=str(self.tls.server_key),
            threads=threads,
            authenticated=session_check(app),
            limits=app.extensions[EXTENSION].settings.limits,
            inherited=inherited,
        )

    @property
    def front(self) -> Front:
        return self._front

    @property
    def port(self) -> int:
        return self._front.port

    @property
    def http_port(self) -> int | None:
        return self._front.http_port

    def start(self) -> Server:
        """Serve on the bound ports (port 0 picked a free one) in a background thread."""
        self._front.start()
        return self

    def stop(self) -> None:
        self._front.stop()


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

    @property
    def client_secret(self) -> str:
        """This org's own secret for the client_credentials grant (auth.py)."""
        return str(self.app.extensions[EXTENSION].auth.app_secret)

    def connect(self, version: str = "59.0") -> Salesforce:
        """A simple-salesforce client logged in as the administrator (see mock_org.client.connect)."""
        from ..client import connect

        return connect(
            self.url,
            username=self.username,
            password=self.password,
            security_token=self.security_token,
            ca_bundle=self.ca_bundle,
            version=version,
        )


@contextmanager
def serve_org(
    source: Path | str,
    *,
    read_only: bool = False,
    today: str | None = None,
    settings: Settings | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    http_port: int | None = None,
    tls_files: tls.TlsFiles | None = None,
    query_timeout: float | None = deadline.DEFAULT_SECONDS,
    empty: bool = False,
    clock: OrgClock | None = None,
) -> Iterator[RunningOrg]:
    """A throw-away copy of the org database ``source`` (``fixtures.default_org()`` is the default CRMArena
    org's), served on a free loopback port for as long as the block runs; every write goes to the copy, which
    is deleted. ``http_port`` adds plain HTTP (0 picks a free port). ``today`` fixes the org's date; without it the
    org's clock starts at the dump's reference date and runs; ``clock`` sets it outright (``OrgClock()`` keeps the
    machine's time, for a client that compares the org's timestamps with its own). ``query_timeout`` is how long
    a query may run. ``empty`` serves what a fresh org holds instead (mock_org/empty.py: the schema, the standard
    records, the users)."""
    settings = settings or Settings()
    with tempfile.TemporaryDirectory(prefix="crmarena-org-") as scratch:
        path = (empty_copy if empty else prepared_copy)(Path(source), Path(scratch) / "org.db")
        if clock is None:
            clock = OrgClock.for_date(today) if today else OrgClock.running_from(reference_date(Path(source)))
        org = Org(path, clock=clock, read_only=read_only, query_timeout=query_timeout, pod=FRESH_POD if empty else POD)
        try:
            app = create_app(org, settings)
            server = Server(app, host=host, port=port, http_port=http_port, tls_files=tls_files).start()
            try:
                yield RunningOrg(org, app, server, *admin_credentials(app))
            finally:
                server.stop()
        finally:
            org.close()


def banner_credentials(app: Flask) -> tuple[str, str, str, str]:
    """What the banner prints: the administrator's credentials and this org's client_credentials secret."""
    return (*admin_credentials(app), str(app.extensions[EXTENSION].auth.app_secret))


def admin_credentials(app: Flask) -> tuple[str, str, str]:
    """The administrator's username, password and security token as the app was configured."""
    state = app.extensions[EXTENSION]
    username = state.auth.admin.username
    return (username, *admin_secrets(state.settings.auth, username))

"""Which org a run talks to — the only module that knows, and the only one that imports mock_org.

``CRMARENA_TARGET=mock`` (the default) serves a private, read-only copy of an org dump (the
default CRMArena org unless ``--db`` names one) on a free loopback port for the run, or uses a
running mock at ``CRMARENA_MOCK_URL`` (credentials from ``CRMARENA_USERNAME`` … as
``mock_org.client.connect`` reads them). ``CRMARENA_TARGET=salesforce`` is a real org:
``SALESFORCE_USERNAME``, ``SALESFORCE_PASSWORD``, ``SALESFORCE_SECURITY_TOKEN`` and
``SALESFORCE_DOMAIN`` (login, test or a My Domain), or ``SALESFORCE_INSTANCE_URL`` with
``SALESFORCE_SESSION_ID``. Both go through unmodified simple-salesforce.

On the mock each session follows its instance's "today" (the mock-only clock resource); a real org
has one clock, so there ``TODAY`` and ``LAST_N_DAYS:n`` mean the real date.

``crmarena conformance`` opens two targets at once, each from its own settings
(``TargetSettings.for_side``) rather than from CRMARENA_TARGET.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simple_salesforce import Salesforce

from fixtures.dump import sha256_of

from .errors import InfraError
from .toolbox import org_failure

TARGETS = ("mock", "salesforce")
API_VERSION = "59.0"
PREFLIGHT_QUERY = "SELECT Id FROM User LIMIT 1"


class TargetUnavailable(Exception):
    """The org cannot be used at all: the run stops before any model is called."""


@dataclass(frozen=True)
class TargetSettings:
    kind: str = "mock"
    mock_url: str | None = None
    db: Path | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ, db: Path | None = None) -> TargetSettings:
        kind = (env.get("CRMARENA_TARGET") or "mock").strip().lower()
        if kind not in TARGETS:
            raise TargetUnavailable(f"CRMARENA_TARGET must be one of {', '.join(TARGETS)}, not {kind!r}")
        if kind == "salesforce" and db is not None:
            raise TargetUnavailable("--db names a dump for the mock org; CRMARENA_TARGET=salesforce uses a real org")
        return cls(kind, env.get("CRMARENA_MOCK_URL") or None, db)

    @classmethod
    def for_side(
        cls, kind: str, env: Mapping[str, str] = os.environ, *, db: Path | None = None, mock_url: str | None = None
    ) -> TargetSettings:
        """One side of a comparison (``crmarena conformance``), its kind named by the caller rather than by
        CRMARENA_TARGET. A mock side serves ``db``, else uses the mock at ``mock_url`` or CRMARENA_MOCK_URL,
        else a private copy of the default org; a salesforce side reads the SALESFORCE_* variables."""
        if kind not in TARGETS:
            raise TargetUnavailable(f"a target is one of {', '.join(TARGETS)}, not {kind!r}")
        if kind == "salesforce":
            if db is not None or mock_url:
                raise TargetUnavailable("a dump or a mock URL names a mock org; a salesforce side reads SALESFORCE_*")
            return cls(kind)
        return cls(kind, None, db) if db is not None else cls(kind, mock_url or env.get("CRMARENA_MOCK_URL") or None)


class Target:
    """A connected org: new sessions on demand, the per-session clock where there is one."""

    def __init__(self, kind: str, url: str, connector: Any, *, clock: bool, org_sha256: str | None) -> None:
        self.kind, self.url, self._connect = kind, url, connector
        self.has_clock = clock
        self.org_sha256 = org_sha256

    def connect(self) -> Salesforce:
        """A new session (one per worker, so that each can have its own clock)."""
        try:
            return self._connect()
        except Exception as error:  # login failures of every kind: the client's, the network's
            raise _infra(error) from error

    def set_today(self, sf: Salesforce, today: str | None) -> None:
        """Make this session's "today" the instance's (mock only; a real org's clock cannot move)."""
        if not self.has_clock:
            return
        try:
            if today:
                sf.restful("crmarena/clock", method="PUT", json={"today": today})
            else:
                sf.restful("crmarena/clock", method="DELETE")
        except Exception as error:
            raise _infra(error) from error

    def preflight(self) -> Salesforce:
        """Log in and run one query before any model is called; a failure stops the run with the reason."""
        try:
            sf = self._connect()
            sf.query(PREFLIGHT_QUERY)
        except Exception as error:
            raise TargetUnavailable(f"the {self.kind} org at {self.url} cannot be used: {_infra(error)}") from error
        return sf

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "url": self.url, "api_version": API_VERSION,
                "per_session_clock": self.has_clock, "org_sha256": self.org_sha256}  # fmt: skip


def _infra(error: BaseException) -> InfraError:
    return org_failure(error) or InfraError(f"{type(error).__name__}: {error}", source="org")


@contextmanager
def open_target(settings: TargetSettings, env: Mapping[str, str] = os.environ) -> Iterator[Target]:
    if settings.kind == "salesforce":
        yield _salesforce(env)
    elif settings.mock_url:
        yield _running_mock(settings.mock_url, env)
    else:
        with _private_mock(settings.db) as target:
            yield target


@contextmanager
def _private_mock(db: Path | None) -> Iterator[Target]:
    from fixtures import default_org
    from mock_org.server.serve import serve_org

    source = Path(db) if db is not None else default_org()
    if not source.is_file():
        raise TargetUnavailable(f"no org dump at {source}")
    digest = sha256_of(source)
    with serve_org(source, read_only=True) as running:
        yield Target("mock", running.url, lambda: running.connect(API_VERSION), clock=True, org_sha256=digest)


def _running_mock(url: str, env: Mapping[str, str]) -> Target:
    from mock_org.client import connect

    # The mock's CA: CRMARENA_CA_BUNDLE, or the REQUESTS_CA_BUNDLE a client of `crmarena serve` exports.
    bundle = env.get("CRMARENA_CA_BUNDLE") or env.get("REQUESTS_CA_BUNDLE") or None
    return Target("mock", url, lambda: connect(url, ca_bundle=bundle, version=API_VERSION), clock=True, org_sha256=None)


def _salesforce(env: Mapping[str, str]) -> Target:
    instance_url, session_id = env.get("SALESFORCE_INSTANCE_URL"), env.get("SALESFORCE_SESSION_ID")
    username = env.get("SALESFORCE_USERNAME")
    if instance_url and session_id:

        def connector() -> Salesforce:
            return Salesforce(instance_url=instance_url, session_id=session_id, version=API_VERSION)

        return Target("salesforce", instance_url, connector, clock=False, org_sha256=None)
    if not username or env.get("SALESFORCE_PASSWORD") is None:
        raise TargetUnavailable(
            "CRMARENA_TARGET=salesforce needs SALESFORCE_USERNAME, SALESFORCE_PASSWORD and SALESFORCE_SECURITY_TOKEN "
            "(and SALESFORCE_DOMAIN for a sandbox or My Domain), or SALESFORCE_INSTANCE_URL and SALESFORCE_SESSION_ID"
        )
    domain = env.get("SALESFORCE_DOMAIN") or "login"

    def login() -> Salesforce:
        return Salesforce(username=username, password=env["SALESFORCE_PASSWORD"],
                          security_token=env.get("SALESFORCE_SECURITY_TOKEN", ""), domain=domain,
                          version=API_VERSION)  # fmt: skip

    return Target("salesforce", f"https://{domain}.salesforce.com", login, clock=False, org_sha256=None)

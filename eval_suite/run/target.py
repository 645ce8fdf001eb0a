"""Which org a run talks to — the only module that knows, and the only one that imports mock_org.

``CRMARENA_TARGET=mock`` (the default) serves a private, read-only copy of an org dump (the
default CRMArena org unless ``--db`` names one) on a free loopback port for the run, or uses a
running mock at ``CRMARENA_MOCK_URL`` (credentials from ``CRMARENA_USERNAME`` … as
``mock_org.client.connect`` reads them). ``CRMARENA_TARGET=salesforce`` is a real org:
``SALESFORCE_USERNAME``, ``SALESFORCE_PASSWORD``, ``SALESFORCE_SECURITY_TOKEN`` and
``SALESFORCE_DOMAIN`` (login, test or a My Domain), or ``SALESFORCE_INSTANCE_URL`` with
``SALESFORCE_SESSION_ID``. Both go through unmodified simple-salesforce. ``SALESFORCE_*`` set without
``CRMARENA_TARGET`` is refused (AmbiguousTarget): the user meant one org or the other, and guessing
either way would evaluate (or push into) the wrong one.

Every request to the org has a timeout (``CRMARENA_ORG_TIMEOUT`` seconds, 30 by default, the SOAP
login included), so an org that accepts connections and never answers stops a run with a clear
message instead of hanging it.

On the mock each session follows its instance's "today" (the mock-only clock resource); a real org
has one clock, so there ``TODAY`` and ``LAST_N_DAYS:n`` mean the real date.

``crmarena conformance`` opens two targets at once, each from its own settings
(``TargetSettings.for_side``) rather than from CRMARENA_TARGET.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from simple_salesforce import Salesforce

from fixtures.dump import DB_FILE, sha256_of

from ..errors import InfraError
from ..tools.toolbox import org_failure

TARGETS = ("mock", "salesforce")
API_VERSION = "59.0"
PREFLIGHT_QUERY = "SELECT Id FROM User LIMIT 1"
DEFAULT_ORG_TIMEOUT = 30.0  # seconds per org request (CRMARENA_ORG_TIMEOUT, --org-timeout)
ORG_RETRIES = 2  # retries of a read that could not connect or got 502/503/504, within an attempt
REAL_ORG_VARIABLES = ("SALESFORCE_USERNAME", "SALESFORCE_INSTANCE_URL", "SALESFORCE_SESSION_ID")


class TargetUnavailable(Exception):
    """The org cannot be used at all: the run stops before any model is called."""


class AmbiguousTarget(Exception):
    """SALESFORCE_* names a real org but CRMARENA_TARGET does not choose it: a setting to fix (exit 2)."""


@dataclass(frozen=True)
class TargetSettings:
    kind: str = "mock"
    mock_url: str | None = None
    db: Path | None = None
    timeout: float = DEFAULT_ORG_TIMEOUT
    ui_console: bool = True  # a private mock serves its query console page (the UI agents' --ui-console)

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] = os.environ, db: Path | None = None, timeout: float | None = None
    ) -> TargetSettings:
        """The target CRMARENA_TARGET names; ``timeout`` (else CRMARENA_ORG_TIMEOUT) bounds each request."""
        chosen = (env.get("CRMARENA_TARGET") or "").strip().lower()
        if not chosen:
            real = [name for name in REAL_ORG_VARIABLES if env.get(name)]
            if real:
                raise AmbiguousTarget(
                    f"{real[0]} is set but CRMARENA_TARGET is not: set CRMARENA_TARGET=salesforce to use that real "
                    "org, or CRMARENA_TARGET=mock to use the mock org"
                )
        kind = chosen or "mock"
        if kind not in TARGETS:
            raise TargetUnavailable(f"CRMARENA_TARGET must be one of {', '.join(TARGETS)}, not {kind!r}")
        if kind == "salesforce" and db is not None:
            raise TargetUnavailable("--db names a dump for the mock org; CRMARENA_TARGET=salesforce uses a real org")
        return cls(kind, env.get("CRMARENA_MOCK_URL") or None, db, org_timeout(env) if timeout is None else timeout)

    @classmethod
    def for_side(
        cls, kind: str, env: Mapping[str, str] = os.environ, *, db: Path | None = None, mock_url: str | None = None
    ) -> TargetSettings:
        """One side of a comparison (``crmarena conformance``), its kind named by the caller rather than by
        CRMARENA_TARGET. A mock side serves ``db``, else uses the mock at ``mock_url`` or CRMARENA_MOCK_URL,
        else a private copy of the default org; a salesforce side reads the SALESFORCE_* variables."""
        if kind not in TARGETS:
            raise TargetUnavailable(f"a target is one of {', '.join(TARGETS)}, not {kind!r}")
        timeout = org_timeout(env)
        if kind == "salesforce":
            if db is not None or mock_url:
                raise TargetUnavailable("a dump or a mock URL names a mock org; a salesforce side reads SALESFORCE_*")
            return cls(kind, timeout=timeout)
        if db is not None:
            return cls(kind, None, db, timeout)
        return cls(kind, mock_url or env.get("CRMARENA_MOCK_URL") or None, timeout=timeout)


def org_timeout(env: Mapping[str, str] = os.environ) -> float:
    """CRMARENA_ORG_TIMEOUT in seconds (a number above 0), else the default."""
    text = env.get("CRMARENA_ORG_TIMEOUT")
    if not text:
        return DEFAULT_ORG_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise TargetUnavailable(f"CRMARENA_ORG_TIMEOUT must be a number of seconds above 0, not {text!r}")
    return value


# A connector makes a logged-in client; ``retries`` is how often its reads are retried (0 for the pre-flight).
Connector = Callable[[int], Salesforce]


class Target:
    """A connected org: new sessions on demand, the per-session clock where there is one."""

    def __init__(
        self,
        kind: str,
        url: str,
        connector: Connector,
        *,
        clock: bool,
        org_sha256: str | None,
        timeout: float = DEFAULT_ORG_TIMEOUT,
        name: str | None = None,
    ) -> None:
        self.kind, self.url, self._connect = kind, url, connector
        self.has_clock = clock
        self.org_sha256 = org_sha256
        self.timeout = timeout
        self.name = name or f"{kind} org at {url}"  # what the run says it runs against

    def connect(self) -> Salesforce:
        """A new session (one per worker, so that each can have its own clock)."""
        try:
            return self._connect(ORG_RETRIES)
        except Exception as error:  # login failures of every kind: the client's, the network's
            raise _infra(error, self.timeout) from error

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
            raise _infra(error, self.timeout) from error

    def preflight(self) -> Salesforce:
        """Log in and run one query before any model is called, without retries (a stalled org ends it
        after one timeout); a failure stops the run with the reason."""
        try:
            sf = self._connect(0)
            sf.query(PREFLIGHT_QUERY)
        except Exception as error:
            raise TargetUnavailable(f"the {self.name} cannot be used: {_infra(error, self.timeout)}") from error
        return sf

    def ui_console_served(self, sf: Salesforce) -> bool:
        """Whether the org's pages include the query console: the run's session opens the UI through
        frontdoor.jsp and asks for the console page (a mock served with --ui-console off answers 404)."""
        session = requests.Session()
        session.trust_env = False
        session.verify = sf.session.verify
        try:
            answer = session.get(
                f"https://{sf.sf_instance}/secur/frontdoor.jsp",
                params={"sid": sf.session_id, "retURL": "/lightning/setup/query"},
                timeout=self.timeout,
            )
        except requests.RequestException as error:
            raise TargetUnavailable(
                f"the {self.name}'s pages cannot be reached: {_infra(error, self.timeout)}"
            ) from error
        finally:
            session.close()
        return answer.status_code == 200 and "/lightning/setup/query" in answer.url

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "url": self.url,
            "api_version": API_VERSION,
            "per_session_clock": self.has_clock,
            "org_sha256": self.org_sha256,
            "timeout": self.timeout,
        }


def _infra(error: BaseException, timeout: float) -> InfraError:
    if isinstance(error, requests.Timeout):
        return InfraError(
            f"the org did not answer within {timeout:g} s (--org-timeout or CRMARENA_ORG_TIMEOUT)", source="org"
        )
    return org_failure(error) or InfraError(f"{type(error).__name__}: {error}", source="org")


@contextmanager
def open_target(settings: TargetSettings, env: Mapping[str, str] = os.environ) -> Iterator[Target]:
    if settings.kind == "salesforce":
        yield _salesforce(env, settings.timeout)
    elif settings.mock_url:
        yield _running_mock(settings.mock_url, env, settings.timeout)
    else:
        with _private_mock(settings.db, settings.timeout, settings.ui_console) as target:
            yield target


@contextmanager
def _private_mock(db: Path | None, timeout: float, ui_console: bool = True) -> Iterator[Target]:
    from fixtures import default_org
    from mock_org.client import connect
    from mock_org.server.serve import serve_org
    from mock_org.server.settings import Settings

    source = Path(db) if db is not None else default_org()
    if source.is_dir():  # a dump's folder, as `crmarena serve --db DIR` takes it
        source = source / DB_FILE
    if not source.is_file():
        raise TargetUnavailable(f"no org dump at {source}")
    digest = sha256_of(source)
    with serve_org(source, read_only=True, settings=Settings(ui_console=ui_console)) as running:

        def connector(retries: int) -> Salesforce:
            return connect(
                running.url,
                username=running.username,
                password=running.password,
                security_token=running.security_token,
                ca_bundle=running.ca_bundle,
                version=API_VERSION,
                timeout=timeout,
                retries=retries,
            )

        yield Target(
            "mock",
            running.url,
            connector,
            clock=True,
            org_sha256=digest,
            timeout=timeout,
            name=f"mock org (a private read-only copy of {source})",
        )


def _running_mock(url: str, env: Mapping[str, str], timeout: float) -> Target:
    from mock_org.client import connect

    # The mock's CA: CRMARENA_CA_BUNDLE, or the REQUESTS_CA_BUNDLE a client of `crmarena serve` exports.
    bundle = env.get("CRMARENA_CA_BUNDLE") or env.get("REQUESTS_CA_BUNDLE") or None

    def connector(retries: int) -> Salesforce:
        return connect(url, ca_bundle=bundle, version=API_VERSION, timeout=timeout, retries=retries)

    return Target(
        "mock",
        url,
        connector,
        clock=True,
        org_sha256=None,
        timeout=timeout,
        name=f"mock org at {url} (CRMARENA_MOCK_URL)",
    )


def _salesforce(env: Mapping[str, str], timeout: float) -> Target:
    from mock_org.client import TimeoutSession

    instance_url, session_id = env.get("SALESFORCE_INSTANCE_URL"), env.get("SALESFORCE_SESSION_ID")
    username = env.get("SALESFORCE_USERNAME")
    if instance_url and session_id:

        def connector(retries: int) -> Salesforce:
            return Salesforce(
                instance_url=instance_url,
                session_id=session_id,
                version=API_VERSION,
                session=TimeoutSession(timeout, retries),
            )

        return Target(
            "salesforce",
            instance_url,
            connector,
            clock=False,
            org_sha256=None,
            timeout=timeout,
            name=f"real Salesforce org at {instance_url} (CRMARENA_TARGET=salesforce)",
        )
    if not username or env.get("SALESFORCE_PASSWORD") is None:
        raise TargetUnavailable(
            "CRMARENA_TARGET=salesforce needs SALESFORCE_USERNAME, SALESFORCE_PASSWORD and SALESFORCE_SECURITY_TOKEN "
            "(and SALESFORCE_DOMAIN for a sandbox or My Domain), or SALESFORCE_INSTANCE_URL and SALESFORCE_SESSION_ID"
        )
    domain = env.get("SALESFORCE_DOMAIN") or "login"

    def login(retries: int) -> Salesforce:
        return Salesforce(
            username=username,
            password=env["SALESFORCE_PASSWORD"],
            security_token=env.get("SALESFORCE_SECURITY_TOKEN", ""),
            domain=domain,
            version=API_VERSION,
            session=TimeoutSession(timeout, retries),
        )

    url = f"https://{domain}.salesforce.com"
    return Target(
        "salesforce",
        url,
        login,
        clock=False,
        org_sha256=None,
        timeout=timeout,
        name=f"real Salesforce org at {url} as {username} (CRMARENA_TARGET=salesforce)",
    )

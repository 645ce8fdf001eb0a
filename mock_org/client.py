"""``connect()``: a logged-in simple-salesforce client for a running mock org, in one line of harness code.

Everything has a default that matches ``crmarena serve`` started with no options, and each can be
overridden by an argument or an environment variable: CRMARENA_URL, CRMARENA_USERNAME,
CRMARENA_PASSWORD, CRMARENA_SECURITY_TOKEN, CRMARENA_SESSION_ID and CRMARENA_CA_BUNDLE.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from simple_salesforce import Salesforce
from urllib3.util.retry import Retry

from . import auth
from .auth import AuthConfig, admin_secrets

DEFAULT_URL = "https://127.0.0.1:8443"


def connect(
    url: str | None = None,
    *,
    username: str | None = None,
    password: str | None = None,
    security_token: str | None = None,
    session_id: str | None = None,
    ca_bundle: str | Path | None = None,
    version: str = "59.0",
    timeout: float | None = None,
    retries: int = 0,
) -> Salesforce:
    """Log in with the SOAP login CRMArena uses (username, password, token), or reuse ``session_id``.

    A password or token not given is the one the server derives for the user (mock_org.auth), or the
    administrator's from CRMARENA_ADMIN_PASSWORD / CRMARENA_SECURITY_TOKEN. The client trusts the
    mock's CA through its own requests session, so the process's other HTTPS traffic is unaffected.
    With ``timeout``, every request (the login included) gives up after that many seconds without an
    answer, and ``retries`` retries reads that failed on the way (TimeoutSession).
    """
    from .server.http import tls

    url = url or os.environ.get("CRMARENA_URL") or DEFAULT_URL
    host = urlsplit(url).netloc
    session = TimeoutSession(timeout, retries) if timeout is not None else requests.Session()
    session.trust_env = False  # else REQUESTS_CA_BUNDLE, when set, would override ``verify`` below
    session.verify = str(ca_bundle or os.environ.get("CRMARENA_CA_BUNDLE") or tls.ensure().bundle)
    session_id = session_id or os.environ.get("CRMARENA_SESSION_ID")
    if session_id and not username:
        return Salesforce(instance_url=url, session_id=session_id, session=session, version=version)
    username, password, security_token = _credentials(username, password, security_token)
    return Salesforce(
        username=username,
        password=password,
        security_token=security_token,
        domain=f"{host}/login",  # simple-salesforce posts to https://{domain}.salesforce.com/services/Soap/u/…
        session=session,
        version=version,
    )


class TimeoutSession(requests.Session):
    """A requests session that never waits for ever: every request has ``timeout`` seconds to connect
    and ``timeout`` seconds between bytes of the answer, and reads (GET: queries, describes) that could
    not connect or were answered 502, 503 or 504 are retried ``retries`` times with a short backoff
    (urllib3's Retry). A request that was sent and got no answer is not retried: a stalled org ends a
    call after one timeout, not several."""

    def __init__(self, timeout: float, retries: int = 0) -> None:
        super().__init__()
        self.timeout = timeout
        if retries:
            retry = Retry(
                total=retries,
                connect=retries,
                read=False,
                status=retries,
                other=0,
                backoff_factor=0.5,
                status_forcelist=(502, 503, 504),
                allowed_methods=frozenset({"GET", "HEAD"}),
                raise_on_status=False,
            )
            for prefix in ("https://", "http://"):
                self.mount(prefix, HTTPAdapter(max_retries=retry))

    def request(self, method: str, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = self.timeout
        return super().request(method, url, *args, **kwargs)


def _credentials(username: str | None, password: str | None, token: str | None) -> tuple[str, str, str]:
    username = username or os.environ.get("CRMARENA_USERNAME") or os.environ.get("CRMARENA_ADMIN_USERNAME")
    if not username:
        raise ValueError("connect() needs a username: pass one or set CRMARENA_USERNAME (crmarena serve prints it)")
    config = AuthConfig.from_env()
    if config.admin_username and config.admin_username.casefold() == username.casefold():
        default_password, default_token = admin_secrets(config, username)
    else:
        default_password, default_token = auth.default_password(username), auth.default_security_token(username)
    password = password or os.environ.get("CRMARENA_PASSWORD") or default_password
    if token is None:
        token = os.environ.get("CRMARENA_SECURITY_TOKEN", default_token)
    return username, password, token

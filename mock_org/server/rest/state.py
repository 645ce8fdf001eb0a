"""What the handlers share: the org, the authenticator, the usage counter and the jobs of both Bulk APIs
of one app, and the current request's session. Handlers keep no state of their own."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, g, request
from werkzeug.datastructures import Headers

from ...auth import Authenticator, Session
from ...clock import OrgClock
from ...org import Org
from ...shared import SharedState
from ..bulk.v1_jobs import Bulk1Jobs
from ..bulk.v2_jobs import JobStore
from ..settings import Settings
from .usage import ApiUsage

EXTENSION = "crmarena"


@dataclass
class ServerState:
    org: Org
    settings: Settings
    auth: Authenticator
    usage: ApiUsage
    jobs: JobStore  # Bulk API 2.0
    bulk1: Bulk1Jobs  # Bulk API 1.0
    shared: SharedState  # where all of these keep what changes (shared.py)


def state() -> ServerState:
    return current_app.extensions[EXTENSION]


def org() -> Org:
    return state().org


def session() -> Session:
    """The session that authenticated this request (set before every protected handler runs)."""
    return g.session


def user_id() -> str:
    return session().user.id


def session_clock() -> OrgClock | None:
    """The clock this session set through the mock-only clock resource; None means the org's."""
    return session().clock


def access_token(*, allow_query: bool = False) -> str | None:
    """The bearer token of the request: ``Authorization: Bearer|OAuth …``, ``X-SFDC-Session``, or, for
    the identity URL only, ``?oauth_token=``."""
    token = header_token(request.headers)
    if token is None and allow_query:
        return request.args.get("oauth_token")
    return token


def header_token(headers: Headers) -> str | None:
    """The bearer token in a request's headers, if any."""
    scheme, _, token = headers.get("Authorization", "").partition(" ")
    if scheme.lower() in ("bearer", "oauth") and token.strip():
        return token.strip()
    session_header = headers.get("X-SFDC-Session", "").strip()
    return session_header or None


def base_url() -> str:
    """``scheme://host[:port]`` as the client reached us; absolute URLs in responses start with it."""
    return request.host_url.rstrip("/")

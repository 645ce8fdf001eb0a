"""``create_app(org, settings)``: the only Flask factory. It binds the URL table, checks the session of
every protected request, counts it against the API allowance and stamps ``Sforce-Limit-Info``; and it
readies the query parsers, so that a new server's first query costs what any other does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask, Response, g, request
from werkzeug.datastructures import EnvironHeaders
from werkzeug.exceptions import RequestEntityTooLarge

import soql_parser

from ..auth import Authenticator
from ..org import Org
from ..shared import LocalState, SharedState
from .bulk.v1_jobs import Bulk1Jobs
from .bulk.v2_jobs import JobStore
from .http.wsgi import TOO_LARGE
from .rest import errors
from .rest.routes import CONVERTERS, ROUTES, endpoint
from .rest.state import EXTENSION, ServerState, access_token, header_token, state
from .rest.usage import ApiUsage
from .settings import Settings
from .ui import register as register_ui

PROTECTED = frozenset(endpoint(route) for route in ROUTES if route.protected)


def create_app(org: Org, settings: Settings | None = None, shared: SharedState | None = None) -> Flask:
    """``shared`` is where sessions, cursors, jobs and counts live: this process's memory unless the
    app is one of several workers (workers.py), which share a state file."""
    settings = settings or Settings()
    soql_parser.warm()
    if shared is not None:
        org.queries.cursors.keep_in(shared)  # a cursor opened on one worker pages on any other
    shared = shared or LocalState()
    limits = settings.limits
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = limits.max_body_bytes
    app.url_map.converters.update(CONVERTERS)
    auth = Authenticator(org.storage, settings.auth, state=shared)
    org.permissions.grant_manage_users(auth.admin.id)  # the administrator the server prints manages users
    org.queries.cursors.per_user, org.queries.cursors.idle_seconds = limits.cursors_per_user, limits.cursor_idle_seconds
    usage = ApiUsage(limits.daily_api_requests, state=shared)
    jobs = JobStore(org, shared, limits), Bulk1Jobs(org, shared, limits)
    app.extensions[EXTENSION] = ServerState(org, settings, auth, usage, *jobs, shared)
    for route in ROUTES:
        # Both spellings, never a redirect: clients differ on the trailing slash (rest/routes.py).
        for rule in {route.rule, route.rule.rstrip("/") or "/"}:
            app.add_url_rule(rule, endpoint(route), route.view, methods=list(route.methods))
    register_ui(app)  # the org in a browser (server/ui), on the same Org and Authenticator
    app.before_request(_authenticate)
    app.after_request(_limit_info)
    errors.register(app)
    return app


def session_check(app: Flask) -> Callable[[dict[str, Any]], bool]:
    """Whether a request carries a live session, judged from its headers before its body is read: the
    front then allows it the full body limit and counts its connection among the authenticated."""
    auth = app.extensions[EXTENSION].auth

    def authenticated(environ: dict[str, Any]) -> bool:
        return auth.has_session(header_token(EnvironHeaders(environ)))

    return authenticated


def _authenticate() -> None:
    """A protected resource needs a live session (401 INVALID_SESSION_ID otherwise) and API allowance;
    anything else (the logins) takes a body of at most ``unauthenticated_body_bytes``."""
    if request.environ.get(TOO_LARGE):
        raise RequestEntityTooLarge()
    rule = request.url_rule
    if rule is None or rule.endpoint not in PROTECTED:
        request.max_content_length = state().settings.limits.unauthenticated_body_bytes
        return
    g.session = state().auth.verify(access_token())
    state().usage.count()


def _limit_info(response: Response) -> Response:
    if request.path.startswith("/services/data/") or request.path.startswith("/services/oauth2/userinfo"):
        response.headers["Sforce-Limit-Info"] = state().usage.header()
    return response

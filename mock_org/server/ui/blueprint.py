"""The UI blueprint and what every page shares: the session guard, the CSRF check on every POST, the
security headers, the template context and the error pages (HTML here, never the API's JSON)."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any
from urllib.parse import quote

from flask import Blueprint, g, redirect, render_template, request
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from ...clock import OrgClock
from ...errors import SalesforceError
from ..rest.errors import status_of
from ..rest.state import org, state
from . import display, forms, sessions
from .catalog import ObjectInfo
from .state import ui_state

log = logging.getLogger(__name__)

blueprint = Blueprint(
    "ui", __name__, template_folder="templates", static_folder="static", static_url_path="/lightning/static"
)
PUBLIC = frozenset({"ui.login", "ui.frontdoor", "ui.static", "ui.logout"})
# The tabs of the navigation bar (those the org has: a B2B org adds its sales objects); the others are under "More".
TABS = ("Account", "Contact", "Case", "Knowledge__kav", "Product2", "Order", "Lead", "Opportunity", "Quote", "Contract")
# Only this server's own files: no inline script or style, no other origin (record text stays inert).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
CSRF_MESSAGE = "This form has expired or did not come from this org. Reload the page and try again."
TOASTS = {
    "created": "The record was created.",
    "saved": "Your changes were saved.",
    "deleted": "The record was deleted.",
}


@blueprint.before_request
def guard() -> Response | None:
    """A page needs a live session (else the login page, which brings the user back); a POST needs the
    session's CSRF token (the login form checks its own)."""
    if request.endpoint in PUBLIC:
        return None
    if sessions.current() is None:
        target = quote(request.full_path.rstrip("?"), safe="/?=&")
        return redirect(f"/?startURL={target}", 302)
    if request.method == "POST" and not sessions.csrf_ok():
        return page_error(403, CSRF_MESSAGE)
    return None


@blueprint.after_request
def headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"
    if request.endpoint != "ui.static":
        response.headers["Cache-Control"] = "no-store"
    return sessions.remember_login_nonce(response)


def zone() -> dt.tzinfo:
    """The signed-in user's time zone, in which every datetime on the page is shown."""
    if "ui_zone" not in g:
        session = sessions.current()
        g.ui_zone = display.zone_of(session.user.timezone if session else None)
    return g.ui_zone


def session_clock() -> OrgClock | None:
    """The "today" the signed-in session carries (from frontdoor.jsp, see account.py), else the org's."""
    session = sessions.current()
    return session.clock if session else None


def show(info: ObjectInfo, field: dict[str, Any], value: Any) -> Any:
    return display.show(info, field, value, zone())


@blueprint.context_processor
def context() -> dict[str, Any]:
    session = sessions.current()
    catalog = ui_state().catalog
    tabs = [catalog.get(name) for name in TABS if name in catalog.main]
    more = [catalog.get(name) for name in catalog.main if name not in TABS]
    return {
        "me": session.user if session else None,
        "csrf_token": sessions.csrf_token,
        "csrf_field": sessions.CSRF_FIELD,
        "org_name": state().auth.org.name,
        "read_only": org().read_only,
        "console": state().settings.ui_console,
        "tabs": tabs,
        "more_tabs": more,
        "show": show,
        "record_link": display.record_link,
        "cell": lambda column, value, title, record=None: display.cell(
            column, value, title, record, zone(), catalog.object_of
        ),
        "when": lambda wire: display.moment(wire, zone()) if wire else "",
        "chat_when": lambda stamp: display.chat_moment(stamp, zone()),
        "object_of": catalog.object_of,
        "toast": TOASTS.get(request.args.get("toast", "")),
        "input_type": forms.input_type,
        "required": forms.required,
        "input_value": lambda field, value: forms.input_value(field, value, zone()),
    }


def page_error(status: int, message: str, code: str | None = None) -> Response:
    body = render_template("ui/error.html", status=status, message=message, code=code)
    return Response(body, status=status, content_type="text/html; charset=utf-8")


@blueprint.errorhandler(SalesforceError)
def salesforce_error(error: SalesforceError) -> Response:
    return page_error(status_of(error), error.message, error.error_code)


@blueprint.errorhandler(HTTPException)
def http_error(error: HTTPException) -> Response:
    status = error.code or 500
    message = "This page does not exist." if status == 404 else error.description or error.name
    return page_error(status, message)


@blueprint.errorhandler(Exception)
def unexpected_error(error: Exception) -> Response:
    log.exception("unexpected error on %s %s", request.method, request.path, exc_info=error)
    return page_error(500, "Something went wrong on the server; the error is in its log.")

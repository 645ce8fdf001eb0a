"""Getting in and out: the login page (the API's users and passwords, checked by the same
Authenticator), ``/secur/frontdoor.jsp?sid=…`` (an API session opens the UI, as on a real org) and
``/secur/logout.jsp``."""

from __future__ import annotations

from flask import redirect, render_template, request
from werkzeug.wrappers import Response

from ...auth import INVALID_LOGIN_MESSAGE, InvalidLogin
from ...errors import InvalidSessionId
from ..rest.state import state
from . import sessions
from .blueprint import CSRF_MESSAGE, blueprint, page_error


def _login_page(message: str | None = None, status: int = 200, notice: str | None = None) -> Response:
    start_url = request.values.get("startURL") or request.values.get("retURL") or ""
    body = render_template(
        "ui/login.html",
        message=message,
        notice=notice,
        start_url=start_url,
        username=request.form.get("username", ""),
        login_token=sessions.login_form_token(),
    )
    return Response(body, status=status, content_type="text/html; charset=utf-8")


@blueprint.route("/", methods=["GET", "POST"], endpoint="login")
def login() -> Response:
    """The org's login page, at the root as on a real org; a signed-in user goes straight home."""
    if request.method == "GET":
        if sessions.current() is not None:
            return redirect(sessions.local_target(request.args.get("startURL")), 302)
        return _login_page(notice="You have logged out." if request.args.get("loggedOut") else None)
    if not sessions.login_csrf_ok():
        return _login_page("Your login page expired. Please try again.", 403)
    try:
        user = state().auth.authenticate(
            request.form.get("username", ""), request.form.get("password", ""), request.remote_addr or ""
        )
    except InvalidLogin:
        return _login_page(f"Please check your username and password. {INVALID_LOGIN_MESSAGE}", 401)
    response = redirect(sessions.local_target(request.form.get("startURL")), 302)
    return sessions.start(response, state().auth.issue(user))


@blueprint.route("/secur/frontdoor.jsp", methods=["GET", "POST"], endpoint="frontdoor")
def frontdoor() -> Response:
    """An API session id opens a UI session of the same user (its own session, so logging out of the
    UI leaves the API session alone, with the same "today" when the API session set one through the
    mock-only clock resource), then goes to ``retURL``. The id may come in the query string or,
    kept out of URLs and logs, in a POSTed form, as a real org accepts it."""
    try:
        session = state().auth.verify(request.values.get("sid"))
    except InvalidSessionId:
        return _login_page("Your session has expired or is invalid. Please log in.", 401)
    response = redirect(sessions.local_target(request.values.get("retURL")), 302)
    return sessions.start(response, state().auth.issue(session.user, clock=session.clock))


@blueprint.route("/secur/logout.jsp", methods=["GET", "POST"], endpoint="logout")
def logout() -> Response:
    """GET asks (a link must not log anyone out behind their back); POST, with the form's token, ends
    the session for good: the cookie is refused from then on, even if a copy of it is replayed."""
    session = sessions.current()
    if session is None:
        return sessions.end(redirect("/?loggedOut=1", 302))
    if request.method == "GET":
        return Response(render_template("ui/logout.html"), content_type="text/html; charset=utf-8")
    if not sessions.csrf_ok():
        return page_error(403, CSRF_MESSAGE)
    state().auth.revoke(sessions.token())
    return sessions.end(redirect("/?loggedOut=1", 302))

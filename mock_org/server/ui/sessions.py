"""Who is looking at the pages: the ``sid`` cookie, its CSRF token, and where to send someone after login.

A UI session is an ordinary session of the server's Authenticator (the same users, passwords,
idle timeout and revocation as the API); the cookie holds its token, as a real org's ``sid`` cookie
does. The cookie is HttpOnly, SameSite=Lax and, on HTTPS, Secure. Every POST carries a CSRF token:
an HMAC of the session token under a key that lives only in this server's memory, so a token (or
a cookie) made by one server copy means nothing to another. The login form, which has no session
yet, is bound the same way to a random nonce kept in its own short-lived cookie.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from flask import g, request
from werkzeug.wrappers import Response

from ...auth import Session
from ...errors import InvalidSessionId
from ..rest.state import state
from .state import ui_state

SESSION_COOKIE = "sid"
LOGIN_COOKIE = "login_nonce"
CSRF_FIELD = "csrf_token"
HOME = "/lightning/page/home"


def current() -> Session | None:
    """The live session named by this request's ``sid`` cookie (verifying it keeps it alive)."""
    if "ui_session" not in g:
        token = request.cookies.get(SESSION_COOKIE)
        try:
            g.ui_session = state().auth.verify(token) if token else None
        except InvalidSessionId:
            g.ui_session = None
    return g.ui_session


def user_id() -> str:
    """The signed-in user's Id, on a page behind the blueprint's guard (which sends anyone else to log in)."""
    session = current()
    assert session is not None, "the guard lets no request without a session reach a page"
    return session.user.id


def token() -> str:
    return request.cookies.get(SESSION_COOKIE, "")


def csrf_token() -> str:
    """The token every form of this session carries."""
    return ui_state().keys.sign("session", token())


def csrf_ok() -> bool:
    return ui_state().keys.check("session", token(), request.form.get(CSRF_FIELD, ""))


def login_form_token() -> str:
    """The login form's token, bound to this browser's nonce cookie (made now if it has none)."""
    nonce = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(24)
    g.login_nonce = nonce
    return ui_state().keys.sign("login", nonce)


def login_csrf_ok() -> bool:
    nonce = request.cookies.get(LOGIN_COOKIE, "")
    return bool(nonce) and ui_state().keys.check("login", nonce, request.form.get(CSRF_FIELD, ""))


def start(response: Response, session_token: str) -> Response:
    """Hand the browser its session cookie (and drop the login nonce)."""
    response.set_cookie(
        SESSION_COOKIE, session_token, httponly=True, samesite="Lax", secure=request.is_secure, path="/"
    )
    response.delete_cookie(LOGIN_COOKIE, path="/")
    return response


def end(response: Response) -> Response:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="Lax", secure=request.is_secure)
    return response


def remember_login_nonce(response: Response) -> Response:
    """Set the login form's nonce cookie when this request made a new one."""
    nonce = g.get("login_nonce")
    if nonce and nonce != request.cookies.get(LOGIN_COOKIE):
        response.set_cookie(
            LOGIN_COOKIE, nonce, max_age=3600, httponly=True, samesite="Strict", secure=request.is_secure, path="/"
        )
    return response


def local_target(url: str | None) -> str:
    """``retURL``/``startURL`` if it is a path on this server, else the home page (no open redirects)."""
    if not url or not url.startswith("/") or url.startswith("//") or "\\" in url:
        return HOME
    if any(ord(char) < 0x21 or ord(char) == 0x7F for char in url):  # browsers drop tabs and newlines: "/\t/x"
        return HOME
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return HOME
    return url

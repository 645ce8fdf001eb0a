"""``/sobjects/User/{id}/password``: get a password's expiry, set a password, or reset it.

Only a user with "Manage Users" (permissions.py) may; anyone else gets 403 INSUFFICIENT_ACCESS, as
the REST API Developer Guide ("Manage User Passwords") shows. A read-only org refuses to set or
reset a password as it refuses every other write. Passwords are checked against an org's
default policy and kept, hashed, for the life of the server.
"""

from __future__ import annotations

from flask import Response, request

from ....auth import User
from ....errors import InsufficientAccess, JsonParserError, NotFound
from ..body import read_object
from ..state import org, state, user_id
from ..wire import json_response, no_content


def password(version: str, user_ref: str) -> Response:
    auth = state().auth
    target = _user(user_ref)
    if request.method != "GET":
        org().check_writable()
    if request.method == "POST":
        new = read_object().get("NewPassword")
        if new is not None and not isinstance(new, str):
            raise JsonParserError("Cannot deserialize value of type `String` from the NewPassword given")
        auth.set_password(target, new or "")
        return no_content()
    if request.method == "DELETE":
        return json_response({"NewPassword": auth.reset_password(target)})
    return json_response({"isExpired": False})


def _user(user_ref: str) -> User:
    if not org().manages_users(user_id()):
        raise InsufficientAccess("You do not have permission to view this record.")
    found = state().auth.directory.by_id(user_ref)
    if found is None:
        raise NotFound("The requested resource does not exist")
    return found

"""What a client asks before or beside the data: versions, the resource map, limits, userinfo and identity."""

from __future__ import annotations

from typing import Any

from flask import Response, request

from ....auth import User
from ....errors import InsufficientAccess, InvalidSessionId
from ..state import access_token, base_url, org, session, state
from ..wire import json_response

RESOURCES = (
    "tooling",
    "metadata",
    "eclair",
    "folders",
    "prechatForms",
    "contact-tracing",
    "jsonxform",
    "chatter",
    "tabs",
    "appMenu",
    "quickActions",
    "queryAll",
    "commerce",
    "wave",
    "iot",
    "analytics",
    "search",
    "identity",
    "composite",
    "parameterizedSearch",
    "fingerprint",
    "theme",
    "nouns",
    "domino",
    "event",
    "serviceTemplates",
    "recent",
    "connect",
    "licensing",
    "limits",
    "process",
    "async-queries",
    "query",
    "match",
    "emailConnect",
    "compactLayouts",
    "knowledgeManagement",
    "sobjects",
    "actions",
    "support",
)


def versions() -> Response:
    """``GET /services/data``: needs no session (the sf CLI reads it to pick its API version)."""
    return json_response(state().settings.versions())


def resources(version: str) -> Response:
    """``GET /services/data/vNN.N``: the resource map; jsforce's ``identity()`` follows its ``identity`` URL."""
    user = session().user
    body = {}
    for name in RESOURCES:
        body[name] = _identity_url(user) if name == "identity" else f"/services/data/v{version}/{name}"
    return json_response(body)


def recent(version: str) -> Response:
    """``GET /recent``: the user's recently viewed records. Records become recently viewed in the
    Salesforce UI (or through SOQL's FOR VIEW, which the API refuses here), so an org used only through
    the API has none, as its ``sobjects/{Object}`` ``recentItems`` say too."""
    return json_response([])


def limits(version: str) -> Response:
    return json_response(state().usage.limits())


def record_count(version: str) -> Response:
    """``GET /limits/recordCount[?sObjects=A,B]`` (REST API v40.0+): record counts per object."""
    names = request.args.get("sObjects")
    chosen = [name.strip() for name in names.split(",") if name.strip()] if names is not None else None
    return json_response(org().record_counts(chosen))


def _identity_url(user: User) -> str:
    return f"{base_url()}/id/{state().auth.org.id}/{user.id}"


def _urls(user: User) -> dict[str, str]:
    base, org_id = base_url(), state().auth.org.id15
    rest = f"{base}/services/data/v{{version}}/"
    return {
        "enterprise": f"{base}/services/Soap/c/{{version}}/{org_id}",
        "metadata": f"{base}/services/Soap/m/{{version}}/{org_id}",
        "partner": f"{base}/services/Soap/u/{{version}}/{org_id}",
        "rest": rest,
        "sobjects": rest + "sobjects/",
        "search": rest + "search/",
        "query": rest + "query/",
        "recent": rest + "recent/",
        "tooling_soap": f"{base}/services/Soap/T/{{version}}/{org_id}",
        "tooling_rest": rest + "tooling/",
        "profile": f"{base}/{user.id}",
        "feeds": rest + "chatter/feeds",
        "groups": rest + "chatter/groups",
        "users": rest + "chatter/users",
        "feed_items": rest + "chatter/feed-items",
        "feed_elements": rest + "chatter/feed-elements",
        "custom_domain": base,
    }


def _person(user: User) -> dict[str, Any]:
    return {
        "user_id": user.id,
        "organization_id": state().auth.org.id,
        "email": user.email,
        "email_verified": True,
        "active": user.active,
        "user_type": "STANDARD",
        "language": user.language,
        "locale": user.locale,
        "timezone": user.timezone,
        "urls": _urls(user),
        "is_app_installed": True,
    }


def userinfo() -> Response:
    """``GET /services/oauth2/userinfo``: OpenID Connect claims; the sf CLI needs user_id and organization_id."""
    user = session().user
    body = {
        "sub": _identity_url(user),
        "preferred_username": user.username,
        "nickname": user.username.split("@", 1)[0],
        "name": user.name,
        "given_name": user.first_name,
        "family_name": user.last_name,
        "zoneinfo": user.timezone,
        **_person(user),
    }
    return json_response(body)


def identity(org_id: str, user_id: str) -> Response:
    """``GET /id/{orgId}/{userId}``; the token may come as ``?oauth_token=`` (jsforce) or a Bearer header."""
    found = state().auth.verify(access_token(allow_query=True))
    user = found.user
    if user.id[:15] != user_id[:15] or state().auth.org.id[:15] != org_id[:15]:
        raise InsufficientAccess("Bad_Id")
    if not user.active:
        raise InvalidSessionId("Session expired or invalid")
    body = {
        "id": _identity_url(user),
        "asserted_user": True,
        "username": user.username,
        "nick_name": user.username.split("@", 1)[0],
        "display_name": user.name,
        "first_name": user.first_name,
        "last_name": user.last_name,
        **_person(user),
    }
    return json_response(body)

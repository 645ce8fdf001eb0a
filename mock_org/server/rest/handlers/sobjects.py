"""``/sobjects``: describeGlobal, object metadata and describe, records by Id or external Id, writes,
and the deleted/updated ranges used for replication."""

from __future__ import annotations

import re

from flask import Response, request

from ....errors import InvalidReplicationDate, NotFound
from ..body import read_object
from ..state import org, user_id
from ..wire import json_response, no_content

# Upserts that update answer 200 with a body from API v46.0 on, and 204 before it.
UPSERT_BODY_SINCE = 46.0
_WHEN = re.compile(r"\s*(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)(Z|[+\- ]\d{2}:?\d{2})?")


def describe_global(version: str) -> Response:
    return json_response(org().describe_global(version=version))


def metadata(version: str, sobject: str) -> Response:
    return json_response(org().metadata(sobject, version=version))


def describe(version: str, sobject: str) -> Response:
    return json_response(org().describe(sobject, version=version))


def create(version: str, sobject: str) -> Response:
    record_id = org().create(sobject, read_object(), user_id=user_id())
    return json_response({"id": record_id, "success": True, "errors": []}, 201)


def retrieve(version: str, sobject: str, record_id: str) -> Response:
    fields = request.args.get("fields")
    chosen = [name for name in fields.split(",") if name.strip()] if fields else None
    return json_response(org().retrieve(sobject, record_id, fields=chosen, version=version))


def update(version: str, sobject: str, record_id: str) -> Response:
    org().update(sobject, record_id, read_object(), user_id=user_id())
    return no_content()


def delete(version: str, sobject: str, record_id: str) -> Response:
    org().delete(sobject, record_id, user_id=user_id())
    return no_content()


def describe_part(version: str, sobject: str, part: str) -> Response:
    """``describe/layouts``, ``describe/compactLayouts`` and the like: page layouts are UI metadata
    this org does not keep, so they answer as an unknown resource (not as an external Id lookup)."""
    org().sobject(sobject)
    raise NotFound("The requested resource does not exist")


def retrieve_by_external_id(version: str, sobject: str, field: str, value: str) -> Response:
    return json_response(org().retrieve_by_external_id(sobject, field, value, version=version))


def delete_by_external_id(version: str, sobject: str, field: str, value: str) -> Response:
    org().delete_by_external_id(sobject, field, value, user_id=user_id())
    return no_content()


def upsert(version: str, sobject: str, field: str, value: str) -> Response:
    record_id, created = org().upsert(sobject, field, value, read_object(), user_id=user_id())
    body = {"id": record_id, "success": True, "errors": [], "created": created}
    if created:
        return json_response(body, 201)
    return json_response(body, 200) if float(version) >= UPSERT_BODY_SINCE else no_content()


def _moment(name: str) -> str:
    """A ``start``/``end`` parameter; the tail simple-salesforce leaves on naive datetimes is ignored."""
    text = request.args.get(name)
    match = _WHEN.match(text or "")
    if match is None:
        raise InvalidReplicationDate(f"{name} parameter must be a valid dateTime: {text}")
    moment, zone = match.groups()
    if zone and zone[0] == " ":  # an unencoded '+' arrives as a space
        zone = "+" + zone[1:]
    return moment + (zone or "Z")


def deleted(version: str, sobject: str) -> Response:
    return json_response(org().deleted(sobject, _moment("start"), _moment("end")))


def updated(version: str, sobject: str) -> Response:
    return json_response(org().updated(sobject, _moment("start"), _moment("end")))

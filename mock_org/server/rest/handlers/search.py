"""``/search``: SOSL, always answered as ``{"searchRecords": [...]}`` (never the pre-v36 bare array)."""

from __future__ import annotations

from flask import Response, request

from ..state import org, session_clock, user_id
from ..wire import json_response


def search(version: str) -> Response:
    query_text = request.args.get("q") or ""
    return json_response(org().search(query_text, version=version, user_id=user_id(), clock=session_clock()))

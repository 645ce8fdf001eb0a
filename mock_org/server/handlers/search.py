"""``/search``: SOSL, always answered as ``{"searchRecords": [...]}`` (never the pre-v36 bare array)."""

from __future__ import annotations

from flask import Response, request

from ..state import org, user_id
from ..wire import json_response


def search(version: str) -> Response:
    return json_response(org().search(request.args.get("q") or "", version=version, user_id=user_id()))

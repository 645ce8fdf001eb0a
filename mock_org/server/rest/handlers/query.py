"""``/query`` and ``/queryAll``: SOQL results, their next pages, and column metadata (``?columns=true``)."""

from __future__ import annotations

import re

from flask import Response, request

from ..state import org, session_clock, user_id
from ..wire import json_response

_BATCH_SIZE = re.compile(r"batchSize\s*=\s*(\d+)", re.IGNORECASE)


def batch_size() -> int | None:
    """``Sforce-Query-Options: batchSize=N`` (a hint that the engine keeps within 200..2000)."""
    match = _BATCH_SIZE.search(request.headers.get("Sforce-Query-Options", ""))
    return int(match.group(1)) if match else None


def query(version: str, include_deleted: bool = False) -> Response:
    soql = request.args.get("q")
    if request.args.get("columns", "").lower() == "true":
        return json_response(org().query_columns(soql or "", user_id=user_id(), clock=session_clock()))
    result = org().query(
        soql or "",
        include_deleted=include_deleted,
        batch_size=batch_size(),
        version=version,
        user_id=user_id(),
        clock=session_clock(),
    )
    return json_response(result)


def query_all(version: str) -> Response:
    return query(version, include_deleted=True)


def query_more(version: str, locator: str) -> Response:
    """The page a ``nextRecordsUrl`` locator points at (under ``/query/`` or ``/queryAll/`` alike)."""
    return json_response(org().query_more(locator, version=version, user_id=user_id()))

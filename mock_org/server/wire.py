"""Response bodies as a real org writes them: JSON with Java's double formatting, and the content type.

Salesforce prints doubles with Java's ``Double.toString`` (``15000.0``, ``9.9213206E7``), which is
valid JSON that Python's json module cannot produce, so the encoder here is a small one of our own.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from flask import Response

from ..values import java_double

JSON_TYPE = "application/json;charset=UTF-8"


def dumps(value: Any) -> str:
    """``value`` as JSON text; key order is kept, because clients and CRMArena read it."""
    parts: list[str] = []
    _encode(value, parts.append)
    return "".join(parts)


def _encode(value: Any, write: Any) -> None:
    if isinstance(value, str):
        write(encode_basestring(value))
    elif value is None:
        write("null")
    elif value is True:
        write("true")
    elif value is False:
        write("false")
    elif isinstance(value, int):
        write(str(value))
    elif isinstance(value, float):
        write(java_double(value) if value == value and value not in (float("inf"), float("-inf")) else "null")
    elif isinstance(value, dict):
        write("{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                write(",")
            write(encode_basestring(str(key)))
            write(":")
            _encode(item, write)
        write("}")
    elif isinstance(value, (list, tuple)):
        write("[")
        for index, item in enumerate(value):
            if index:
                write(",")
            _encode(item, write)
        write("]")
    else:
        write(json.dumps(value))


def json_response(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(dumps(value), status=status, headers=headers, content_type=JSON_TYPE)


def no_content() -> Response:
    """204: what update, delete and a finished job deletion answer; no body and no content type."""
    response = Response(status=204)
    response.headers.pop("Content-Type", None)
    return response

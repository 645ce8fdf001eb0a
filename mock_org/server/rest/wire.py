"""Response bodies as a real org writes them: JSON with Java's double formatting, and the content type.

Salesforce prints doubles with Java's ``Double.toString`` (``15000.0``, ``9.9213206E7``), which is
valid JSON that Python's json module cannot produce; NaN and infinities go out as null. Python's
repr (and orjson, which writes the same shortest digits) agrees with Java for 0 and within [1e-3, 1e7)
— nearly every double an org holds — so orjson writes a value whose doubles all lie there (13× the
json module's C encoder on a 1,000-record page, and the same bytes), and a small encoder of our own
(``java_dumps``, the rules) the rare rest. Shaped query records say whether they hold such a double
(query/shape.py ``Records``), so a query result is not looked through.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

import orjson
from flask import Response

from ...query.shape import Records
from ...values import java_double, plain_double

JSON_TYPE = "application/json;charset=UTF-8"

# Key order kept (clients and CRMArena read it), non-ASCII as it is, no spaces: as a real org writes
# (orjson's defaults).
_PLAIN_SCALARS = (str, int, bool, type(None))  # exact types: subclasses go to the rules


def dumps_bytes(value: Any) -> bytes:
    """``value`` as UTF-8 JSON, as ``java_dumps`` writes it: by orjson when that gives the same bytes."""
    if _orjson_writes_as_java(value):
        try:
            return orjson.dumps(value)
        except TypeError:  # an int beyond 64 bits, a lone surrogate, nesting past 255 levels: the rules
            pass
    return java_dumps(value).encode()


def dumps(value: Any) -> str:
    """``value`` as JSON text, as ``java_dumps`` writes it."""
    return dumps_bytes(value).decode()


def _orjson_writes_as_java(value: Any) -> bool:
    """Whether orjson writes ``value`` byte for byte as ``java_dumps``: only str keys, no
    double outside plain_double's range, nothing but dicts, lists, tuples and JSON scalars."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = item.__class__
        if kind in _PLAIN_SCALARS:
            continue
        if kind is float:
            if not plain_double(item):
                return False
        elif kind is Records:
            if item.java_doubles:
                return False
        elif kind is dict:
            if not all(key.__class__ is str for key in item):
                return False
            pending.extend(item.values())
        elif kind is list or kind is tuple:
            pending.extend(item)
        else:
            return False
    return True


def java_dumps(value: Any) -> str:
    """The rules: ``value`` as JSON text with Java's doubles; key order is kept."""
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
    return Response(dumps_bytes(value), status=status, headers=headers, content_type=JSON_TYPE)


def no_content() -> Response:
    """204: what update, delete and a finished job deletion answer; no body and no content type."""
    response = Response(status=204)
    response.headers.pop("Content-Type", None)
    return response

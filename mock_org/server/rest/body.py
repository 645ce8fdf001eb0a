"""Request bodies: JSON as the REST API reads it, with its errors for bad JSON and wrong content types."""

from __future__ import annotations

import json
from typing import Any

from flask import request

from ...errors import JsonParserError, UnsupportedMediaType

# Salesforce's JSON parser (Jackson) refuses deeper documents; ours stops far sooner, because every
# layer that walks a body (references in composite, records, the JSON writer) recurses.
MAX_DEPTH = 100


def read_json() -> Any:
    """The request's JSON body; JSON_PARSER_ERROR for text that is not JSON, 415 for non-JSON content.

    Content types other than JSON are refused (a real org also reads XML; no client this mock
    serves sends it). A missing Content-Type is read as JSON, as Salesforce does.
    """
    content_type = (request.mimetype or "").lower()
    if content_type and not content_type.endswith("json"):
        raise UnsupportedMediaType(f"Content type '{request.content_type}' not supported for this resource")
    return parse_json(request.get_data(cache=True))


def parse_json(raw: bytes) -> Any:
    """JSON text as Salesforce's parser reads it: UTF-8, no NaN, and Jackson's wording for what is wrong."""
    if not raw.strip():
        raise JsonParserError("The request body is empty; a JSON body is required")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JsonParserError(
            f"Invalid UTF-8 start byte 0x{raw[error.start]:02x} at [line:1, column:{error.start + 1}]"
        ) from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise _too_deep() from None
    except json.JSONDecodeError as error:
        char = text[error.pos] if error.pos < len(text) else "EOF"
        code = ord(char) if char != "EOF" else -1
        raise JsonParserError(
            f"Unexpected character ('{char}' (code {code})): expected a valid value (number, String, array, object, "
            f"'true', 'false' or 'null') at [line:{error.lineno}, column:{error.colno}]"
        ) from None

    if _depth(value) > MAX_DEPTH:
        raise _too_deep()
    return value


def _too_deep() -> JsonParserError:
    return JsonParserError(
        f"Document nesting depth exceeds the maximum allowed ({MAX_DEPTH}, "
        "from `StreamReadConstraints.getMaxNestingDepth()`)"
    )


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in a parsed document (without recursion)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        pending += [(child, level + 1) for child in children]
    return deepest


def _refuse_constant(name: str) -> None:
    """NaN and Infinity are not JSON; Python's parser would accept them."""
    raise JsonParserError(f"Non-standard token '{name}': enable JsonParser.Feature.ALLOW_NON_NUMERIC_NUMBERS to allow")


def read_object() -> dict[str, Any]:
    """A JSON object body (a record, a composite request, a job spec)."""
    value = read_json()
    if not isinstance(value, dict):
        raise JsonParserError("Cannot deserialize the request body: a JSON object was expected")
    return value

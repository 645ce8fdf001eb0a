"""Request bodies: JSON as the REST API reads it, with its errors for bad JSON and wrong content types."""

from __future__ import annotations

import json
from typing import Any

from flask import request

from ..errors import JsonParserError, UnsupportedMediaType


def read_json(*, required: bool = True) -> Any:
    """The request's JSON body; JSON_PARSER_ERROR for text that is not JSON, 415 for non-JSON content.

    Content types other than JSON are refused (a real org also reads XML; no client this mock
    serves sends it). A missing Content-Type is read as JSON, as Salesforce does.
    """
    content_type = (request.mimetype or "").lower()
    raw = request.get_data(cache=True)
    if content_type and not content_type.endswith("json"):
        raise UnsupportedMediaType(f"Content type '{request.content_type}' not supported for this resource")
    if not raw.strip():
        if required:
            raise JsonParserError("The request body is empty; a JSON body is required")
        return None
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        position = getattr(error, "lineno", 1), getattr(error, "colno", 1)
        text = raw.decode("utf-8", "replace")
        where = getattr(error, "pos", 0)
        char = text[where] if where < len(text) else "EOF"
        raise JsonParserError(
            f"Unexpected character ('{char}' (code {ord(char[0]) if char != 'EOF' else -1})): expected a valid "
            f"value (number, String, array, object, 'true', 'false' or 'null') at "
            f"[line:{position[0]}, column:{position[1]}]"
        ) from None


def read_object() -> dict[str, Any]:
    """A JSON object body (a record, a composite request, a job spec)."""
    value = read_json()
    if not isinstance(value, dict):
        raise JsonParserError("Cannot deserialize the request body: a JSON object was expected")
    return value

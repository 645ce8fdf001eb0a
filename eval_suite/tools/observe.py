"""What an agent reads back from a tool or query, rendered as the original harness does.

Records lose their top-level ``attributes`` and every column that is null in all of them, then the
whole value is written as Python writes it (``str()``: single quotes, ``None``), which is what the
published CRMArena results were produced with. An error from the org reads ``ERRORCODE: message``.
"""

from __future__ import annotations

from typing import Any


def render(value: Any) -> str:
    """A tool's result as observation text (record lists slimmed as the original does)."""
    value = plain(value)
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return str(slim_records(value))
    if isinstance(value, dict) and isinstance(value.get("records"), list):
        return str(slim_records(value["records"]))  # a raw query result
    if isinstance(value, dict) and isinstance(value.get("searchRecords"), list):
        return str(slim_records(value["searchRecords"]))
    return str(value)


def plain(value: Any) -> Any:
    """Mappings as plain dicts all the way down (simple-salesforce parses JSON into OrderedDicts,
    whose ``str()`` would read ``OrderedDict([...])``)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    return value


def slim_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Without top-level ``attributes`` and without the columns that are None in every record;
    nested parent records keep theirs, as in the original."""
    rows = [{key: value for key, value in record.items() if key != "attributes"} for record in records]
    empty = {key for row in rows for key in row if all(other.get(key) is None for other in rows)}
    return [{key: value for key, value in row.items() if key not in empty} for row in rows]


def render_org_error(content: Any, fallback: str) -> str:
    """The org's error body (a list of {errorCode, message}) as ``ERRORCODE: message``."""
    if isinstance(content, list) and content and isinstance(content[0], dict):
        first = content[0]
        return f"{first.get('errorCode', 'ERROR')}: {first.get('message', '')}".rstrip()
    if isinstance(content, dict) and content.get("errorCode"):
        return f"{content['errorCode']}: {content.get('message', '')}".rstrip()
    return fallback

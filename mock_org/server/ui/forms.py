"""Record forms: which fields a new or edited record offers, what each input shows, and the submitted
form turned into the JSON body ``Org.create`` / ``Org.update`` take — the same values an API client
would send, checked by the same write path."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ...values import format_datetime, parse_datetime
from .catalog import SYSTEM_FIELDS, ObjectInfo

INPUT_TYPES = {
    "email": "email",
    "phone": "tel",
    "url": "url",
    "date": "date",
    "datetime": "datetime-local",
    "int": "number",
    "double": "number",
    "currency": "number",
    "percent": "number",
}


def form_fields(info: ObjectInfo, creating: bool) -> list[dict[str, Any]]:
    """The fields a user may set: createable (new) or updateable (edit), minus the audit fields."""
    flag = "createable" if creating else "updateable"
    return [entry for entry in info.field_list() if entry[flag] and entry["name"] not in SYSTEM_FIELDS]


def required(field: dict[str, Any]) -> bool:
    """A value must be given (the org sets defaulted ones, such as the owner, by itself)."""
    return not field["nillable"] and field["type"] != "boolean" and not field["defaultedOnCreate"]


def input_type(field: dict[str, Any]) -> str:
    return INPUT_TYPES.get(field["type"], "text")


def input_value(field: dict[str, Any], value: Any, zone: dt.tzinfo) -> str:
    """A stored value as its input shows it (a datetime in the user's zone, as datetime-local wants)."""
    if value is None:
        return ""
    if field["type"] == "datetime":
        try:
            return parse_datetime(value).astimezone(zone).strftime("%Y-%m-%dT%H:%M:%S")
        except ValueError:
            return str(value)
    if field["type"] == "boolean":
        return "true" if value else ""
    if isinstance(value, float) and value.is_integer() and field["type"] != "currency":
        return str(int(value))
    return str(value)


def submitted(info: ObjectInfo, form: Any, fields: list[dict[str, Any]], zone: dt.tzinfo) -> dict[str, Any]:
    """Each submitted field as the API's JSON value: blank is null, a checkbox is true or false (an
    unticked one is not sent), a datetime typed in the user's zone goes in UTC. Other text goes as
    typed; the write path checks it. A field the form did not send is left out, not emptied."""
    body: dict[str, Any] = {}
    for field in fields:
        name, kind = field["name"], field["type"]
        if kind != "boolean" and name not in form:
            continue
        if kind == "boolean":
            body[name] = form.get(name) == "true"
        elif kind == "multipicklist":
            body[name] = ";".join(form.getlist(name)) or None
        else:
            text = form.get(name, "").strip() if kind != "textarea" else form.get(name, "").replace("\r\n", "\n")
            body[name] = _typed(kind, text, zone) if text.strip() else None
    return body


def _typed(kind: str, text: str, zone: dt.tzinfo) -> Any:
    if kind == "datetime":
        try:
            local = dt.datetime.fromisoformat(text)
        except ValueError:
            return text  # the write path refuses it with the API's own message
        return format_datetime(local.replace(tzinfo=zone) if local.tzinfo is None else local)
    return text


def changes(body: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """Only what the user changed: an edit never rewrites a field nobody touched."""
    return {name: value for name, value in body.items() if not _same(value, record.get(name))}


def _same(new: Any, old: Any) -> bool:
    if isinstance(old, (int, float)) and not isinstance(old, bool) and isinstance(new, str):
        try:
            return float(new) == float(old)
        except ValueError:
            return False
    if isinstance(old, str) and isinstance(new, str) and "T" in old:
        try:
            return parse_datetime(old) == parse_datetime(new)
        except ValueError:
            return old == new
    return new == old or (new is None and old == "")

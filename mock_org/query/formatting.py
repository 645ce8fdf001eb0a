"""What toLabel() and FORMAT() make of a value (en_US, the org's locale)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from ..clock import OrgClock
from ..schema import Field


def label_converter(field: Field) -> Callable[[Any], Any]:
    """toLabel(): picklist values become their labels (each one, for a multi-select picklist)."""
    labels = {entry.value: entry.label for entry in field.picklist_values}

    def convert(value: Any) -> Any:
        if value is None or not labels:
            return value
        if field.type == "multipicklist":
            return ";".join(labels.get(part, part) for part in str(value).split(";"))
        return labels.get(value, value)

    return convert


def format_value(value: Any, field_type: str, clock: OrgClock) -> Any:
    """FORMAT(): the value as the user interface shows it in the user's locale and time zone."""
    if value is None:
        return None
    if field_type == "currency":
        return f"${float(value):,.2f}"
    if field_type in ("double", "percent"):
        text = f"{float(value):,.2f}".rstrip("0").rstrip(".")
        return text + "%" if field_type == "percent" else text
    if field_type == "int":
        return f"{int(value):,}"
    if field_type == "boolean":
        return "true" if value else "false"
    if field_type == "date":
        day = dt.date.fromisoformat(str(value)[:10])
        return f"{day.month}/{day.day}/{day.year}"
    if field_type == "datetime":
        moment = dt.datetime.strptime(str(value)[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dt.UTC)
        local = moment.astimezone(clock.zone)
        hour = local.hour % 12 or 12
        return f"{local.month}/{local.day}/{local.year}, {hour}:{local.minute:02d} {'AM' if local.hour < 12 else 'PM'}"
    return value

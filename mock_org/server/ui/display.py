"""Field values as a page shows them: in the user's time zone and the en_US formats of Lightning, with
the API's own value kept machine-readable (``<time datetime=…>``, ``data-value``) for browser agents.

Every function returns escaped markup: record text is data, whatever it contains.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from markupsafe import Markup, escape

from ...values import parse_datetime
from .catalog import ObjectInfo

if TYPE_CHECKING:
    from .columns import Column

_TAG = re.compile(r"<[^>]*>")
_BREAK = re.compile(r"<\s*(br|/p|/div|/li)\b[^>]*>", re.IGNORECASE)


def zone_of(name: str | None) -> dt.tzinfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return dt.UTC


def html_text(value: str) -> str:
    """The text of a rich-text value (knowledge answers, chat bodies): tags dropped, entities read.
    The result is plain text, escaped again wherever it is shown."""
    return html.unescape(_TAG.sub("", _BREAK.sub("\n", value)))


def local_datetime(wire: str, zone: dt.tzinfo) -> str:
    """A datetime as Lightning writes it in the user's zone, with the zone's name (``1/5/2020, 11:51 AM PST``):
    the page never leaves a reader to guess which zone a time is in."""
    moment = parse_datetime(wire).astimezone(zone)
    hour = moment.hour % 12 or 12
    return (
        f"{moment.month}/{moment.day}/{moment.year}, {hour}:{moment.minute:02d} "
        f"{'AM' if moment.hour < 12 else 'PM'} {moment.tzname() or 'UTC'}"
    )


def local_date(wire: str) -> str:
    day = dt.date.fromisoformat(wire[:10])
    return f"{day.month}/{day.day}/{day.year}"


def number(value: float | int, scale: int) -> str:
    return f"{value:,.{scale}f}" if isinstance(value, float) else f"{value:,}"


def moment(wire: str, zone: dt.tzinfo) -> Markup:
    """A datetime in the user's zone, the API's value (UTC) kept in the element."""
    try:
        text = local_datetime(wire, zone)
    except ValueError:
        return escape(wire)
    return Markup('<time datetime="{}" title="{}">{}</time>').format(wire, wire, text)


def chat_moment(stamp: str, zone: dt.tzinfo) -> Markup:
    """A chat line's time (``2020-01-05T19:51:15``, UTC in CRMArena's transcripts) in the user's zone."""
    return moment(stamp if stamp.endswith(("Z", "+0000")) else f"{stamp}.000+0000", zone)


def record_link(object_name: str | None, record_id: str, text: Any) -> Markup:
    """A link to a record's page (text only when its object has no page); the Id stays in the element."""
    label = text if text not in (None, "") else record_id
    if not object_name:
        return Markup('<span data-record-id="{}">{}</span>').format(record_id, label)
    href = f"/lightning/r/{object_name}/{record_id}/view"
    return Markup('<a href="{}" data-record-id="{}">{}</a>').format(href, record_id, label)


def show(info: ObjectInfo, field: dict[str, Any], value: Any, zone: dt.tzinfo) -> Markup:
    """One value of ``field`` (not a lookup: those are links, see the ``lookup`` macro)."""
    if value is None or value == "":
        return Markup("")
    kind = field["type"]
    if kind == "boolean":
        label = "True" if value else "False"
        return Markup('<span class="checkbox" role="img" aria-label="{}" data-value="{}">{}</span>').format(
            label, str(bool(value)).lower(), "✔" if value else ""
        )
    if kind == "datetime":
        return moment(value, zone)
    if kind == "date":
        try:
            return Markup('<time datetime="{}">{}</time>').format(value, local_date(value))
        except ValueError:
            return escape(value)
    if kind == "currency" and isinstance(value, (int, float)):
        sign = "-" if value < 0 else ""
        return escape(f"{sign}${number(abs(float(value)), field['scale'] or 2)}")
    if kind in ("double", "percent", "int") and isinstance(value, (int, float)):
        text = number(value, field["scale"] or 0) + ("%" if kind == "percent" else "")
        return Markup('<span data-value="{}">{}</span>').format(value, text)
    if kind == "picklist":
        return escape(info.picklist_label(field["name"], value))
    if kind == "multipicklist":
        return escape("; ".join(info.picklist_label(field["name"], part) for part in str(value).split(";")))
    if kind == "email":
        return Markup('<a href="mailto:{}">{}</a>').format(value, value)
    if kind == "url" and str(value).lower().startswith(("http://", "https://")):
        return Markup('<a href="{}" rel="noopener noreferrer">{}</a>').format(value, value)
    if field.get("htmlFormatted"):
        return Markup('<span class="text">{}</span>').format(html_text(str(value)))
    if kind == "textarea":
        return Markup('<span class="text">{}</span>').format(value)
    return escape(value)


def cell(
    column: Column,
    value: Any,
    title: Any,
    record: dict[str, Any] | None,
    zone: dt.tzinfo,
    object_of: Callable[[Any], str | None],
) -> Markup:
    """A table cell: the record's title as the link to it (when ``record`` is given), a lookup as a
    link to the record it points at, anything else as its value."""
    if record is not None:
        return record_link(record["attributes"]["type"], record["Id"], value)
    if (column.title_path or title is not None) and value:  # a lookup, or a text field holding a named Id
        return record_link(object_of(value), value, title)
    return show(column.owner, column.field, value, zone)

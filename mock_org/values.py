"""Field values between their three forms: stored in SQLite, sent on the wire, written in SOQL.

Stored forms (the dump layout): text types as TEXT; booleans 0/1; int INTEGER; double, currency
and percent REAL; dates 'YYYY-MM-DD'; datetimes 'YYYY-MM-DDTHH:MM:SS.mmm+0000' in UTC, which
sort as text in time order and are already the REST API's format.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .schema import Field

UTC = dt.UTC

_DATETIME_IN = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?)?"
    r"(?:([Zz])|([+-])([0-9]{2}):?([0-9]{2}))?"
)


def format_datetime(value: dt.datetime) -> str:
    """The REST API's datetime format: UTC, milliseconds, '+0000'."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}+0000"


def parse_datetime(text: str) -> dt.datetime:
    """Read an ISO 8601 datetime the way the API accepts them on input (no zone means UTC)."""
    match = _DATETIME_IN.fullmatch(text.strip())
    if match is None:
        raise ValueError(text)
    year, month, day, hour, minute, second, fraction, _utc, sign, oh, om = match.groups()
    zone: dt.tzinfo = UTC
    if sign:
        offset = dt.timedelta(hours=int(oh), minutes=int(om))
        zone = dt.timezone(-offset if sign == "-" else offset)
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    return dt.datetime(
        int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0), micro, tzinfo=zone
    ).astimezone(UTC)


def to_wire(field: Field, stored: Any) -> Any:
    """A stored value as the REST API sends it."""
    return wire_value(field.type, stored)


def _boolean(stored: Any) -> bool:
    return bool(stored)  # a null checkbox reads false


# Per field type, what turns a stored value into its wire form (None: it already is one). Numbers
# need nothing: the INTEGER and REAL columns of the dump layout hand back int and float.
WIRE_CONVERTERS: dict[str, Callable[[Any], Any] | None] = {"boolean": _boolean}


def wire_converter(field_type: str) -> Callable[[Any], Any] | None:
    return WIRE_CONVERTERS.get(field_type)


def wire_value(field_type: str, stored: Any) -> Any:
    """A stored value of a field of ``field_type`` as the REST API sends it (checkboxes are never null)."""
    if stored is None:
        return False if field_type == "boolean" else None
    if field_type == "boolean":
        return bool(stored)
    if field_type == "int":
        return int(stored)
    if field_type in ("double", "currency", "percent"):
        return float(stored)
    return stored


def plain_double(value: float) -> bool:
    """Whether Python's repr of ``value`` already is Java's Double.toString: finite and 0 or within
    [1e-3, 1e7), where both print the shortest round-tripping digits in plain notation."""
    return value == 0 or 1e-3 <= abs(value) < 1e7


def java_double(value: float) -> str:
    """How Salesforce prints a double: Java's Double.toString — always a decimal point, and E notation
    from 1e7 up and below 1e-3 (15000.0, 9.9213206E7, 1.0E-4)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    shortest = Decimal(repr(value))  # the fewest digits that read back as the same double
    if 1e-3 <= abs(value) < 1e7:
        text = format(shortest, "f")
        return text if "." in text else text + ".0"
    sign, digits, exponent = shortest.as_tuple()
    significant = list(digits)
    while len(significant) > 1 and significant[-1] == 0:
        significant.pop()
        exponent += 1  # type: ignore[operator]
    scientific = len(significant) + int(exponent) - 1
    mantissa = f"{significant[0]}." + ("".join(map(str, significant[1:])) or "0")
    return f"{'-' if sign else ''}{mantissa}E{scientific}"

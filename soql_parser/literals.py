"""Literal values: string escapes, numbers, dates and datetimes, currency, relative dates.

Each reader takes the token text and returns the value, or raises ``LiteralError`` with the
reason as a real org words it; the transformer adds the position.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
from decimal import Decimal

from . import nodes


class LiteralError(ValueError):
    """A literal whose text lexed but does not denote a value; ``offset`` is within the token."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


# ----------------------------------------------------------------------------- strings

# SOQL and SOSL Reference, "Quoted String Escape Sequences"; the lower- and upper-case forms
# are both documented. \b is Java's backspace.
_SIMPLE_ESCAPES = {
    "n": "\n",
    "N": "\n",
    "r": "\r",
    "R": "\r",
    "t": "\t",
    "T": "\t",
    "b": "\b",
    "B": "\b",
    "f": "\f",
    "F": "\f",
    '"': '"',
    "'": "'",
    "\\": "\\",
}
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")


def read_string(token: str) -> nodes.StringLiteral:
    """Decode a quoted SOQL string (``token`` includes its quotes).

    ``\\%`` and ``\\_`` decode to ``%`` and ``_`` and their positions are remembered, because
    inside a LIKE pattern they stand for themselves.
    """
    body = token[1:-1]
    if "\\" not in body:
        return nodes.StringLiteral(body)
    out: list[str] = []
    escaped_wildcards: list[int] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        code = body[i + 1]
        if code in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[code])
            i += 2
        elif code in "%_":
            escaped_wildcards.append(len(out))
            out.append(code)
            i += 2
        elif code in "uU":
            digits = body[i + 2 : i + 6]
            if not _HEX4.fullmatch(digits) or digits.upper() == "FFFF":
                raise LiteralError(
                    f"Invalid string literal {token}. Illegal unicode sequence. '{body[i : i + 6]}' in string literal."
                )
            out.append(chr(int(digits, 16)))
            i += 6
        else:
            raise LiteralError(
                f"Invalid string literal {token}. Illegal character sequence '{body[i : i + 2]}' in string literal."
            )
    return nodes.StringLiteral("".join(out), tuple(escaped_wildcards))


_RENDER_ESCAPES = {
    "\\": "\\\\",
    "'": "\\'",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def write_string(literal: nodes.StringLiteral) -> str:
    """The canonical quoted form of a string literal (inverse of ``read_string``)."""
    escaped = set(literal.escaped_wildcards)
    parts = ["'"]
    for index, char in enumerate(literal.value):
        if index in escaped:
            parts.append("\\" + char)
        elif char in _RENDER_ESCAPES:
            parts.append(_RENDER_ESCAPES[char])
        elif ord(char) < 0x20 or char == "\x7f":
            parts.append(f"\\u{ord(char):04x}")
        else:
            parts.append(char)
    parts.append("'")
    return "".join(parts)


# ----------------------------------------------------------------------------- numbers


# Python refuses to turn text of more digits than its int-string limit into an int (4,300 by default,
# never below this threshold) and an int of more digits back into text. A literal may have any number
# of digits, so longer ones go through Decimal, which has no such limit, both ways.
_PLAIN_DIGITS = sys.int_info.str_digits_check_threshold
_PLAIN_BITS = int(_PLAIN_DIGITS * 3.32)  # an int of fewer bits has fewer digits than the threshold


def read_number(sign: str, digits: str) -> int | Decimal:
    """An integer or a decimal of any length, exactly; the sign is a separate token in SOQL (``- 5`` is legal)."""
    if "." in digits:
        value: int | Decimal = Decimal(digits)
    else:
        value = int(digits) if len(digits) < _PLAIN_DIGITS else int(Decimal(digits))
    return -value if sign == "-" else value


def write_number(value: int | Decimal) -> str:
    """A number as a query writes it, however many digits it has."""
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value) if value.bit_length() < _PLAIN_BITS else format(Decimal(value), "f")


# ----------------------------------------------------------------------------- dates and times

_DATETIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):?([0-9]{2}))"
)
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):?([0-9]{2}))")


def read_date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise LiteralError(f"Invalid date: {text}") from None


def _zone(z: str | None, sign: str | None, hours: str | None, minutes: str | None) -> dt.tzinfo:
    if z or sign is None:
        return dt.UTC
    offset = dt.timedelta(hours=int(hours or 0), minutes=int(minutes or 0))
    if offset >= dt.timedelta(hours=24):
        raise ValueError("offset out of range")
    return dt.timezone(-offset if sign == "-" else offset)


def _microseconds(fraction: str | None) -> int:
    # Any number of fractional digits is accepted; precision beyond microseconds is dropped.
    return int((fraction or "0")[:6].ljust(6, "0"))


def read_datetime(text: str) -> dt.datetime:
    match = _DATETIME.fullmatch(text)
    try:
        if match is None:
            raise ValueError(text)
        year, month, day, hour, minute, second, fraction, z, sign, oh, om = match.groups()
        return dt.datetime(
            int(year),
            int(month),
            int(day),
            int(hour),
            int(minute),
            int(second),
            _microseconds(fraction),
            tzinfo=_zone(z, sign, oh, om),
        )
    except ValueError:
        raise LiteralError(f"Invalid datetime: {text}") from None


def read_time(text: str) -> dt.time:
    match = _TIME.fullmatch(text)
    try:
        if match is None:
            raise ValueError(text)
        hour, minute, second, fraction, z, sign, oh, om = match.groups()
        return dt.time(int(hour), int(minute), int(second), _microseconds(fraction), tzinfo=_zone(z, sign, oh, om))
    except ValueError:
        raise LiteralError(f"Invalid time: {text}") from None


def _write_fraction(microsecond: int) -> str:
    if not microsecond:
        return ""
    digits = f"{microsecond:06d}".rstrip("0")
    return "." + digits.ljust(3, "0")


def _write_zone(value: dt.datetime | dt.time) -> str:
    offset = value.utcoffset()
    if not offset:
        return "Z"
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def write_datetime(value: dt.datetime) -> str:
    # Not strftime: its %Y does not pad years below 1000 to four digits on every platform.
    stamp = f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    return stamp + _write_fraction(value.microsecond) + _write_zone(value)


def write_time(value: dt.time) -> str:
    return value.strftime("%H:%M:%S") + _write_fraction(value.microsecond) + _write_zone(value)


# ----------------------------------------------------------------------------- relative dates

# Every relative date literal of the SOQL reference; True where it takes ":n".
RELATIVE_DATE_LITERALS: dict[str, bool] = {
    "YESTERDAY": False,
    "TODAY": False,
    "TOMORROW": False,
    "LAST_WEEK": False,
    "THIS_WEEK": False,
    "NEXT_WEEK": False,
    "LAST_MONTH": False,
    "THIS_MONTH": False,
    "NEXT_MONTH": False,
    "LAST_90_DAYS": False,
    "NEXT_90_DAYS": False,
    "LAST_N_DAYS": True,
    "NEXT_N_DAYS": True,
    "N_DAYS_AGO": True,
    "NEXT_N_WEEKS": True,
    "LAST_N_WEEKS": True,
    "N_WEEKS_AGO": True,
    "NEXT_N_MONTHS": True,
    "LAST_N_MONTHS": True,
    "N_MONTHS_AGO": True,
    "THIS_QUARTER": False,
    "LAST_QUARTER": False,
    "NEXT_QUARTER": False,
    "NEXT_N_QUARTERS": True,
    "LAST_N_QUARTERS": True,
    "N_QUARTERS_AGO": True,
    "THIS_YEAR": False,
    "LAST_YEAR": False,
    "NEXT_YEAR": False,
    "NEXT_N_YEARS": True,
    "LAST_N_YEARS": True,
    "N_YEARS_AGO": True,
    "THIS_FISCAL_QUARTER": False,
    "LAST_FISCAL_QUARTER": False,
    "NEXT_FISCAL_QUARTER": False,
    "NEXT_N_FISCAL_QUARTERS": True,
    "LAST_N_FISCAL_QUARTERS": True,
    "N_FISCAL_QUARTERS_AGO": True,
    "THIS_FISCAL_YEAR": False,
    "LAST_FISCAL_YEAR": False,
    "NEXT_FISCAL_YEAR": False,
    "NEXT_N_FISCAL_YEARS": True,
    "LAST_N_FISCAL_YEARS": True,
    "N_FISCAL_YEARS_AGO": True,
}

# Salesforce's grammar takes a currency literal as a name matching this pattern.
_CURRENCY = re.compile(r"([A-Za-z]{3})(-?(?:[0-9]+\.?[0-9]*|\.[0-9]+))")


def read_currency(text: str) -> nodes.CurrencyLiteral | None:
    """``USD5000`` → CurrencyLiteral, or None when the text is not a currency literal."""
    match = _CURRENCY.fullmatch(text)
    if match is None:
        return None
    code, amount = match.groups()
    return nodes.CurrencyLiteral(code.upper(), read_number("", amount.rstrip(".") or "0"))

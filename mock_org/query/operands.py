"""SOQL literals against the field they are compared with: type checks with the real org's errors,
and conversion to the stored form (values.py).

No SQL here. A value for a text field is returned case-folded, because string comparisons in a real
org are case-insensitive (SOQL reference, "Comparison Operators").
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass

from soql_parser import nodes
from soql_parser.render import to_text

from ..clock import OrgClock
from ..errors import InvalidField, MalformedQuery, NumberOutsideValidRange
from ..ids import to18
from ..schema import TEXT_TYPES
from ..storage import fold
from ..values import format_datetime
from ..wildcards import ANY_ONE, ANY_RUN, Pattern
from .date_literals import date_range

NUMBER_TYPES = frozenset({"int", "double", "currency", "percent"})
ORG_CURRENCY = "USD"

# The type name a real org uses in "must be of type …" for each field type.
_TYPE_WORD = {
    "datetime": "dateTime",
    "date": "date",
    "boolean": "boolean",
    "int": "integer",
    "double": "double",
    "currency": "double",
    "percent": "double",
    "time": "time",
}


@dataclass(frozen=True)
class Range:
    """A relative date literal as stored values: [start, end)."""

    start: str
    end: str


Operand = str | int | float | None | Range


def type_error(query: str, literal: nodes.Literal, field_name: str, field_type: str) -> InvalidField:
    if field_type in TEXT_TYPES:
        reason = (
            f"value of filter criterion for field '{field_name}' must be of type string "
            "and should be enclosed in quotes"
        )
    else:
        word = _TYPE_WORD.get(field_type, field_type)
        reason = (
            f"value of filter criterion for field '{field_name}' must be of type {word} "
            "and should not be enclosed in quotes"
        )
    return InvalidField.at(query, literal.pos, reason)


class OperandReader:
    """Converts literals for one query: knows the text (for carets) and the clock (for date literals)."""

    def __init__(self, query: str, clock: OrgClock) -> None:
        self.query = query
        self.clock = clock

    def read(self, literal: nodes.Literal, field_name: str, field_type: str) -> Operand:
        """The stored form of ``literal`` compared with a field of ``field_type``; None for NULL."""
        if isinstance(literal, nodes.NullLiteral):
            return None
        if field_type in ("id", "reference"):
            return self._id(literal, field_name, field_type)
        if field_type in TEXT_TYPES:
            if not isinstance(literal, nodes.StringLiteral):
                raise type_error(self.query, literal, field_name, field_type)
            return fold(literal.value)
        if field_type == "boolean":
            if not isinstance(literal, nodes.BooleanLiteral):
                raise type_error(self.query, literal, field_name, field_type)
            return 1 if literal.value else 0
        if field_type in NUMBER_TYPES:
            return self._number(literal, field_name, field_type)
        if field_type == "date":
            return self._date(literal, field_name, field_type)
        if field_type == "datetime":
            return self._datetime(literal, field_name, field_type)
        if field_type == "time" and isinstance(literal, nodes.TimeLiteral):
            return literal.value.strftime("%H:%M:%S.%f")[:12] + "Z"
        raise type_error(self.query, literal, field_name, field_type)

    def _id(self, literal: nodes.Literal, field_name: str, field_type: str) -> str:
        if not isinstance(literal, nodes.StringLiteral):
            raise type_error(self.query, literal, field_name, field_type)
        try:
            return to18(literal.value)
        except ValueError:
            # Since Summer '24 this is MALFORMED_QUERY (it was INVALID_QUERY_FILTER_OPERATOR).
            raise MalformedQuery.at(self.query, literal.pos, f"invalid ID field: {literal.value}") from None

    def _number(self, literal: nodes.Literal, field_name: str, field_type: str) -> int | float:
        if isinstance(literal, nodes.NumberLiteral):
            value = literal.value
        elif isinstance(literal, nodes.CurrencyLiteral):
            if literal.currency != ORG_CURRENCY:
                raise MalformedQuery.at(
                    self.query, literal.pos, f"invalid currency code: {literal.currency} (the org's currency is USD)"
                )
            value = literal.amount
        else:
            raise type_error(self.query, literal, field_name, field_type)
        if field_type == "int" and value == int(value):
            return self._within_int(literal, int(value))
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if math.isinf(number):
            raise self._out_of_range(literal)
        return number

    def _out_of_range(self, literal: nodes.Literal) -> NumberOutsideValidRange:
        return NumberOutsideValidRange.at(self.query, literal.pos, f"number outside valid range: {to_text(literal)}")

    def _within_int(self, literal: nodes.Literal, value: int) -> int:
        """SQLite stores 64-bit integers; a literal beyond them cannot match any stored value."""
        if not -(2**63) <= value < 2**63:
            raise self._out_of_range(literal)
        return value

    def _date(self, literal: nodes.Literal, field_name: str, field_type: str) -> str | Range:
        if isinstance(literal, nodes.DateLiteral):
            return literal.value.isoformat()
        if isinstance(literal, nodes.RelativeDateLiteral):
            return self._range(literal, dt.date.isoformat)
        raise type_error(self.query, literal, field_name, field_type)

    def _range(self, literal: nodes.RelativeDateLiteral, stored: Callable[[dt.date], str]) -> Range:
        """The stored ends of the dates a relative literal covers; an ``n`` reaching past the years
        1 to 9999 is out of range."""
        try:
            start, end = date_range(literal.name, literal.n, self.clock)
            return Range(stored(start), stored(end))
        except (ValueError, OverflowError):
            raise NumberOutsideValidRange.at(
                self.query, literal.pos, f"date literal outside valid range: {to_text(literal)}"
            ) from None

    def _datetime(self, literal: nodes.Literal, field_name: str, field_type: str) -> str | Range:
        if isinstance(literal, nodes.DateTimeLiteral):
            return format_datetime(literal.value)
        if isinstance(literal, nodes.RelativeDateLiteral):
            # The range's days begin at midnight in the user's time zone; stored values are UTC.
            return self._range(literal, lambda day: format_datetime(self.clock.local_midnight_utc(day)))
        raise type_error(self.query, literal, field_name, field_type)

    def integer(self, literal: nodes.Literal, what: str) -> int:
        """The value compared with a date function such as CALENDAR_YEAR(): a whole number."""
        if isinstance(literal, nodes.NumberLiteral) and literal.value == int(literal.value):
            return self._within_int(literal, int(literal.value))
        raise InvalidField.at(
            self.query, literal.pos, f"value of filter criterion for field '{what}' must be of type integer"
        )


def like_pattern(literal: nodes.Literal, query: str) -> str:
    """A LIKE pattern over case-folded text, encoded for the ``sf_matches`` SQL function (wildcards.py).

    ``%`` matches any run of characters, ``_`` exactly one; ``\\%`` and ``\\_`` match themselves.
    """
    if not isinstance(literal, nodes.StringLiteral):
        raise MalformedQuery.at(query, literal.pos, f"invalid LIKE pattern: {to_text(literal)}")
    escaped = set(literal.escaped_wildcards)
    items = []
    for index, char in enumerate(literal.value):
        if char in "%_" and index not in escaped:
            items.append((ANY_RUN if char == "%" else ANY_ONE, True))
        else:
            items.extend((folded, False) for folded in fold(char))
    return Pattern.of(items).encode()

"""The SOQL functions: what each accepts, what it returns, and the SQL it becomes.

One table, ``FUNCTIONS``, keyed by upper-case name (SOQL and SOSL Reference, "Aggregate Functions",
"Date Functions", "Converting Time Zones in Date Functions", "toLabel()", "FORMAT()",
"convertCurrency()").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Integer, case, cast, distinct, func, literal
from sqlalchemy.sql.elements import ColumnElement

from ..clock import OrgClock

NUMBERS = frozenset({"int", "double", "currency", "percent"})
DATES = frozenset({"date", "datetime"})
ORDERED = NUMBERS | DATES | frozenset({"string", "picklist", "email", "phone", "url", "id", "reference", "textarea"})

SqlBuilder = Callable[[ColumnElement, OrgClock], ColumnElement]


@dataclass(frozen=True)
class Function:
    """``kind``: aggregate, date, timezone, label, format, currency or grouping. ``result`` is the
    Salesforce type of the value (None: the argument's type)."""

    name: str
    kind: str
    accepts: frozenset[str] | None
    result: str | None
    sql: SqlBuilder


def _part(fmt: str) -> SqlBuilder:
    return lambda moment, clock: cast(func.strftime(fmt, moment), Integer)


def _month(moment: ColumnElement) -> ColumnElement:
    return cast(func.strftime("%m", moment), Integer)


def _fiscal_month(moment: ColumnElement, clock: OrgClock) -> ColumnElement:
    return (_month(moment) - clock.fiscal_year_start_month + 12) % 12 + 1


def _fiscal_year(moment: ColumnElement, clock: OrgClock) -> ColumnElement:
    # Fiscal years are named after the calendar year they end in.
    year = cast(func.strftime("%Y", moment), Integer)
    if clock.fiscal_year_start_month == 1:
        return year
    return year + case((_month(moment) >= clock.fiscal_year_start_month, 1), else_=0)


def _aggregate(name: str, accepts: frozenset[str] | None, result: str | None, sql: SqlBuilder) -> Function:
    return Function(name, "aggregate", accepts, result, sql)


def _date(name: str, result: str, sql: SqlBuilder, accepts: frozenset[str] = DATES) -> Function:
    return Function(name, "date", accepts, result, sql)


FUNCTIONS: dict[str, Function] = {
    function.name.upper(): function
    for function in (
        _aggregate("COUNT", None, "int", lambda value, clock: func.count(value)),
        _aggregate("COUNT_DISTINCT", None, "int", lambda value, clock: func.count(distinct(value))),
        _aggregate("SUM", NUMBERS, "double", lambda value, clock: func.sum(value)),
        _aggregate("AVG", NUMBERS, "double", lambda value, clock: func.avg(value)),
        _aggregate("MIN", ORDERED, None, lambda value, clock: func.min(value)),
        _aggregate("MAX", ORDERED, None, lambda value, clock: func.max(value)),
        Function("GROUPING", "grouping", None, "int", lambda value, clock: literal(0)),
        _date("CALENDAR_YEAR", "int", _part("%Y")),
        _date("CALENDAR_MONTH", "int", _part("%m")),
        _date("CALENDAR_QUARTER", "int", lambda moment, clock: (_month(moment) + 2) // 3),
        _date("DAY_IN_MONTH", "int", _part("%d")),
        _date("DAY_IN_WEEK", "int", lambda moment, clock: cast(func.strftime("%w", moment), Integer) + 1),
        _date("DAY_IN_YEAR", "int", _part("%j")),
        _date("DAY_ONLY", "date", lambda moment, clock: func.date(moment), frozenset({"datetime"})),
        _date("HOUR_IN_DAY", "int", _part("%H"), frozenset({"datetime"})),
        _date("WEEK_IN_MONTH", "int", lambda moment, clock: (cast(func.strftime("%d", moment), Integer) - 1) // 7 + 1),
        _date("WEEK_IN_YEAR", "int", lambda moment, clock: (cast(func.strftime("%j", moment), Integer) - 1) // 7 + 1),
        _date("FISCAL_MONTH", "int", _fiscal_month),
        _date("FISCAL_QUARTER", "int", lambda moment, clock: (_fiscal_month(moment, clock) + 2) // 3),
        _date("FISCAL_YEAR", "int", _fiscal_year),
        Function(
            "convertTimezone",
            "timezone",
            frozenset({"datetime"}),
            "datetime",
            lambda value, clock: func.sf_local_time(value, clock.timezone),
        ),
        Function("toLabel", "label", None, None, lambda value, clock: value),
        Function("FORMAT", "format", None, "string", lambda value, clock: value),
        Function("convertCurrency", "currency", frozenset({"currency"}), "currency", lambda value, clock: value),
    )
}

"""Relative date literals → the half-open range of dates [start, end) they stand for.

Ranges are computed in the querying user's time zone, with the locale's first day of the week and
the org's fiscal year (SOQL and SOSL Reference, "Date Formats and Date Literals";
reference/soql_sosl.md §1.8 and §3.4).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from ..clock import OrgClock

DateRange = tuple[dt.date, dt.date]


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    return dt.date(index // 12, index % 12 + 1, 1)


def _week_start(today: dt.date, clock: OrgClock) -> dt.date:
    return today - dt.timedelta(days=(today.weekday() - clock.week_start) % 7)


def _quarter_start(today: dt.date) -> dt.date:
    return dt.date(today.year, (today.month - 1) // 3 * 3 + 1, 1)


def _fiscal_year_start(today: dt.date, clock: OrgClock) -> dt.date:
    start = dt.date(today.year, clock.fiscal_year_start_month, 1)
    return start if start <= today else dt.date(today.year - 1, clock.fiscal_year_start_month, 1)


def _fiscal_quarter_start(today: dt.date, clock: OrgClock) -> dt.date:
    year_start = _fiscal_year_start(today, clock)
    months = (today.year - year_start.year) * 12 + today.month - year_start.month
    return _add_months(year_start, months // 3 * 3)


def _days(start: int, end: int) -> Callable[[dt.date, OrgClock, int], DateRange]:
    return lambda today, clock, n: (today + dt.timedelta(days=start), today + dt.timedelta(days=end))


def _span(anchor: Callable[[dt.date, OrgClock], dt.date], unit_months: int, weeks: bool = False):
    """Ranges counted in whole units (weeks or months) from the start of the current unit."""

    def shift(day: dt.date, units: int) -> dt.date:
        return day + dt.timedelta(weeks=units) if weeks else _add_months(day, units * unit_months)

    def make(first: Callable[[int], int], last: Callable[[int], int]) -> Callable[[dt.date, OrgClock, int], DateRange]:
        return lambda today, clock, n: (shift(anchor(today, clock), first(n)), shift(anchor(today, clock), last(n)))

    return {
        "LAST": make(lambda n: -1, lambda n: 0),
        "THIS": make(lambda n: 0, lambda n: 1),
        "NEXT": make(lambda n: 1, lambda n: 2),
        "LAST_N": make(lambda n: -n, lambda n: 0),
        "NEXT_N": make(lambda n: 1, lambda n: n + 1),
        "N_AGO": make(lambda n: -n, lambda n: -n + 1),
    }


_WEEK = _span(_week_start, 0, weeks=True)
_MONTH = _span(lambda today, clock: today.replace(day=1), 1)
_QUARTER = _span(lambda today, clock: _quarter_start(today), 3)
_YEAR = _span(lambda today, clock: dt.date(today.year, 1, 1), 12)
_FISCAL_QUARTER = _span(_fiscal_quarter_start, 3)
_FISCAL_YEAR = _span(_fiscal_year_start, 12)

# Every literal of the reference; the callable gets today (user's zone), the clock and n.
DATE_LITERALS: dict[str, Callable[[dt.date, OrgClock, int], DateRange]] = {
    "YESTERDAY": _days(-1, 0),
    "TODAY": _days(0, 1),
    "TOMORROW": _days(1, 2),
    "LAST_90_DAYS": _days(-90, 1),
    "NEXT_90_DAYS": _days(1, 91),
    "LAST_N_DAYS": lambda today, clock, n: (today - dt.timedelta(days=n), today + dt.timedelta(days=1)),
    "NEXT_N_DAYS": lambda today, clock, n: (today + dt.timedelta(days=1), today + dt.timedelta(days=1 + n)),
    "N_DAYS_AGO": lambda today, clock, n: (today - dt.timedelta(days=n), today - dt.timedelta(days=n - 1)),
}
for _unit, _table in (
    ("WEEK", _WEEK),
    ("MONTH", _MONTH),
    ("QUARTER", _QUARTER),
    ("YEAR", _YEAR),
    ("FISCAL_QUARTER", _FISCAL_QUARTER),
    ("FISCAL_YEAR", _FISCAL_YEAR),
):
    DATE_LITERALS[f"LAST_{_unit}"] = _table["LAST"]
    DATE_LITERALS[f"THIS_{_unit}"] = _table["THIS"]
    DATE_LITERALS[f"NEXT_{_unit}"] = _table["NEXT"]
    DATE_LITERALS[f"LAST_N_{_unit}S"] = _table["LAST_N"]
    DATE_LITERALS[f"NEXT_N_{_unit}S"] = _table["NEXT_N"]
    DATE_LITERALS[f"N_{_unit}S_AGO"] = _table["N_AGO"]


def date_range(name: str, n: int | None, clock: OrgClock) -> DateRange:
    """The dates [start, end) that ``name`` (``:n``) covers today."""
    return DATE_LITERALS[name](clock.today(), clock, n or 0)

"""Date helpers: the start of a relative period, and the bounds of a named one. Pure arithmetic on the
arguments (the org is not asked, and its clock never matters); every period is half-open, [start, end).
"""

from __future__ import annotations

import calendar
from datetime import date, datetime, timedelta

from simple_salesforce import Salesforce

from .base import DATES, define, integer, string
from .soql import ToolError, format_moment, parse_moment

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_PERIOD_UNITS = ("day", "week", "month", "quarter")


def _shift_months(moment: datetime, months: int) -> datetime:
    """The same day and time ``months`` calendar months later (earlier when negative), on the month's
    last day when it is shorter."""
    serial = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(serial, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def get_start_date(sf: Salesforce, end_date: str, period: str, interval_count: int) -> str:
    unit = str(period).strip().lower().rstrip("s")
    if unit not in _PERIOD_UNITS:
        raise ToolError(f"period must be one of {', '.join(_PERIOD_UNITS)}, got {period!r}")
    if isinstance(interval_count, bool) or not isinstance(interval_count, int) or interval_count < 0:
        raise ToolError(f"interval_count must be a whole number of periods, got {interval_count!r}")
    end = parse_moment(end_date, "end_date")
    if unit == "day":
        return format_moment(end - timedelta(days=interval_count))
    if unit == "week":
        return format_moment(end - timedelta(weeks=interval_count))
    return format_moment(_shift_months(end, -interval_count * (3 if unit == "quarter" else 1)))


GET_START_DATE = define(
    get_start_date,
    DATES,
    "The start of a period that ends at end_date and reaches back interval_count days, weeks (7 days), "
    "months (same day of the month, or that month's last day) or quarters (3 months). Use it for 'the past N "
    "days/weeks/months/quarters': the period is [start, end_date).",
    {
        "end_date": string("End of the period, e.g. today at midnight: 'YYYY-MM-DDTHH:MM:SSZ' (UTC)."),
        "period": string("The unit to count back.", enum=list(_PERIOD_UNITS)),
        "interval_count": integer("How many units to count back."),
    },
    ("end_date", "period", "interval_count"),
)


def _period_start(name: str, year: int) -> tuple[date, int]:
    """First day of the named period and its length in months."""
    key = name.strip().lower()
    if key in _MONTHS:
        return date(year, _MONTHS[key], 1), 1
    if key in ("q1", "q2", "q3", "q4"):
        return date(year, 3 * int(key[1]) - 2, 1), 3
    if key in _SEASONS:
        return date(year, _SEASONS[key], 1), 3
    if key in ("year", "calendar year"):
        return date(year, 1, 1), 12
    raise ToolError(f"period_name must be a month name, Q1-Q4, Spring/Summer/Autumn/Fall/Winter or Year, got {name!r}")


def get_period(sf: Salesforce, period_name: str, year: int) -> dict[str, str]:
    if not isinstance(period_name, str):
        raise ToolError(f"period_name must be text, got {period_name!r}")
    try:
        year = int(year)
    except (TypeError, ValueError):
        raise ToolError(f"year must be a year such as 2023, got {year!r}") from None
    if not 1900 <= year <= 2999:
        raise ToolError(f"year must be a year such as 2023, got {year!r}")
    first, months = _period_start(period_name, year)
    start = datetime(first.year, first.month, first.day)
    return {"start_date": format_moment(start), "end_date": format_moment(_shift_months(start, months))}


GET_PERIOD = define(
    get_period,
    DATES,
    "The bounds of a named period of a year as {start_date, end_date}, half-open [start_date, end_date) in UTC: "
    "a month (January…December), a quarter (Q1 = Jan–Mar … Q4 = Oct–Dec), a season (Spring = Mar–May, "
    "Summer = Jun–Aug, Autumn/Fall = Sep–Nov, Winter = Dec of that year to the end of February of the next) "
    "or the whole Year.",
    {
        "period_name": string("A month name, Q1-Q4, Spring, Summer, Autumn, Fall, Winter, or Year."),
        "year": integer("The year the period starts in (for Winter, the year of its December)."),
    },
    ("period_name", "year"),
)

TOOLS = (GET_START_DATE, GET_PERIOD)

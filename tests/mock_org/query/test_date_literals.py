"""Every relative date literal's range, computed by hand for a fixed day (reference/soql_sosl.md §1.8)."""

from __future__ import annotations

import datetime as dt

import pytest

from mock_org.clock import OrgClock
from mock_org.query.date_literals import DATE_LITERALS, date_range
from soql_parser.literals import RELATIVE_DATE_LITERALS

# Wednesday 2023-05-17; the week starts on Sunday 2023-05-14 (en_US); Q2 began 2023-04-01.
CLOCK = OrgClock.for_date("2023-05-17")
D = dt.date


def test_the_table_has_every_literal_of_the_grammar() -> None:
    assert set(DATE_LITERALS) == set(RELATIVE_DATE_LITERALS)


@pytest.mark.parametrize(
    ("name", "n", "start", "end"),
    [
        ("YESTERDAY", None, D(2023, 5, 16), D(2023, 5, 17)),
        ("TODAY", None, D(2023, 5, 17), D(2023, 5, 18)),
        ("TOMORROW", None, D(2023, 5, 18), D(2023, 5, 19)),
        ("LAST_WEEK", None, D(2023, 5, 7), D(2023, 5, 14)),
        ("THIS_WEEK", None, D(2023, 5, 14), D(2023, 5, 21)),
        ("NEXT_WEEK", None, D(2023, 5, 21), D(2023, 5, 28)),
        ("LAST_MONTH", None, D(2023, 4, 1), D(2023, 5, 1)),
        ("THIS_MONTH", None, D(2023, 5, 1), D(2023, 6, 1)),
        ("NEXT_MONTH", None, D(2023, 6, 1), D(2023, 7, 1)),
        ("LAST_90_DAYS", None, D(2023, 2, 16), D(2023, 5, 18)),
        ("NEXT_90_DAYS", None, D(2023, 5, 18), D(2023, 8, 16)),
        ("LAST_N_DAYS", 1, D(2023, 5, 16), D(2023, 5, 18)),
        ("LAST_N_DAYS", 30, D(2023, 4, 17), D(2023, 5, 18)),
        ("NEXT_N_DAYS", 1, D(2023, 5, 18), D(2023, 5, 19)),
        ("N_DAYS_AGO", 3, D(2023, 5, 14), D(2023, 5, 15)),
        ("LAST_N_WEEKS", 2, D(2023, 4, 30), D(2023, 5, 14)),
        ("NEXT_N_WEEKS", 2, D(2023, 5, 21), D(2023, 6, 4)),
        ("N_WEEKS_AGO", 2, D(2023, 4, 30), D(2023, 5, 7)),
        ("LAST_N_MONTHS", 2, D(2023, 3, 1), D(2023, 5, 1)),
        ("NEXT_N_MONTHS", 2, D(2023, 6, 1), D(2023, 8, 1)),
        ("N_MONTHS_AGO", 5, D(2022, 12, 1), D(2023, 1, 1)),
        ("THIS_QUARTER", None, D(2023, 4, 1), D(2023, 7, 1)),
        ("LAST_QUARTER", None, D(2023, 1, 1), D(2023, 4, 1)),
        ("NEXT_QUARTER", None, D(2023, 7, 1), D(2023, 10, 1)),
        ("LAST_N_QUARTERS", 2, D(2022, 10, 1), D(2023, 4, 1)),
        ("NEXT_N_QUARTERS", 2, D(2023, 7, 1), D(2024, 1, 1)),
        ("N_QUARTERS_AGO", 1, D(2023, 1, 1), D(2023, 4, 1)),
        ("THIS_YEAR", None, D(2023, 1, 1), D(2024, 1, 1)),
        ("LAST_YEAR", None, D(2022, 1, 1), D(2023, 1, 1)),
        ("NEXT_YEAR", None, D(2024, 1, 1), D(2025, 1, 1)),
        ("LAST_N_YEARS", 3, D(2020, 1, 1), D(2023, 1, 1)),
        ("NEXT_N_YEARS", 2, D(2024, 1, 1), D(2026, 1, 1)),
        ("N_YEARS_AGO", 2, D(2021, 1, 1), D(2022, 1, 1)),
        ("THIS_FISCAL_QUARTER", None, D(2023, 4, 1), D(2023, 7, 1)),
        ("LAST_FISCAL_QUARTER", None, D(2023, 1, 1), D(2023, 4, 1)),
        ("NEXT_FISCAL_QUARTER", None, D(2023, 7, 1), D(2023, 10, 1)),
        ("LAST_N_FISCAL_QUARTERS", 3, D(2022, 7, 1), D(2023, 4, 1)),
        ("NEXT_N_FISCAL_QUARTERS", 1, D(2023, 7, 1), D(2023, 10, 1)),
        ("N_FISCAL_QUARTERS_AGO", 2, D(2022, 10, 1), D(2023, 1, 1)),
        ("THIS_FISCAL_YEAR", None, D(2023, 1, 1), D(2024, 1, 1)),
        ("LAST_FISCAL_YEAR", None, D(2022, 1, 1), D(2023, 1, 1)),
        ("NEXT_FISCAL_YEAR", None, D(2024, 1, 1), D(2025, 1, 1)),
        ("LAST_N_FISCAL_YEARS", 2, D(2021, 1, 1), D(2023, 1, 1)),
        ("NEXT_N_FISCAL_YEARS", 2, D(2024, 1, 1), D(2026, 1, 1)),
        ("N_FISCAL_YEARS_AGO", 1, D(2022, 1, 1), D(2023, 1, 1)),
    ],
)
def test_range(name: str, n: int | None, start: dt.date, end: dt.date) -> None:
    assert date_range(name, n, CLOCK) == (start, end)


def test_week_start_follows_the_locale() -> None:
    monday_first = OrgClock(now_fixed=CLOCK.now(), week_start=0)
    assert date_range("THIS_WEEK", None, monday_first) == (D(2023, 5, 15), D(2023, 5, 22))


def test_fiscal_year_follows_the_org_setting() -> None:
    february = OrgClock(now_fixed=CLOCK.now(), fiscal_year_start_month=2)
    assert date_range("THIS_FISCAL_YEAR", None, february) == (D(2023, 2, 1), D(2024, 2, 1))
    assert date_range("THIS_FISCAL_QUARTER", None, february) == (D(2023, 5, 1), D(2023, 8, 1))
    january_clock = OrgClock.for_date("2023-01-20")
    early = OrgClock(now_fixed=january_clock.now(), fiscal_year_start_month=2)
    assert date_range("THIS_FISCAL_YEAR", None, early) == (D(2022, 2, 1), D(2023, 2, 1))


def test_today_is_the_users_date_not_utcs() -> None:
    # 02:00 UTC on 18 May is still 17 May in Los Angeles.
    late = OrgClock(now_fixed=dt.datetime(2023, 5, 18, 2, tzinfo=dt.UTC))
    assert date_range("TODAY", None, late) == (D(2023, 5, 17), D(2023, 5, 18))

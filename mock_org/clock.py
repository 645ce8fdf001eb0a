"""The org's idea of "now": a fixed or running clock, the querying user's time zone and calendar.

Relative date literals (TODAY, LAST_N_DAYS:30 …) and date functions depend on it, so a benchmark
fixes it to make results reproducible.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class OrgClock:
    """``now_fixed`` fixes the clock (an aware datetime); None follows the machine's clock. With
    ``running_since`` (the machine's instant at which the clock stood at ``now_fixed``) it runs on from
    ``now_fixed`` at the machine's pace.

    ``timezone`` is the querying user's IANA zone, ``week_start`` the first day of the week
    (6 = Sunday as in en_US, 0 = Monday), ``fiscal_year_start_month`` the org's fiscal setting.
    """

    now_fixed: dt.datetime | None = None
    timezone: str = "America/Los_Angeles"
    week_start: int = 6
    fiscal_year_start_month: int = 1
    running_since: dt.datetime | None = None

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def now(self) -> dt.datetime:
        """The current instant, in UTC."""
        if self.now_fixed is None:
            return dt.datetime.now(dt.UTC)
        if self.running_since is None:
            return self.now_fixed.astimezone(dt.UTC)
        return (self.now_fixed + (dt.datetime.now(dt.UTC) - self.running_since)).astimezone(dt.UTC)

    def today(self) -> dt.date:
        """Today's date in the user's time zone."""
        return self.now().astimezone(self.zone).date()

    def local_midnight_utc(self, day: dt.date) -> dt.datetime:
        """The UTC instant at which ``day`` begins in the user's time zone."""
        return dt.datetime.combine(day, dt.time(), tzinfo=self.zone).astimezone(dt.UTC)

    @classmethod
    def for_date(cls, today: dt.date | str, timezone: str = "America/Los_Angeles") -> OrgClock:
        """A clock frozen at noon of ``today`` in ``timezone`` (what a benchmark task's "today" means)."""
        day = dt.date.fromisoformat(today) if isinstance(today, str) else today
        noon = dt.datetime.combine(day, dt.time(12), tzinfo=ZoneInfo(timezone))
        return cls(now_fixed=noon, timezone=timezone)

    @classmethod
    def running_from(cls, today: dt.date | str, timezone: str = "America/Los_Angeles") -> OrgClock:
        """A clock that starts at noon of ``today`` and runs: a served org keeps its own date while the
        records written to it get distinct, increasing timestamps."""
        return replace(cls.for_date(today, timezone), running_since=dt.datetime.now(dt.UTC))

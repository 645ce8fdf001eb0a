"""The org's idea of "now": a fixed or running clock, the querying user's time zone and calendar.

Relative date literals (TODAY, LAST_N_DAYS:30 …) and date functions depend on it, so a benchmark
fixes it to make results reproducible.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo


@dataclass(frozen=True)
class OrgClock:
    """``now`` fixes the clock (an aware datetime); None follows the machine's clock.

    ``timezone`` is the querying user's IANA zone, ``week_start`` the first day of the week
    (6 = Sunday as in en_US, 0 = Monday), ``fiscal_year_start_month`` the org's fiscal setting.
    """

    now_fixed: dt.datetime | None = None
    timezone: str = "America/Los_Angeles"
    week_start: int = 6
    fiscal_year_start_month: int = 1

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def now(self) -> dt.datetime:
        """The current instant, in UTC."""
        if self.now_fixed is not None:
            return self.now_fixed.astimezone(dt.UTC)
        return dt.datetime.now(dt.UTC)

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

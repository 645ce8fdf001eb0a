"""``/services/data/vNN.N/crmarena/clock``: a mock-only resource (a real org has no such thing) that
gives the calling session a "today" of its own.

A benchmark instance tells the agent its date; the harness sets that date here for the session the
agent's client uses, so ``TODAY``, ``LAST_N_DAYS:n`` and the date functions mean what the task means,
while other sessions keep theirs (or the org's). ``PUT {"today": "YYYY-MM-DD", "timezone"?: IANA
zone}`` sets it (noon of that day in the zone, default the org clock's zone), ``GET`` reads it,
``DELETE`` returns the session to the org's clock. The clock lives as long as the session.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import Response, request

from ....clock import OrgClock
from ....errors import JsonParserError
from ..body import read_object
from ..state import org, session, state
from ..wire import json_response, no_content


def clock(version: str) -> Response:
    current = session()
    if request.method == "PUT":
        current.clock = _clock_from(read_object(), org().clock.timezone)
        state().auth.save(current)
    elif request.method == "DELETE":
        current.clock = None
        state().auth.save(current)
        return no_content()
    return json_response(_describe(current.clock or org().clock, own=current.clock is not None))


def _clock_from(body: dict[str, Any], default_zone: str) -> OrgClock:
    today, zone = body.get("today"), body.get("timezone", default_zone)
    if not isinstance(today, str):
        raise JsonParserError('The clock needs "today" as a date string, YYYY-MM-DD')
    try:
        day = dt.date.fromisoformat(today)
    except ValueError:
        raise JsonParserError(f'Cannot deserialize value of type `Date` from "{today}": not YYYY-MM-DD') from None
    if not _known_zone(zone):
        raise JsonParserError(f"Unknown time zone {zone!r}: use an IANA name such as America/New_York")
    return OrgClock.for_date(day, zone)


def _known_zone(zone: Any) -> bool:
    try:
        return isinstance(zone, str) and bool(ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError):
        return False


def _describe(clock: OrgClock, *, own: bool) -> dict[str, Any]:
    return {
        "today": clock.today().isoformat(),
        "timezone": clock.timezone,
        "now": clock.now().isoformat(),
        "session": own,
    }

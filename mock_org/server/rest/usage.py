"""The org's API request allowance: counted per request, reported by ``/limits`` and ``Sforce-Limit-Info``.

Like a real org's DailyApiRequests, the count starts again every day (UTC); past the limit every
API call is refused with REQUEST_LIMIT_EXCEEDED (HTTP 403).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from ...errors import RequestLimitExceeded
from ...shared import LocalState, SharedState


class ApiUsage:
    """The count lives in ``state`` (shared.py), so the workers of one server count one allowance; each
    adds to its own part of it, so counting takes no lock between them."""

    def __init__(
        self,
        limit: int,
        today: Callable[[], dt.date] = lambda: dt.datetime.now(dt.UTC).date(),
        state: SharedState | None = None,
    ) -> None:
        self.limit = limit
        self._today = today
        self._requests = (state or LocalState()).tally("usage:requests")

    def count(self) -> None:
        """Count one API request, or refuse it when the day's allowance is spent."""
        if not self._requests.add(self._today().toordinal(), self.limit):
            raise RequestLimitExceeded("TotalRequests Limit exceeded.")

    @property
    def used(self) -> int:
        """Today's count so far (a new day starts at 0)."""
        return self._requests.total(self._today().toordinal())

    def header(self) -> str:
        """The ``Sforce-Limit-Info`` value; clients match ``api-usage=(\\d+)/(\\d+)`` at its start."""
        return f"api-usage={self.used}/{self.limit}"

    def limits(self) -> dict[str, Any]:
        """``GET /limits``: the daily API allowance as counted, the other allowances as a fresh org has them."""
        remaining = max(self.limit - self.used, 0)
        fixed = {
            "ConcurrentAsyncGetReportInstances": 200,
            "ConcurrentSyncReportRuns": 20,
            "DailyAsyncApexExecutions": 250000,
            "DailyBulkApiBatches": 15000,
            "DailyBulkV2QueryFileStorageMB": 976562,
            "DailyBulkV2QueryJobs": 10000,
            "DailyGenericStreamingApiEvents": 10000,
            "DailyStreamingApiEvents": 1000000,
            "DailyWorkflowEmails": 390,
            "DataStorageMB": 1024,
            "FileStorageMB": 1024,
            "HourlyTimeBasedWorkflow": 1000,
            "MassEmail": 5000,
            "SingleEmail": 5000,
        }
        body: dict[str, Any] = {"DailyApiRequests": {"Max": self.limit, "Remaining": remaining}}
        body.update({name: {"Max": value, "Remaining": value} for name, value in fixed.items()})
        return dict(sorted(body.items()))

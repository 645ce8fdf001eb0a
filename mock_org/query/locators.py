"""Query cursors for paging: ``nextRecordsUrl`` locators like ``01gWs0000000abcDEF-2000``.

A cursor keeps what fetching the next page needs, never the records: the compiled plan (shared with
the plan cache), who opened it, the total and the page size. Each page runs the plan again from the
locator's offset; the plan orders its rows completely (its sort keys, then the row id), so the pages
of an unchanged table are exactly the slices of one result. As on a real org, cursors expire after
15 idle minutes and a user has at most 10 open: opening an eleventh releases that user's oldest,
whose locator then answers INVALID_QUERY_LOCATOR (reference/salesforce_api.md §4.1; SOAP API
Developer Guide, "queryMore()").

The cursors live in a state (shared.py): this process's memory, or the state file the workers of
one server share; there a cursor keeps its plan's source instead of the plan, and a worker that
did not compile the plan compiles it again from the source (the same text, user and frozen clock
make the same plan).
"""

from __future__ import annotations

import secrets
import string
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..clock import OrgClock
from ..errors import InvalidQueryLocator
from ..shared import LocalState, SharedState
from .templates import QueryPlan

_ALPHABET = string.digits + string.ascii_letters
IDLE_SECONDS = 15 * 60
MAX_PER_USER = 10
MAX_CURSORS = 10_000  # all users together; a cursor costs a few hundred bytes
INVALID = "invalid query locator"


@dataclass(frozen=True)
class PlanSource:
    """What compiles a cursor's plan again: the text, queryAll, and the clock as it stood at the open."""

    text: str
    include_deleted: bool
    clock: OrgClock

    @classmethod
    def of(cls, text: str, include_deleted: bool, clock: OrgClock) -> PlanSource:
        return cls(text, include_deleted, replace(clock, now_fixed=clock.now(), running_since=None))


@dataclass
class Cursor:
    plan: QueryPlan | None  # None in a cursor read from shared state, until compiled again
    user_id: str | None
    total: int
    batch_size: int
    source: PlanSource | None = None
    touched: float = field(default_factory=time.monotonic)  # system-wide: the same clock in every worker

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "plan": None}  # a plan is not written down; its source is


Replan = Callable[[PlanSource, "str | None"], QueryPlan]


class CursorStore:
    def __init__(
        self,
        idle_seconds: float = IDLE_SECONDS,
        per_user: int = MAX_PER_USER,
        capacity: int = MAX_CURSORS,
        replan: Replan | None = None,
    ) -> None:
        self.idle_seconds = idle_seconds
        self.per_user = per_user
        self.capacity = capacity
        self.replan = replan
        self.keep_in(LocalState())

    def keep_in(self, state: SharedState) -> None:
        """Keep the cursors in ``state`` from now on (the workers of one server share theirs)."""
        self._cursors: MutableMapping[str, Cursor] = state.table("cursors")  # least recently used first
        self._lock = state.lock

    def open(
        self, plan: QueryPlan, user_id: str | None, total: int, batch_size: int, source: PlanSource | None = None
    ) -> str:
        """A new cursor's id (``01g`` + 15 base-62 characters); the user's oldest goes if it has too many."""
        cursor_id = "01g" + "".join(secrets.choice(_ALPHABET) for _ in range(15))
        with self._lock:
            self._expire()
            mine = [key for key, cursor in self._cursors.items() if cursor.user_id == user_id]
            for key in mine[: max(0, len(mine) - self.per_user + 1)]:
                del self._cursors[key]
            self._cursors[cursor_id] = Cursor(plan, user_id, total, batch_size, source)
            while len(self._cursors) > self.capacity:
                del self._cursors[next(iter(self._cursors))]  # the least recently used
        return cursor_id

    def find(self, locator: str, user_id: str | None) -> tuple[str, Cursor, QueryPlan, int]:
        """The cursor a locator (``<cursor>-<offset>``) names, its plan (compiled again if it was read from
        shared state) and the offset; only its owner may use it."""
        cursor_id, _, offset_text = locator.partition("-")
        with self._lock:
            self._expire()
            cursor = self._cursors.get(cursor_id)
            if cursor is None or cursor.user_id != user_id or not (offset_text.isascii() and offset_text.isdigit()):
                raise InvalidQueryLocator(INVALID)
            offset = int(offset_text)
            if offset > cursor.total:
                raise InvalidQueryLocator(INVALID)
            cursor.touched = time.monotonic()
            del self._cursors[cursor_id]
            self._cursors[cursor_id] = cursor  # now the most recently used
        plan = cursor.plan
        if plan is None:
            if cursor.source is None or self.replan is None:
                raise InvalidQueryLocator(INVALID)
            plan = cursor.plan = self.replan(cursor.source, cursor.user_id)
        return cursor_id, cursor, plan, offset

    def close(self, cursor_id: str) -> None:
        """The last page was read: the cursor is released."""
        with self._lock:
            self._cursors.pop(cursor_id, None)

    def _expire(self) -> None:
        deadline = time.monotonic() - self.idle_seconds
        for cursor_id in [key for key, cursor in self._cursors.items() if cursor.touched < deadline]:
            del self._cursors[cursor_id]

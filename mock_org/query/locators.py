"""Query cursors for paging: ``nextRecordsUrl`` locators like ``01gWs0000000abcDEF-2000``.

A cursor keeps what fetching the next page needs, never the records: the compiled plan (shared with
the plan cache), who opened it, the total and the page size. Each page runs the plan again from the
locator's offset; the plan orders its rows completely (its sort keys, then the row id), so the pages
of an unchanged table are exactly the slices of one result. As on a real org, cursors expire after
15 idle minutes and a user has at most 10 open: opening an eleventh releases that user's oldest,
whose locator then answers INVALID_QUERY_LOCATOR (reference/salesforce_api.md §4.1; SOAP API
Developer Guide, "queryMore()").
"""

from __future__ import annotations

import secrets
import string
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from ..errors import InvalidQueryLocator
from .templates import QueryPlan

_ALPHABET = string.digits + string.ascii_letters
IDLE_SECONDS = 15 * 60
MAX_PER_USER = 10
MAX_CURSORS = 10_000  # all users together; a cursor costs a few hundred bytes
INVALID = "invalid query locator"


@dataclass
class Cursor:
    plan: QueryPlan
    user_id: str | None
    total: int
    batch_size: int
    touched: float = field(default_factory=time.monotonic)


class CursorStore:
    def __init__(
        self, idle_seconds: float = IDLE_SECONDS, per_user: int = MAX_PER_USER, capacity: int = MAX_CURSORS
    ) -> None:
        self._cursors: OrderedDict[str, Cursor] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self.idle_seconds = idle_seconds
        self.per_user = per_user
        self.capacity = capacity

    def open(self, plan: QueryPlan, user_id: str | None, total: int, batch_size: int) -> str:
        """A new cursor's id (``01g`` + 15 base-62 characters); the user's oldest goes if it has too many."""
        cursor_id = "01g" + "".join(secrets.choice(_ALPHABET) for _ in range(15))
        with self._lock:
            self._expire()
            mine = [key for key, cursor in self._cursors.items() if cursor.user_id == user_id]
            for key in mine[: max(0, len(mine) - self.per_user + 1)]:
                del self._cursors[key]
            self._cursors[cursor_id] = Cursor(plan, user_id, total, batch_size)
            while len(self._cursors) > self.capacity:
                self._cursors.popitem(last=False)
        return cursor_id

    def find(self, locator: str, user_id: str | None) -> tuple[str, Cursor, int]:
        """The cursor a locator (``<cursor>-<offset>``) names, with the offset; only its owner may use it."""
        cursor_id, _, offset_text = locator.partition("-")
        with self._lock:
            self._expire()
            cursor = self._cursors.get(cursor_id)
            if cursor is None or cursor.user_id != user_id or not offset_text.isdigit():
                raise InvalidQueryLocator(INVALID)
            offset = int(offset_text)
            if offset > cursor.total:
                raise InvalidQueryLocator(INVALID)
            cursor.touched = time.monotonic()
            self._cursors.move_to_end(cursor_id)
        return cursor_id, cursor, offset

    def close(self, cursor_id: str) -> None:
        """The last page was read: the cursor is released."""
        with self._lock:
            self._cursors.pop(cursor_id, None)

    def _expire(self) -> None:
        deadline = time.monotonic() - self.idle_seconds
        for cursor_id in [key for key, cursor in self._cursors.items() if cursor.touched < deadline]:
            del self._cursors[cursor_id]

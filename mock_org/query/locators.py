"""Query cursors for paging: ``nextRecordsUrl`` locators like ``01gWs0000000abcDEF-2000``.

A query's records are taken in one snapshot and kept here; each page is a slice. Like a real org,
cursors expire after 15 idle minutes and a user keeps a bounded number of them
(reference/salesforce_api.md §4.1).
"""

from __future__ import annotations

import secrets
import string
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidQueryLocator

_ALPHABET = string.digits + string.ascii_letters
IDLE_SECONDS = 15 * 60
MAX_CURSORS = 1000


@dataclass
class Cursor:
    records: list[dict[str, Any]]
    batch_size: int
    touched: float = field(default_factory=time.monotonic)


class CursorStore:
    def __init__(self, idle_seconds: float = IDLE_SECONDS, capacity: int = MAX_CURSORS) -> None:
        self._cursors: OrderedDict[str, Cursor] = OrderedDict()
        self._lock = threading.Lock()
        self.idle_seconds = idle_seconds
        self.capacity = capacity

    def open(self, records: list[dict[str, Any]], batch_size: int) -> str:
        """Keep ``records`` and return the cursor's id (``01g`` + 15 base-62 characters)."""
        cursor_id = "01g" + "".join(secrets.choice(_ALPHABET) for _ in range(15))
        with self._lock:
            self._expire()
            self._cursors[cursor_id] = Cursor(records, batch_size)
            while len(self._cursors) > self.capacity:
                self._cursors.popitem(last=False)
        return cursor_id

    def page(self, locator: str) -> tuple[list[dict[str, Any]], int, int | None]:
        """The page that ``locator`` (``<cursor>-<offset>``) starts: its records, the total, the next offset."""
        cursor_id, _, offset_text = locator.partition("-")
        with self._lock:
            self._expire()
            cursor = self._cursors.get(cursor_id)
            if cursor is None or not offset_text.isdigit():
                raise InvalidQueryLocator("invalid query locator")
            cursor.touched = time.monotonic()
            self._cursors.move_to_end(cursor_id)
        offset = int(offset_text)
        if offset > len(cursor.records):
            raise InvalidQueryLocator("invalid query locator")
        end = offset + cursor.batch_size
        next_offset = end if end < len(cursor.records) else None
        if next_offset is None:
            with self._lock:
                self._cursors.pop(cursor_id, None)
        return cursor.records[offset:end], len(cursor.records), next_offset

    def _expire(self) -> None:
        deadline = time.monotonic() - self.idle_seconds
        for cursor_id in [key for key, cursor in self._cursors.items() if cursor.touched < deadline]:
            del self._cursors[cursor_id]

"""Request bodies as the front reads them: in memory while small, in a temporary file past a threshold.

A body is kept in memory up to ``body_memory_bytes``, and only while the bodies of all connections
together stay within ``bodies_in_memory_bytes`` (the ``MemoryBudget`` they share); past either, it goes
on into an unnamed temporary file. The app reads it from there as a stream (``wsgi.input``): an
upload handler that copies it onward (Bulk API uploads) never holds it whole, so four clients
uploading 140 MB each cost the server disk, not 4 × 140 MB of memory read several times over.
"""

from __future__ import annotations

import io
import tempfile
import threading
from typing import BinaryIO


class MemoryBudget:
    """Bytes of request bodies in memory, all connections together."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self._lock = threading.Lock()

    def take(self, size: int) -> bool:
        with self._lock:
            if self.used + size > self.limit:
                return False
            self.used += size
            return True

    def give_back(self, size: int) -> None:
        with self._lock:
            self.used -= size


class Body:
    """One request's body while it is read; ``stream()`` hands it to the app, ``close()`` lets it go."""

    def __init__(self, budget: MemoryBudget, memory_limit: int) -> None:
        self.budget = budget
        self.memory_limit = memory_limit
        self.size = 0
        self._memory = bytearray()
        self._held = 0  # bytes taken from the budget
        self._file: BinaryIO | None = None

    def write(self, data: bytes) -> None:
        if not data:
            return
        self.size += len(data)
        if self._file is None:
            if len(self._memory) + len(data) <= self.memory_limit and self.budget.take(len(data)):
                self._held += len(data)
                self._memory += data
                return
            self._file = tempfile.TemporaryFile(prefix="crmarena-body-")  # noqa: SIM115 - closed by close()
            self._file.write(self._memory)
            self._release_memory()
        self._file.write(data)

    @property
    def on_disk(self) -> bool:
        return self._file is not None

    def stream(self) -> BinaryIO:
        """The body from its start, as a file the app reads (``wsgi.input``)."""
        if self._file is None:
            return io.BytesIO(self._memory)
        self._file.flush()
        self._file.seek(0)
        return self._file

    def discard(self) -> None:
        """Keep nothing of it (a body over its limit is read and dropped, so the client hears the 413)."""
        self._release_memory()
        if self._file is not None:
            self._file.close()
            self._file = None

    def close(self) -> None:
        self.discard()

    def _release_memory(self) -> None:
        self._memory = bytearray()
        if self._held:
            self.budget.give_back(self._held)
            self._held = 0

"""Where a server keeps what its requests share beyond the org's own records: sessions, passwords,
lockouts, query cursors, Bulk API jobs, the API request count (a tally of parts, one per process).

``LocalState`` keeps it in this process (one ``crmarena serve``, as ever). ``StateFile`` keeps it in
a small SQLite file that every worker of ``crmarena serve --workers N`` opens, so that a token
minted by one worker, a cursor opened on another and a job polled on a third are the same thing
everywhere. Both hand out tables that behave as ordered mappings (insertion order, ``popitem``
from either end) and one lock: a process-wide one for ``LocalState``, one that also excludes the
other workers (``flock``) for ``StateFile``. A caller that reads, changes and writes back an entry
holds the lock across the three, so no worker's change is lost to another's.

The values are pickled: the file is made by the parent process in a private directory (mode 0700)
and read only by its own workers; it lives as long as the server, like the memory it replaces.
"""

from __future__ import annotations

import fcntl
import itertools
import mmap
import os
import pickle
import shutil
import sqlite3
import struct
import tempfile
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator, MutableMapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol


class Counter(Protocol):
    """One integer every worker sees; change it under the state's lock."""

    def get(self) -> int: ...

    def set(self, value: int) -> None: ...


class DailyTally(Protocol):
    """A count of the day that every worker adds to with no lock between processes: each process adds
    to a part of its own, and the day's count is the sum of the parts (the API request count, added to
    on every request: a lock shared by the workers there cost 2,369 → 1,071 requests per second)."""

    def add(self, day: int, limit: int) -> bool:
        """Count one for ``day`` unless the day's count has reached ``limit``; whether it was counted
        (exact within a process; workers counting the last few at once may pass it by one each)."""
        ...

    def total(self, day: int) -> int: ...


class SharedState(Protocol):
    @property
    def lock(self) -> AbstractContextManager[Any]: ...

    def table(self, name: str, *, cached: bool = False) -> MutableMapping[str, Any]: ...

    def counter(self, name: str) -> Counter: ...

    def tally(self, name: str) -> DailyTally: ...

    def files(self) -> Path:
        """A private folder for what is kept on disk (Bulk API job data), as long as the state lives."""
        ...


class _Number:
    def __init__(self) -> None:
        self.value = 0

    def get(self) -> int:
        return self.value

    def set(self, value: int) -> None:
        self.value = value


class _LocalTally:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._day, self._count = -1, 0

    def add(self, day: int, limit: int) -> bool:
        with self._lock:
            if self._day != day:
                self._day, self._count = day, 0
            if self._count >= limit:
                return False
            self._count += 1
            return True

    def total(self, day: int) -> int:
        return self._count if self._day == day else 0


class LocalState:
    """This process's memory: ordered dicts and a re-entrant lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._tables: dict[str, OrderedDict[str, Any]] = {}
        self._counters: dict[str, _Number] = {}
        self._tallies: dict[str, _LocalTally] = {}
        self._files: Path | None = None

    def files(self) -> Path:
        with self.lock:
            if self._files is None:
                self._files = Path(tempfile.mkdtemp(prefix="crmarena-files-"))  # mode 0700
                weakref.finalize(self, shutil.rmtree, self._files, True)
            return self._files

    def table(self, name: str, *, cached: bool = False) -> OrderedDict[str, Any]:
        return self._tables.setdefault(name, OrderedDict())

    def counter(self, name: str) -> _Number:
        with self.lock:
            return self._counters.setdefault(name, _Number())

    def tally(self, name: str) -> _LocalTally:
        with self.lock:
            return self._tallies.setdefault(name, _LocalTally())


class ProcessLock:
    """Re-entrant within a thread, exclusive among threads and among processes that lock the same file.

    ``flock`` blocks in the kernel and wakes the waiter as soon as the holder lets go (SQLite's own
    busy handler would poll with sleeps of a millisecond and more)."""

    def __init__(self, path: Path) -> None:
        self._threads = threading.RLock()
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self._depth = 0

    def __enter__(self) -> ProcessLock:
        self._threads.acquire()
        if self._depth == 0:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            except BaseException:
                self._threads.release()
                raise
        self._depth += 1
        return self

    def __exit__(self, *_: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._threads.release()

    def close(self) -> None:
        os.close(self._fd)


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS entry (kind TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,"
    " PRIMARY KEY (kind, key))",
    "CREATE TABLE IF NOT EXISTS slot (name TEXT PRIMARY KEY, slot INTEGER NOT NULL UNIQUE)",
)
_SLOTS = 512  # counters in the mapped file, 8 bytes each
_CACHED = 10_000  # entries a cached table keeps in this process at most


class MappedCounter:
    """A counter in ``counters.bin``, mapped into every worker: reading it is a memory read, not a query."""

    def __init__(self, memory: mmap.mmap, slot: int) -> None:
        self._memory, self._offset = memory, slot * 8

    def get(self) -> int:
        return int(struct.unpack_from("<q", self._memory, self._offset)[0])

    def set(self, value: int) -> None:
        struct.pack_into("<q", self._memory, self._offset, value)


class StateFile:
    """The shared state of one server's workers, in ``directory/state.db`` (made if missing), with its
    counters in ``directory/counters.bin``."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / "state.db"
        self.lock = ProcessLock(Path(directory) / "state.lock")
        self._local = threading.local()
        self._counters: dict[str, MappedCounter] = {}
        self._tallies: dict[str, MappedTally] = {}
        with self.lock:
            connection = self.connection()
            connection.execute("PRAGMA journal_mode = WAL")
            for statement in _SCHEMA:
                connection.execute(statement)
            fd = os.open(Path(directory) / "counters.bin", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                if os.fstat(fd).st_size < _SLOTS * 8:
                    os.ftruncate(fd, _SLOTS * 8)
                self._memory = mmap.mmap(fd, _SLOTS * 8)
            finally:
                os.close(fd)

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (autocommit; every write happens under ``lock``)."""
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA synchronous = OFF")  # the state lives as long as the server; no fsync
            self._local.connection = connection
        return connection

    def table(self, name: str, *, cached: bool = False) -> SharedTable:
        """``cached``: this process keeps the entries it read until any worker writes the table again
        (a generation counter says when), so a table read on every request and seldom written costs
        a memory read. The cached values are the same objects on every read: change them only to
        write them back."""
        return SharedTable(self, name, self.counter(f"generation:{name}") if cached else None)

    def counter(self, name: str) -> MappedCounter:
        found = self._counters.get(name)
        if found is None:
            with self.lock:
                connection = self.connection()
                row = connection.execute("SELECT slot FROM slot WHERE name = ?", (name,)).fetchone()
                if row is None:
                    row = connection.execute(
                        "INSERT INTO slot VALUES (?, (SELECT count(*) FROM slot)) RETURNING slot", (name,)
                    ).fetchone()
                if row[0] >= _SLOTS:
                    raise RuntimeError(f"more than {_SLOTS} shared counters")
                found = self._counters.setdefault(name, MappedCounter(self._memory, row[0]))
        return found

    def tally(self, name: str) -> MappedTally:
        with self.lock:
            found = self._tallies.get(name)
            if found is None:
                found = self._tallies[name] = MappedTally(self, name)
        return found

    def files(self) -> Path:
        """``directory/files``: the workers share it; it goes with the state's folder."""
        folder = self.path.parent / "files"
        folder.mkdir(mode=0o700, exist_ok=True)
        return folder


_TALLY_OWNERS = itertools.count()


class MappedTally:
    """A ``DailyTally`` in ``counters.bin``: this process's part is a (day, count) pair of counters that
    only it writes; the parts of every process are found in the slot table, looked up again only when
    a process adds its part (a member counter says when)."""

    def __init__(self, state: StateFile, name: str) -> None:
        self._state, self._name = state, name
        self._lock = threading.Lock()
        self._members = state.counter(f"tally:{name}:members")
        owner = f"{os.getpid()}.{next(_TALLY_OWNERS)}"  # two StateFiles of one process are two parts too
        self._day = state.counter(f"tally:{name}:day@{owner}")
        self._count = state.counter(f"tally:{name}:count@{owner}")
        with state.lock:
            self._members.set(self._members.get() + 1)
        self._known = -1
        self._parts: list[tuple[MappedCounter, MappedCounter]] = []

    def add(self, day: int, limit: int) -> bool:
        with self._lock:
            if self.total(day) >= limit:
                return False
            if self._day.get() != day:
                self._count.set(0)  # before the day: a reader never sees yesterday's count as today's
                self._day.set(day)
            self._count.set(self._count.get() + 1)
            return True

    def total(self, day: int) -> int:
        if self._members.get() != self._known:
            self._refresh()
        return sum(count.get() for part_day, count in self._parts if part_day.get() == day)

    def _refresh(self) -> None:
        with self._state.lock:
            known = self._members.get()
            prefix = f"tally:{self._name}:count@"
            rows = (
                self._state.connection()
                .execute("SELECT name FROM slot WHERE substr(name, 1, ?) = ?", (len(prefix), prefix))
                .fetchall()
            )
            owners = [name[len(prefix) :] for (name,) in rows]
            self._parts = [
                (self._state.counter(f"tally:{self._name}:day@{owner}"), self._state.counter(f"{prefix}{owner}"))
                for owner in owners
            ]
            self._known = known


class SharedTable(MutableMapping[str, Any]):
    """One kind of entry in a ``StateFile``, as an ordered mapping: writing a key moves it to the end."""

    def __init__(self, state: StateFile, kind: str, generation: MappedCounter | None = None) -> None:
        self._state, self._kind = state, kind
        self._generation = generation
        self._cache: dict[str, tuple[int, Any]] = {}

    def _run(self, sql: str, *parameters: Any) -> sqlite3.Cursor:
        return self._state.connection().execute(sql, (self._kind, *parameters))

    def __getitem__(self, key: str) -> Any:
        generation = self._generation.get() if self._generation is not None else None
        if generation is not None:
            hit = self._cache.get(key)
            if hit is not None and hit[0] == generation:
                return hit[1]
        row = self._run("SELECT value FROM entry WHERE kind = ? AND key = ?", key).fetchone()
        if row is None:
            raise KeyError(key)
        value = pickle.loads(row[0])
        if generation is not None:  # kept with the generation it was read in, good until the next write
            if len(self._cache) >= _CACHED:
                self._cache.clear()
            self._cache[key] = (generation, value)
        return value

    def _written(self) -> None:
        """Every worker's cached entries of this table are stale now (called under the lock)."""
        if self._generation is not None:
            self._generation.set(self._generation.get() + 1)

    def __setitem__(self, key: str, value: Any) -> None:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        with self._state.lock:  # REPLACE deletes the old row and adds one with a new rowid: it moves to the end
            self._run("INSERT OR REPLACE INTO entry (kind, key, value) VALUES (?, ?, ?)", key, data)
            self._written()

    def __delitem__(self, key: str) -> None:
        with self._state.lock:
            deleted = self._run("DELETE FROM entry WHERE kind = ? AND key = ?", key).rowcount
            self._written()
        if not deleted:
            raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter([row[0] for row in self._run("SELECT key FROM entry WHERE kind = ? ORDER BY rowid")])

    def __len__(self) -> int:
        return int(self._run("SELECT count(*) FROM entry WHERE kind = ?").fetchone()[0])

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        rows = self._run("SELECT key, value FROM entry WHERE kind = ? ORDER BY rowid").fetchall()
        return [(key, pickle.loads(value)) for key, value in rows]

    def values(self) -> list[Any]:  # type: ignore[override]
        return [value for _, value in self.items()]

    def popitem(self, last: bool = True) -> tuple[str, Any]:
        order = "DESC" if last else "ASC"
        with self._state.lock:
            row = self._run(f"SELECT key, value FROM entry WHERE kind = ? ORDER BY rowid {order} LIMIT 1").fetchone()
            if row is None:
                raise KeyError("the table is empty")
            self._run("DELETE FROM entry WHERE kind = ? AND key = ?", row[0])
            self._written()
        return row[0], pickle.loads(row[1])

"""Where a server keeps what its requests share beyond the org's own records: sessions, passwords,
lockouts, query cursors, Bulk API jobs, the API request count.

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
import os
import pickle
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, MutableMapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol


class SharedState(Protocol):
    lock: AbstractContextManager[Any]

    def table(self, name: str) -> MutableMapping[str, Any]: ...

    def next_serial(self, name: str) -> int: ...


class LocalState:
    """This process's memory: ordered dicts and a re-entrant lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._tables: dict[str, OrderedDict[str, Any]] = {}
        self._serials: dict[str, int] = {}

    def table(self, name: str) -> OrderedDict[str, Any]:
        return self._tables.setdefault(name, OrderedDict())

    def next_serial(self, name: str) -> int:
        with self.lock:
            serial = self._serials.get(name, 0) + 1
            self._serials[name] = serial
        return serial


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
    "CREATE TABLE IF NOT EXISTS serial (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
)


class StateFile:
    """The shared state of one server's workers, in ``directory/state.db`` (made if missing)."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / "state.db"
        self.lock = ProcessLock(Path(directory) / "state.lock")
        self._local = threading.local()
        with self.lock:
            connection = self.connection()
            connection.execute("PRAGMA journal_mode = WAL")
            for statement in _SCHEMA:
                connection.execute(statement)

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (autocommit; every write happens under ``lock``)."""
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA synchronous = OFF")  # the state lives as long as the server; no fsync
            self._local.connection = connection
        return connection

    def table(self, name: str) -> SharedTable:
        return SharedTable(self, name)

    def next_serial(self, name: str) -> int:
        with self.lock:
            row = (
                self.connection()
                .execute(
                    "INSERT INTO serial VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value",
                    (name,),
                )
                .fetchone()
            )
        return int(row[0])


class SharedTable(MutableMapping[str, Any]):
    """One kind of entry in a ``StateFile``, as an ordered mapping: writing a key moves it to the end."""

    def __init__(self, state: StateFile, kind: str) -> None:
        self._state, self._kind = state, kind

    def _run(self, sql: str, *parameters: Any) -> sqlite3.Cursor:
        return self._state.connection().execute(sql, (self._kind, *parameters))

    def __getitem__(self, key: str) -> Any:
        row = self._run("SELECT value FROM entry WHERE kind = ? AND key = ?", key).fetchone()
        if row is None:
            raise KeyError(key)
        return pickle.loads(row[0])

    def __setitem__(self, key: str, value: Any) -> None:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        with self._state.lock:
            self._run("DELETE FROM entry WHERE kind = ? AND key = ?", key)
            self._run("INSERT INTO entry (kind, key, value) VALUES (?, ?, ?)", key, data)

    def __delitem__(self, key: str) -> None:
        with self._state.lock:
            if self._run("DELETE FROM entry WHERE kind = ? AND key = ?", key).rowcount == 0:
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
        return row[0], pickle.loads(row[1])

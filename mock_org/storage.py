"""SQLite storage for an org: SQLAlchemy Core tables from the schema, the SQL functions the query
compiler needs, the indexes (indexes.py) and the search index, and the read and write transactions.

The file is in the dump layout (one table per object, one column per field; values.py has the
formats). Reads run in snapshot transactions on a pool of connections; writes go through one
connection at a time under a lock, in ``BEGIN IMMEDIATE`` transactions, with the database in WAL
mode, so a crash never leaves half a write behind.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, cast
from zoneinfo import ZoneInfo

from sqlalchemy import Column, Float, Integer, MetaData, Table, Text, create_engine, event, func, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import QueuePool
from sqlalchemy.sql.elements import ColumnElement

from . import deadline, platform, wildcards
from .indexes import create_indexes
from .schema import Field, Schema, SObject
from .search.index import build_search_index

INLINE_VALUES = 500  # longer IN lists are bound as one JSON array (one_of)
PROGRESS_STEPS = 10_000  # SQLite instructions between two looks at the query deadline (deadline.py)
_COLUMN_TYPES = {"boolean": Integer, "int": Integer, "double": Float, "currency": Float, "percent": Float}


def column_type(field: Field) -> type:
    return _COLUMN_TYPES.get(field.type, Text)


def driver_connection(connection: Connection) -> sqlite3.Connection:
    """The pysqlite connection under a checked-out SQLAlchemy one (SQLAlchemy types it optional: it is None
    only once the connection is invalidated, never while checked out)."""
    return cast(sqlite3.Connection, connection.connection.driver_connection)


def build_tables(schema: Schema, metadata: MetaData | None = None) -> dict[str, Table]:
    """One SQLAlchemy table per object, keyed by lower-case object name."""
    metadata = metadata or MetaData()
    tables = {}
    for sobject in schema:
        columns: list[Column[Any]] = [
            Column(field.name, column_type(field), primary_key=field.name == "Id", nullable=field.name != "Id")
            for field in sobject.field_list()
        ]
        tables[sobject.name.lower()] = Table(sobject.name, metadata, *columns)
    return tables


def one_of(column: ColumnElement, values: list[Any]) -> ColumnElement:
    """``column IN (values)``. A long list goes to SQLite as one JSON array read by ``json_each``, so
    it neither meets SQLite's limit of 32,766 bound variables nor costs a parameter per value."""
    if len(values) <= INLINE_VALUES:
        return column.in_(values)
    each = func.json_each(json.dumps(values)).table_valued("value")
    return column.in_(select(each.c.value))


# ----------------------------------------------------------------------------- SQL functions


def fold(value: Any) -> Any:
    """Case-insensitive comparison key for text: Unicode case folding (SQLite's NOCASE folds ASCII only)."""
    return value.casefold() if isinstance(value, str) else value


def _matches(value: Any, pattern: str) -> int | None:
    """LIKE: ``pattern`` (wildcards.py's encoding, already case-folded) against the folded value."""
    if value is None:
        return None
    deadline.check()  # SQLite's progress handler does not run while a Python function does
    return 1 if wildcards.decode(pattern).matches(str(value).casefold()) else 0


def _local_time(value: Any, zone: str) -> str | None:
    """A stored UTC datetime ('…+0000') as local wall time 'YYYY-MM-DD HH:MM:SS' in ``zone``."""
    if value is None:
        return None
    moment = dt.datetime.strptime(value[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dt.UTC)
    return moment.astimezone(_zone(zone)).strftime("%Y-%m-%d %H:%M:%S")


@lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def sort_key(value: str) -> tuple[str, str]:
    """How text sorts in the org's locale: accents and case ignored first, then the text itself."""
    stripped = "".join(char for char in unicodedata.normalize("NFKD", value) if not unicodedata.combining(char))
    return stripped.casefold(), value


def _collate(left: str, right: str) -> int:
    a, b = sort_key(left), sort_key(right)
    return (a > b) - (a < b)


def _picklist_set(value: Any) -> frozenset[str]:
    return frozenset(part.strip().casefold() for part in str(value).split(";") if part.strip())


def _multipicklist_includes(value: Any, groups_json: str) -> int:
    """INCLUDES: any of the groups (each an AND of values written 'A;B') is fully selected."""
    if value is None:
        return 0
    selected = _picklist_set(value)
    return 1 if any(_picklist_set(group) <= selected for group in json.loads(groups_json)) else 0


def _multipicklist_equals(value: Any, other: str) -> int:
    """`=` on a multi-select picklist compares the selected values as a set."""
    if value is None:
        return 0
    return 1 if _picklist_set(value) == _picklist_set(other) else 0


def register_functions(connection: sqlite3.Connection) -> None:
    """The SQL functions the compiled queries call; deterministic, so SQLite may cache them."""
    connection.create_function("sf_fold", 1, fold, deterministic=True)
    connection.create_function("sf_matches", 2, _matches, deterministic=True)
    connection.create_function("sf_local_time", 2, _local_time, deterministic=True)
    connection.create_function("sf_mp_includes", 2, _multipicklist_includes, deterministic=True)
    connection.create_function("sf_mp_equals", 2, _multipicklist_equals, deterministic=True)
    connection.create_collation("SF", _collate)


# ----------------------------------------------------------------------------- the database


class Storage:
    """One org database file, opened for reading (and, unless read-only, for writing)."""

    def __init__(self, path: str | Path, schema: Schema, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.schema = platform.org_schema(schema)
        self.read_only = read_only
        self.metadata = MetaData()
        self.tables = build_tables(self.schema, self.metadata)
        self._write_lock = threading.RLock()
        self._current = threading.local()  # the write transaction this thread is inside, if any
        self.reader = self._engine(read_only=True, pool_size=8)
        self.writer: Engine | None = None if read_only else self._engine(read_only=False, pool_size=1)
        self._watch: sqlite3.Connection | None = None  # opened on first use: the file may not exist yet
        self._watch_lock = threading.Lock()

    def _engine(self, *, read_only: bool, pool_size: int) -> Engine:
        # A read-only file is opened with mode=ro, so not even a bug could change it.
        mode = "ro" if self.read_only else "rwc"
        engine = create_engine(
            f"sqlite+pysqlite:///file:{self.path}?mode={mode}&uri=true",
            poolclass=QueuePool,
            pool_size=pool_size,
            max_overflow=8 if read_only else 0,
            connect_args={"check_same_thread": False, "timeout": 30},
        )
        begin = "BEGIN" if read_only else "BEGIN IMMEDIATE"

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # transactions are begun explicitly below
            register_functions(dbapi_connection)
            dbapi_connection.set_progress_handler(deadline.progress_handler, PROGRESS_STEPS)
            dbapi_connection.execute("PRAGMA busy_timeout = 30000")
            if not self.read_only:
                dbapi_connection.execute("PRAGMA synchronous = NORMAL")

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Connection) -> None:
            # On the driver's connection itself: what SQLAlchemy's pysqlite recipe does with exec_driver_sql,
            # without a whole execution context around one word on every request.
            driver_connection(connection).execute(begin)

        return engine

    def table(self, sobject: SObject) -> Table:
        return self.tables[sobject.name.lower()]

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A snapshot: every statement inside sees the same committed state.

        Inside a write transaction of the same thread, reads see that transaction's own writes (a
        composite request reads back the records its earlier subrequests created).
        """
        current = getattr(self._current, "connection", None)
        if current is not None:
            yield current
            return
        with self.reader.begin() as connection:
            yield connection

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One atomic write transaction; writers queue up behind each other.

        A write opened inside another one on the same thread joins it, so an outer transaction
        (composite allOrNone) commits or rolls back every write made inside it together.
        """
        if self.writer is None:
            raise PermissionError("the org is read-only")
        current = getattr(self._current, "connection", None)
        if current is not None:
            yield current
            return
        with self._write_lock, self.writer.begin() as connection:
            self._current.connection = connection
            try:
                yield connection
            finally:
                self._current.connection = None

    def prepare(self) -> None:
        """Make a dump ready to serve: WAL mode, the platform's objects and fields (platform.py), the indexes
        (indexes.py), the search index."""
        if self.writer is None:
            raise PermissionError("a read-only org cannot be prepared")
        raw = self.writer.raw_connection()  # the journal mode cannot change inside a transaction
        try:
            raw.execute("PRAGMA journal_mode = WAL")
        finally:
            raw.close()
        with self.write() as connection:
            platform.prepare(self.schema, self.tables, connection)
            create_indexes(self.schema, self.tables, connection)
            build_search_index(self.schema, self.tables, connection)

    def create_tables(self) -> None:
        """Create the empty tables of the schema (for a new, empty org)."""
        if self.writer is None:
            raise PermissionError("a read-only org cannot be changed")
        self.metadata.create_all(self.writer)

    def version(self) -> int:
        """A number that changes whenever any connection, of this process or another, commits a change
        to the file (SQLite's ``PRAGMA data_version``, asked on a connection that never writes): a cache
        of records is good while it stays the same."""
        with self._watch_lock:
            if self._watch is None:
                self._watch = sqlite3.connect(
                    f"file:{self.path}?mode=ro", uri=True, check_same_thread=False, isolation_level=None
                )
            return int(self._watch.execute("PRAGMA data_version").fetchone()[0])

    def in_write(self) -> bool:
        """Whether this thread is inside a write transaction (whose changes ``version`` cannot see yet)."""
        return getattr(self._current, "connection", None) is not None

    def dispose(self) -> None:
        with self._watch_lock:
            if self._watch is not None:
                self._watch.close()
                self._watch = None
        self.reader.dispose()
        if self.writer is not None:
            self.writer.dispose()

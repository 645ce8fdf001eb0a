"""Copies of an org dump made ready to serve or query; the dump itself never changes.

Three kinds of copy:
- the default org's *working copy* in the cache, which ``crmarena serve`` writes to and
  ``crmarena query`` / ``search`` read; ``crmarena org reset`` (or ``serve --reset``) remakes it;
- a *reading copy* of any other database (``query --db``), private to readers and kept in the cache
  under the file's content hash, so reading never changes the file, not even by an index;
- *throw-away copies* that give one evaluation run or test an org of its own.

Every database named by a user is checked first (``check_org_file``): a missing file, a folder, a
file that is not SQLite or not an org in the dump layout is refused before anything is written.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from sqlalchemy.exc import DatabaseError

from .dump import DB_FILE, database_schema, is_sqlite_file, open_read_only, quote
from .schema import Schema
from .storage import Storage
from .user_errors import BadFile, Unavailable

READING_COPIES_KEPT = 4


class NotAnOrg(BadFile):
    """A path that does not name an org database in the dump layout."""


def check_org_file(path: Path, schema: Schema | None = None) -> Path:
    """The org database at ``path`` (a file, or a dump folder holding crmarena.db), or ``NotAnOrg``
    saying what is wrong; nothing is created or changed, whatever the path."""
    if path.is_dir():
        if not (path / DB_FILE).is_file():
            raise NotAnOrg(f"{path} is a folder without {DB_FILE}; give an org database or a dump folder")
        path = path / DB_FILE
    elif not path.exists():
        raise NotAnOrg(f"{path}: no such file; give an org database (crmarena fixtures build or import makes one)")
    if not path.is_file():
        raise NotAnOrg(f"{path} is not a regular file")
    if not is_sqlite_file(path):
        raise NotAnOrg(f"{path} is not a SQLite database")
    try:
        with closing(open_read_only(path)) as connection:
            problem = _layout_problem(connection, schema or database_schema(path))
    except sqlite3.DatabaseError as error:
        raise NotAnOrg(f"{path} is a damaged SQLite database: {error}") from None
    if problem:
        raise NotAnOrg(f"{path} is not an org in the dump layout: {problem}")
    return path


def _layout_problem(connection: sqlite3.Connection, schema: Schema) -> str | None:
    """What keeps the database from being served: missing tables or columns (None when it is fine)."""
    tables = {row[0].lower() for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = [sobject.name for sobject in schema if sobject.name.lower() not in tables]
    if len(missing) == len(schema):
        return "it holds none of the CRMArena objects (no Account, Case, … tables)"
    if missing:
        return (
            f"no table for {', '.join(missing[:6])}{' …' if len(missing) > 6 else ''} "
            "(crmarena fixtures import converts a dump in the original CRMArena layout)"
        )
    for sobject in schema:
        columns = {row[1].lower() for row in connection.execute(f"PRAGMA table_info({quote(sobject.name)})")}
        absent = [field.name for field in sobject.field_list() if field.name.lower() not in columns]
        if absent:
            return f"{sobject.name} has no column {', '.join(absent[:6])}{' …' if len(absent) > 6 else ''}"
    return None


def prepare_in_place(path: Path, schema: Schema | None = None) -> None:
    """Make a database ready to serve (WAL mode, indexes, the search index); a damaged one is refused."""
    storage = Storage(path, schema or database_schema(path))
    try:
        storage.prepare()
    except DatabaseError as error:
        raise NotAnOrg(f"{path} is a damaged SQLite database: {error.orig}") from None
    finally:
        storage.dispose()


def prepared_copy(source: Path, target: Path, schema: Schema | None = None) -> Path:
    """Copy a dump to ``target`` and make the copy ready to serve; the source is never changed.

    The copy goes through SQLite's backup API, so a source that a running server is writing to
    (in WAL mode) is copied as one consistent snapshot.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    try:
        with closing(open_read_only(source)) as origin, closing(sqlite3.connect(partial)) as copy:
            origin.backup(copy)
        prepare_in_place(partial, schema)
        # WAL mode keeps recent pages in a side file; fold them in before the copy takes its final name.
        with closing(sqlite3.connect(partial)) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.DatabaseError as error:
        raise NotAnOrg(f"{source} is a damaged SQLite database: {error}") from None
    finally:
        for suffix in ("-wal", "-shm"):
            partial.with_name(partial.name + suffix).unlink(missing_ok=True)
    # A side file left by the copy this one replaces would be read as part of it: remove it first.
    for suffix in ("-wal", "-shm"):
        target.with_name(target.name + suffix).unlink(missing_ok=True)
    partial.replace(target)
    return target


def reading_copy(path: Path, cache_dir: Path) -> Path:
    """A prepared copy of the (checked) org database at ``path`` for read-only use, made once per
    content and kept in ``cache_dir`` (the last few); ``path`` itself is only read."""
    digest = _content_digest(path)
    target = cache_dir / "reading" / f"{digest[:32]}.db"
    if target.is_file():
        os.utime(target)  # the copies least recently read are the ones dropped
        return target
    prepared_copy(path, target)
    copies = sorted(target.parent.glob("*.db"), key=lambda copy: copy.stat().st_mtime, reverse=True)
    for stale in copies[READING_COPIES_KEPT:]:
        for suffix in ("", "-wal", "-shm"):
            stale.with_name(stale.name + suffix).unlink(missing_ok=True)
    return target


def _content_digest(path: Path) -> str:
    """The database's sha256, with its write-ahead log when a server has one open beside it."""
    digest = hashlib.sha256()
    for part in (path, path.with_name(path.name + "-wal")):
        if part.is_file():
            with open(part, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()


def working_copy(source: Path, cache_dir: Path, reset: bool = False) -> Path:
    """The working copy of the pristine dump ``source`` (the default org's, unpacked) in ``cache_dir``,
    made on first use (or afresh with ``reset``); ``source`` never changes.

    A reset is refused while a ``crmarena serve`` serves the copy (it holds ``serving``'s lock).
    """
    target = cache_dir / "served" / f"{source.parent.name}.db"
    if target.exists() and not reset:
        return target
    try:
        with _lock(target, fcntl.LOCK_EX | (fcntl.LOCK_NB if reset else 0)):
            if reset or not target.exists():
                prepared_copy(source, target)
    except BlockingIOError:
        raise Unavailable(
            f"the working copy {target} is being served by a running crmarena serve; stop it first"
        ) from None
    return target


@contextmanager
def serving(path: Path) -> Iterator[None]:
    """Held while a server serves ``path``: a reset of the working copy waits for no one and is refused."""
    with _lock(path, fcntl.LOCK_SH):
        yield


@contextmanager
def _lock(path: Path, operation: int) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as handle:
        fcntl.flock(handle, operation)
        yield

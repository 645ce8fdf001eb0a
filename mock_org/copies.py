"""Copies of an org dump made ready to serve or query; the dump itself never changes.

The default org's working copy lives in the cache (served by ``crmarena serve`` and read by
``crmarena query``); throw-away copies give one evaluation run or test an org of its own.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from fixtures.default import cache_root, default_org

from .schema import Schema, default_schema
from .storage import Storage


def prepared_copy(source: Path, target: Path, schema: Schema | None = None) -> Path:
    """Copy a dump to ``target`` and make the copy ready to serve; the source is never changed.

    The copy goes through SQLite's backup API, so a source that a running server is writing to
    (in WAL mode) is copied as one consistent snapshot.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    with (
        closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as origin,
        closing(sqlite3.connect(partial)) as copy,
    ):
        origin.backup(copy)
    storage = Storage(partial, schema or default_schema())
    try:
        storage.prepare()
    finally:
        storage.dispose()
    # WAL mode keeps recent pages in a side file; fold them in before the copy takes its final name.
    with closing(sqlite3.connect(partial)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    partial.replace(target)
    for suffix in ("-wal", "-shm"):
        partial.with_name(partial.name + suffix).unlink(missing_ok=True)
    return target


def working_copy(reset: bool) -> Path:
    """The default org's served copy in the cache; the pristine unpacked dump beside it never changes."""
    source = default_org()
    target = cache_root() / "served" / f"{source.parent.name}.db"
    if reset or not target.exists():
        for suffix in ("", "-wal", "-shm"):
            target.with_name(target.name + suffix).unlink(missing_ok=True)
        prepared_copy(source, target)
    return target

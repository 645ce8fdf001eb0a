"""A dump folder as the engine reads it: DIR/crmarena.db (one SQLite table per schema object), the
schema copy, manifest.json and latent.json.

This is the reading half of the dump format; the writing half (value formats, tables, the manifest)
is the generator's (fixtures/dump.py). Reading never changes a dump: databases open read-only and
leave no side files.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .schema import Schema

DB_FILE = "crmarena.db"
SCHEMA_FILE = "crmarena_schema.json"
MANIFEST_FILE = "manifest.json"
LATENT_FILE = "latent.json"
LLM_CACHE_FILE = "llm_cache.json"
TASKS_FILE = "tasks.jsonl"
SQLITE_HEADER = b"SQLite format 3\x00"
AUDIT_FIELDS = ("CreatedDate", "LastModifiedDate", "SystemModstamp")


def quote(name: str) -> str:
    """A table or column name as an SQLite identifier."""
    return '"' + name.replace('"', '""') + '"'


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_sqlite_file(path: Path) -> bool:
    """Whether the file starts as every SQLite database does (an empty file does not)."""
    with open(path, "rb") as handle:
        return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that can neither change ``path`` nor leave files beside it.

    A plain read-only connection to a WAL-mode file creates ``-wal`` and ``-shm`` files that outlive
    it; when no ``-wal`` is there (no writer has the file open) the file is opened immutable instead.
    (SQLite URI parameters: https://www.sqlite.org/uri.html#uriimmutable)
    """
    live = path.with_name(path.name + "-wal").exists()
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro{'' if live else '&immutable=1'}", uri=True)


def database_schema(path: Path) -> Schema:
    """The schema a database is served with: a sales org's when it has the sales objects' tables (the B2C
    org's when Account has its person-account columns, else the B2B org's), else the service org's (also
    for a file that cannot be read: whoever opens it next reports why)."""
    from .schema import org_type_of_tables, org_type_schema

    try:
        with closing(open_read_only(path)) as connection:
            tables = {
                row[0].lower() for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            columns = {row[1].lower() for row in connection.execute('PRAGMA table_info("Account")')}
    except sqlite3.DatabaseError:
        tables, columns = set(), set()
    return org_type_schema(org_type_of_tables(tables, columns))


def latest_activity(db_path: Path) -> date | None:
    """The UTC day of the latest record change in an org database (None for an empty org)."""
    with closing(open_read_only(db_path)) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        latest = None
        for table in tables:
            columns = {row[1] for row in connection.execute(f"PRAGMA table_info({quote(table)})")}
            for column in (name for name in AUDIT_FIELDS if name in columns):
                value = connection.execute(f"SELECT max({quote(column)}) FROM {quote(table)}").fetchone()[0]
                if isinstance(value, str) and (latest is None or value > latest):
                    latest = value
    return date.fromisoformat(latest[:10]) if latest else None


def reference_date(db_path: Path) -> date:
    """The org's "as of" day, every command's default today: the manifest's ``as_of_date`` when the
    database sits in a dump folder, else the day of its latest record change, else the machine's date."""
    manifest = db_path.parent / MANIFEST_FILE
    if db_path.name == DB_FILE and manifest.is_file():
        as_of = json.loads(manifest.read_text(encoding="utf-8")).get("as_of_date")
        if as_of:
            return date.fromisoformat(as_of)
    return latest_activity(db_path) or date.today()

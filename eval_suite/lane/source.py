"""The dump a push reads: its schema (the dump layout, crmarena_schema.json) and its rows, read-only.

A dump is a file, not an org: it is read with SQLite directly (opened read-only, so not even a bug
could change it), never served.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from fixtures.dump import DB_FILE, SCHEMA_FILE, is_sqlite_file, open_read_only
from mock_org.user_errors import BadFile

DEFAULT_SCHEMA = Path(str(resources.files("mock_org").joinpath(SCHEMA_FILE)))  # the engine's layout
AUDIT_FIELDS = ("CreatedDate", "CreatedById", "LastModifiedDate", "LastModifiedById")


@dataclass(frozen=True)
class SourceField:
    name: str
    type: str
    createable: bool
    reference_to: tuple[str, ...]
    nillable: bool


@dataclass(frozen=True)
class SourceObject:
    name: str
    key_prefix: str
    fields: tuple[SourceField, ...]
    createable: bool = True  # False: the org writes the records itself (OpportunityHistory)

    def field(self, name: str) -> SourceField | None:
        return next((field for field in self.fields if field.name.lower() == name.lower()), None)

    @property
    def references(self) -> tuple[SourceField, ...]:
        return tuple(field for field in self.fields if field.reference_to)


class Dump:
    """One org dump: ``path`` is its crmarena.db or the folder holding it."""

    def __init__(self, path: Path) -> None:
        path = Path(path)
        if path.is_dir():
            path = path / DB_FILE
        if not path.is_file():
            raise BadFile(f"{path}: no such org dump (give a crmarena.db or the folder holding it)")
        if not is_sqlite_file(path):
            raise BadFile(f"{path} is not a SQLite database")
        self.path = path
        beside = path.parent / SCHEMA_FILE
        self.schema_path = beside if beside.is_file() else DEFAULT_SCHEMA

    @cached_property
    def objects(self) -> dict[str, SourceObject]:
        document = json.loads(self.schema_path.read_text(encoding="utf-8"))
        objects = {}
        for item in document["objects"]:
            fields = tuple(
                SourceField(
                    f["name"],
                    f["type"],
                    bool(f.get("createable")),
                    tuple(f.get("referenceTo") or ()),
                    bool(f.get("nillable", True)),
                )
                for f in item["fields"]
            )
            objects[item["name"]] = SourceObject(
                item["name"], item["keyPrefix"], fields, bool(item.get("createable", True))
            )
        return objects

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        with closing(open_read_only(self.path)) as connection:
            connection.row_factory = sqlite3.Row
            yield connection

    def rows(self, name: str) -> list[dict[str, Any]]:
        """Every live row of an object, in Id order (the order it was made in)."""
        sobject = self.objects[name]
        columns = ", ".join(f'"{field.name}"' for field in sobject.fields)
        with self.connection() as connection:
            try:
                found = connection.execute(f'SELECT {columns} FROM "{name}" WHERE "IsDeleted" = 0 ORDER BY "Id"')
            except sqlite3.DatabaseError as error:
                raise BadFile(f"{self.path} is not an org dump in the CRMArena layout: {error}") from None
            return [dict(row) for row in found]

    def counts(self) -> dict[str, int]:
        with self.connection() as connection:
            return {
                name: connection.execute(f'SELECT COUNT(*) FROM "{name}" WHERE "IsDeleted" = 0').fetchone()[0]
                for name in self.objects
            }

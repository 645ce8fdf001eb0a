"""Tiny orgs for engine tests: a few records written straight into storage, no generator involved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mock_org.clock import OrgClock
from mock_org.ids import make_id
from mock_org.org import Org
from mock_org.schema import Schema, default_schema
from mock_org.storage import Storage
from mock_org.writes import field_default

ADMIN = make_id("005", 999)
STAMP = "2024-01-01T00:00:00.000+0000"


def rid(prefix: str, serial: int) -> str:
    return make_id(prefix, serial)


def build_org(
    path: Path,
    records: dict[str, list[dict[str, Any]]],
    *,
    schema: Schema | None = None,
    today: str = "2023-05-15",
    read_only: bool = False,
) -> Org:
    """An org whose tables hold ``records`` (object name → rows); unset fields get their defaults."""
    schema = schema or default_schema()
    storage = Storage(path, schema)
    storage.create_tables()
    with storage.write() as connection:
        for name, rows in records.items():
            sobject = schema[name]
            full_rows = []
            for row in rows:
                full = {field.name: field_default(field) for field in sobject.field_list()}
                full.update(IsDeleted=0, CreatedDate=STAMP, CreatedById=ADMIN, LastModifiedDate=STAMP)
                full.update(LastModifiedById=ADMIN, SystemModstamp=STAMP)
                if sobject.field("OwnerId") is not None:
                    full["OwnerId"] = ADMIN
                full.update(row)
                full_rows.append(full)
            connection.execute(storage.table(sobject).insert(), full_rows)
    storage.prepare()
    storage.dispose()
    return Org(path, schema=schema, clock=OrgClock.for_date(today), read_only=read_only)


def user(serial: int, first: str, last: str, **extra: Any) -> dict[str, Any]:
    return {
        "Id": rid("005", serial),
        "Username": f"{first.lower()}.{last.lower()}@example.com",
        "FirstName": first,
        "LastName": last,
        "Name": f"{first} {last}",
        "Alias": (first[:1] + last[:4]).lower(),
        "Email": f"{first.lower()}.{last.lower()}@example.com",
        "ProfileId": rid("00e", 1),
        **extra,
    }

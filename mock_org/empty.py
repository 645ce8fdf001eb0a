"""An empty org: what a fresh Salesforce org holds before anyone loads data into it.

``crmarena serve --empty`` serves one, as the "real" org a push goes into: the schema, the records a
new org comes with (its Organization, profiles, record types, queues, the Standard Price Book, the
profiles' own permission sets) and the users, whom a push matches by username rather than creates.
Everything else is gone. Its Ids come from another pod than the dump's (``FRESH_POD``), so that a
pushed record never has, by chance, the Id it had in the dump.
"""

from __future__ import annotations

from pathlib import Path

from .copies import prepared_copy
from .dump import database_schema
from .schema import Schema
from .storage import Storage

FRESH_POD = "Fr"
# Whole objects a fresh org already has (the users stand for the people who will work in it).
KEPT_OBJECTS = frozenset(
    {
        "user",
        "organization",
        "recordtype",
        "profile",
        "group",
        "permissionset",
        "permissionsetassignment",
        "entitydefinition",
        "fielddefinition",
    }
)


def empty_copy(source: Path, target: Path, schema: Schema | None = None) -> Path:
    """A prepared copy of ``source`` at ``target`` holding only what a fresh org has; ``source`` is only read."""
    prepared_copy(source, target, schema)
    storage = Storage(target, schema or database_schema(target))  # a sales org empties its sales objects too
    try:
        with storage.write() as connection:
            for sobject in storage.schema:
                name = sobject.name.lower()
                if name in KEPT_OBJECTS:
                    continue
                table = storage.table(sobject)
                if name == "pricebook2":  # every org has its Standard Price Book
                    connection.execute(table.delete().where(table.c.IsStandard == 0))
                else:
                    connection.execute(table.delete())
    finally:
        storage.dispose()
    return target

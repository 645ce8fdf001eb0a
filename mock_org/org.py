"""The org: one object that answers every REST resource the server serves, with plain values in and
JSON-ready dicts out. The HTTP layer (server/) parses requests and calls exactly one method here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from . import deadline, describe
from .clock import OrgClock
from .columns import column_metadata
from .dump import database_schema
from .errors import (
    NO_SUCH_COLUMN,
    InsufficientAccessOrReadonly,
    InvalidField,
    InvalidType,
    MultipleRecords,
    NotFound,
)
from .ids import POD
from .permissions import Permissions
from .platform import TOOLING_OBJECTS, org_schema
from .query.engine import QueryEngine
from .query.shape import attributes
from .schema import Schema, SObject
from .search.execute import SearchEngine
from .storage import Storage
from .values import format_datetime, parse_datetime, to_wire
from .writes import NOT_FOUND_MESSAGE, Writer, find_row

T = TypeVar("T")


class Org:
    """A Salesforce org over one SQLite file (prepared with ``Storage.prepare``)."""

    def __init__(
        self,
        path: str | Path,
        *,
        schema: Schema | None = None,
        clock: OrgClock | None = None,
        read_only: bool = False,
        plan_cache: int = 512,
        query_timeout: float | None = deadline.DEFAULT_SECONDS,
        pod: str = POD,
    ) -> None:
        self.schema = org_schema(schema or database_schema(Path(path)))
        self.clock = clock or OrgClock()
        self.read_only = read_only
        self.storage = Storage(path, self.schema, read_only=read_only)
        self.queries = QueryEngine(self.storage, self.schema, self.clock, plan_cache=plan_cache, timeout=query_timeout)
        self.searches = SearchEngine(self.queries)
        self.permissions = Permissions(self.storage, self.schema)
        self._writer: Writer | None = (
            None if read_only else Writer.open(self.storage, self.schema, self.clock, self.permissions, pod)
        )

    def close(self) -> None:
        self.storage.dispose()

    # ------------------------------------------------------------------- queries

    # ``clock`` replaces the org's clock for one call: the per-session clock of the mock-only clock
    # resource (server/rest/handlers/clock.py), so that concurrent sessions can each have their own "today".

    def query(
        self,
        soql: str,
        *,
        include_deleted: bool = False,
        batch_size: int | None = None,
        version: str = "59.0",
        user_id: str | None = None,
        clock: OrgClock | None = None,
    ) -> dict[str, Any]:
        resource = "queryAll" if include_deleted else "query"
        return self.queries.query(
            soql,
            include_deleted=include_deleted,
            batch_size=batch_size,
            version=version,
            user_id=user_id,
            resource=resource,
            clock=clock,
        )

    def query_columns(self, soql: str, *, user_id: str | None = None, clock: OrgClock | None = None) -> dict[str, Any]:
        """The query's column metadata (``?columns=true``), without running it."""
        return column_metadata(self.schema, self.queries.plan(soql, user_id=user_id, clock=clock))

    def query_more(
        self, locator: str, *, version: str = "59.0", resource: str = "query", user_id: str | None = None
    ) -> dict[str, Any]:
        """The next page of a query; a locator serves only the user whose query opened it."""
        return self.queries.query_more(locator, version=version, resource=resource, user_id=user_id)

    def tooling_query(
        self, soql: str, *, batch_size: int | None = None, version: str = "59.0", user_id: str | None = None
    ) -> dict[str, Any]:
        """``/tooling/query``: SOQL over the Tooling API's objects only (the metadata objects, PermissionSet,
        Profile, User); a data object is INVALID_TYPE "sObject type 'Account' is not supported.", as on a real org."""
        plan = self.queries.plan(soql, user_id=user_id)
        if plan.sobject not in TOOLING_OBJECTS:
            # The MCP server's run_soql_query suggests the other API when a message ends so.
            raise InvalidType(f"sObject type '{plan.sobject}' is not supported.")
        return self.queries.query(
            soql, batch_size=batch_size, version=version, user_id=user_id, resource="tooling/query"
        )

    def tooling_sobject(self, name: str) -> SObject:
        sobject = self.sobject(name)
        if sobject.name not in TOOLING_OBJECTS:
            raise NotFound(NOT_FOUND_MESSAGE)
        return sobject

    def tooling_describe_global(self, *, version: str = "59.0") -> dict[str, Any]:
        tooling = [sobject for sobject in self.schema if sobject.name in TOOLING_OBJECTS]
        return describe.describe_global(tooling, version)

    def search(
        self, sosl: str, *, version: str = "59.0", user_id: str | None = None, clock: OrgClock | None = None
    ) -> dict[str, Any]:
        return self.searches.search(sosl, version=version, user_id=user_id, clock=clock)

    # ------------------------------------------------------------------- describe

    def sobject(self, name: str) -> SObject:
        sobject = self.schema.get(name)
        if sobject is None:
            raise NotFound(NOT_FOUND_MESSAGE)
        return sobject

    def describe_global(self, *, version: str = "59.0") -> dict[str, Any]:
        return describe.describe_global(self.schema, version)

    def describe(self, name: str, *, version: str = "59.0") -> dict[str, Any]:
        return describe.describe_sobject(self.sobject(name), version)

    def metadata(self, name: str, *, version: str = "59.0") -> dict[str, Any]:
        return describe.sobject_metadata(self.sobject(name), version, [])

    # ------------------------------------------------------------------- records

    def retrieve(self, name: str, record_id: str, *, fields: list[str] | None = None, version: str = "59.0") -> dict:
        """One record with all its fields (or ``fields``), as ``GET /sobjects/{Object}/{Id}`` returns it."""
        sobject = self.sobject(name)
        chosen = self._fields(sobject, fields)
        with self.storage.read() as connection:
            row = find_row(self.storage, connection, sobject, record_id)
        if row["IsDeleted"]:
            raise NotFound(NOT_FOUND_MESSAGE)
        record: dict[str, Any] = {"attributes": attributes(sobject.name, row["Id"], version)}
        for field in chosen:
            record[field.name] = to_wire(field, row[field.name])
        return record

    def retrieve_by_external_id(self, name: str, field_name: str, value: str, *, version: str = "59.0") -> dict:
        return self.retrieve(name, self._external_id_match(name, field_name, value), version=version)

    def _external_id_match(self, name: str, field_name: str, value: str) -> str:
        """The one live record whose external Id (or unique field) ``field_name`` is ``value``."""
        sobject = self.sobject(name)
        field = sobject.field(field_name)
        if field is None or not (field.external_id or field.unique or field.name == "Id"):
            raise NotFound(f"Provided external ID field does not exist or is not accessible: {field_name}")
        table = self.storage.table(sobject)
        with self.storage.read() as connection:
            ids = list(
                connection.execute(
                    select(table.c.Id).where(table.c[field.name] == value, table.c.IsDeleted == 0)
                ).scalars()
            )
        if not ids:
            raise NotFound(NOT_FOUND_MESSAGE)
        if len(ids) > 1:
            raise MultipleRecords(ids)
        return ids[0]

    def record_counts(self, names: list[str] | None = None) -> dict[str, Any]:
        """``GET /limits/recordCount``: live records per object, for the objects named (unknown names are
        left out, as a real org leaves them out) or for every object."""
        found = [self.schema.get(name) for name in names] if names is not None else list(self.schema)
        chosen = {sobject.name: sobject for sobject in found if sobject is not None}
        counts = []
        with self.storage.read() as connection:
            for sobject in chosen.values():
                table = self.storage.table(sobject)
                total = connection.execute(select(func.count()).where(table.c.IsDeleted == 0)).scalar()
                counts.append({"count": total, "name": sobject.name})
        return {"sObjects": counts}

    def _fields(self, sobject: SObject, names: list[str] | None) -> list:
        if not names:
            return sobject.field_list()
        chosen = []
        for name in names:
            field = sobject.field(name.strip())
            if field is None:
                raise InvalidField(NO_SUCH_COLUMN.format(field=name.strip(), sobject=sobject.name))
            chosen.append(field)
        return chosen

    def updated(self, name: str, start: str, end: str) -> dict[str, Any]:
        """Ids of records changed in [start, end] (``GET /sobjects/{Object}/updated``)."""
        sobject = self.sobject(name)
        table = self.storage.table(sobject)
        low, high = format_datetime(parse_datetime(start)), format_datetime(parse_datetime(end))
        with self.storage.read() as connection:
            ids = connection.execute(
                select(table.c.Id)
                .where(table.c.SystemModstamp >= low, table.c.SystemModstamp <= high, table.c.IsDeleted == 0)
                .order_by(table.c.SystemModstamp)
            ).scalars()
            return {"ids": list(ids), "latestDateCovered": high}

    def deleted(self, name: str, start: str, end: str) -> dict[str, Any]:
        """Records deleted in [start, end] (``GET /sobjects/{Object}/deleted``)."""
        sobject = self.sobject(name)
        table = self.storage.table(sobject)
        low, high = format_datetime(parse_datetime(start)), format_datetime(parse_datetime(end))
        with self.storage.read() as connection:
            rows = connection.execute(
                select(table.c.Id, table.c.SystemModstamp)
                .where(table.c.SystemModstamp >= low, table.c.SystemModstamp <= high, table.c.IsDeleted == 1)
                .order_by(table.c.SystemModstamp)
            ).all()
            earliest = connection.execute(select(table.c.CreatedDate).order_by(table.c.CreatedDate).limit(1)).scalar()
        return {
            "deletedRecords": [{"id": record_id, "deletedDate": when} for record_id, when in rows],
            "earliestDateAvailable": earliest or low,
            "latestDateCovered": high,
        }

    # ------------------------------------------------------------------- writes

    def check_writable(self) -> None:
        """A read-only org refuses every write, passwords included."""
        if self._writer is None:
            raise InsufficientAccessOrReadonly("This org is read-only; it accepts queries and searches, not writes.")

    @property
    def writer(self) -> Writer:
        self.check_writable()
        assert self._writer is not None
        return self._writer

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One atomic write transaction: every write in it lands, or none does."""
        writer = self.writer
        with writer.storage.write() as connection:
            yield connection

    def _write(self, operation: Callable[[Connection], T]) -> T:
        with self.transaction() as connection:
            return operation(connection)

    def create(self, name: str, data: dict[str, Any], *, user_id: str) -> str:
        sobject = self.sobject(name)
        return self._write(lambda connection: self.writer.create(connection, sobject, data, user_id))

    def update(self, name: str, record_id: str, data: dict[str, Any], *, user_id: str) -> None:
        sobject = self.sobject(name)
        self._write(lambda connection: self.writer.update(connection, sobject, record_id, data, user_id))

    def upsert(self, name: str, field: str, value: str, data: dict[str, Any], *, user_id: str) -> tuple[str, bool]:
        sobject = self.sobject(name)
        return self._write(lambda connection: self.writer.upsert(connection, sobject, field, value, data, user_id))

    def delete(self, name: str, record_id: str, *, user_id: str) -> None:
        sobject = self.sobject(name)
        self._write(lambda connection: self.writer.delete(connection, sobject, record_id, user_id))

    def delete_by_external_id(self, name: str, field_name: str, value: str, *, user_id: str) -> None:
        """``DELETE /sobjects/{Object}/{field}/{value}``: the record the external Id names goes to the recycle bin."""
        self.delete(name, self._external_id_match(name, field_name, value), user_id=user_id)

    def purge(self, name: str, record_id: str, *, user_id: str) -> None:
        """Hard delete: the record is gone for good, even from ``queryAll`` (Bulk API ``hardDelete``)."""
        sobject = self.sobject(name)
        self._write(lambda connection: self.writer.purge(connection, sobject, record_id, user_id))

    def manages_users(self, user_id: str) -> bool:
        """Whether the user has Manage Users (permissions.py)."""
        with self.storage.read() as connection:
            return self.permissions.manages_users(connection, user_id)

    def views_all_data(self, user_id: str) -> bool:
        """Whether the user has View All Data, which shows every user's Bulk API jobs (permissions.py)."""
        with self.storage.read() as connection:
            return self.permissions.views_all_data(connection, user_id)

    def undelete(self, name: str, record_id: str, *, user_id: str) -> None:
        sobject = self.sobject(name)
        self._write(lambda connection: self.writer.undelete(connection, sobject, record_id, user_id))

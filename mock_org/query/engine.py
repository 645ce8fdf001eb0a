"""Runs SOQL: parse → compile → execute in one snapshot → shape → page.

The REST shape of a query result: ``{"totalSize", "done", "nextRecordsUrl"?, "records"}`` with pages
of ``batch_size`` records (2,000 by default; ``Sforce-Query-Options: batchSize`` 200–2,000).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from sqlalchemy.engine import Connection

from soql_parser import QuerySyntaxError, parse_soql
from soql_parser.shapes import query_shape

from .. import deadline
from ..clock import OrgClock
from ..errors import MalformedQuery
from ..schema import Schema
from ..storage import Storage, driver_connection
from .binds import LiteralBinds, Rebind, rebound
from .compile import compile_query
from .locators import CursorStore, PlanSource
from .scope import QueryContext
from .shape import ChildRecords, shape_aggregates, shape_records
from .templates import ChildSlot, QueryPlan

DEFAULT_BATCH = 2000
MIN_BATCH, MAX_BATCH = 200, 2000
MAX_QUERY_LENGTH = 100_000
# Longer texts are not scanned for their shape: an IN list of 500 Ids fits, and a longer list is one
# JSON value that no plan shares (conditions.py), so scanning it would only cost.
MAX_SHAPED_LENGTH = 20_000
_CHUNK = 5000  # parent Ids per child-subquery statement (SQLite allows 32,766 parameters)


def syntax_error(text: str, error: QuerySyntaxError, kind: type = MalformedQuery) -> Exception:
    """A parser error as the org reports it: the caret block around the offending token."""
    return kind(error.caret_message(text))


class QueryEngine:
    """``plan_cache`` bounds how many compiled plans are kept for reuse (0 turns the cache off);
    ``timeout`` is how long a query may run before it answers QUERY_TIMEOUT (deadline.py).

    A plan depends on the text, the queryAll flag, the user (USING SCOPE mine) and the clock it is
    read with (relative date literals resolve when the plan is compiled, so the day and the calendar
    settings they are read in), so those make its key. ``clock`` on a call replaces the engine's own
    for that call only (a session's own clock, set through the mock-only clock resource).

    Besides the plans by text, as many are kept by shape (soql_parser/shapes.py): a text never seen
    whose shape is known takes that shape's plan with its own literals bound (binds.py), without
    being parsed or compiled.
    """

    def __init__(
        self,
        storage: Storage,
        schema: Schema,
        clock: OrgClock,
        plan_cache: int = 512,
        timeout: float | None = deadline.DEFAULT_SECONDS,
    ) -> None:
        self.storage = storage
        self.timeout = timeout  # seconds a query may run (None: no limit)
        self.schema = schema
        self.clock = clock
        self.cursors = CursorStore(
            replan=lambda source, user_id: self.plan(
                source.text, include_deleted=source.include_deleted, user_id=user_id, clock=source.clock
            )
        )
        self.plan_cache = plan_cache
        self._plans: OrderedDict[tuple, QueryPlan] = OrderedDict()
        self._shapes: OrderedDict[tuple, tuple[QueryPlan, tuple[Rebind, ...]]] = OrderedDict()
        self._plans_lock = threading.Lock()

    def plan(
        self, text: str, *, include_deleted: bool = False, user_id: str | None = None, clock: OrgClock | None = None
    ) -> QueryPlan:
        clock = clock or self.clock
        reading = (
            include_deleted,
            user_id,
            clock.today(),
            clock.timezone,
            clock.week_start,
            clock.fiscal_year_start_month,
        )
        key = (text, *reading)
        cached = self._cached(self._plans, key)
        if cached is not None:
            return cached
        small = isinstance(text, str) and len(text) <= MAX_SHAPED_LENGTH
        shape = query_shape(text) if self.plan_cache and small else None
        shape_key = (shape.key, *reading) if shape is not None else ()  # used only with a shape
        plan = None
        if shape is not None:
            shared = self._cached(self._shapes, shape_key)
            if shared is not None:
                shared_plan, shared_rebinds = shared
                plan = rebound(shared_plan, shared_rebinds, shape.literals)  # None: a literal that does not convert
        if plan is None:
            slots = {literal.pos: index for index, literal in enumerate(shape.literals)} if shape else None
            binds = LiteralBinds(slots)
            with deadline.limited(self.timeout):  # a huge query's compile counts too, and may be too complicated
                plan = self._compile(text, include_deleted=include_deleted, user_id=user_id, clock=clock, binds=binds)
            rebinds = binds.shareable(plan, self.storage.reader.dialect) if shape is not None else None
            if rebinds is not None:
                self._keep(self._shapes, shape_key, (plan, rebinds))
        if self.plan_cache:
            self._keep(self._plans, key, plan)
        return plan

    def _cached(self, cache: OrderedDict, key: tuple) -> Any:
        with self._plans_lock:
            found = cache.get(key)
            if found is not None:
                cache.move_to_end(key)
            return found

    def _keep(self, cache: OrderedDict, key: tuple, value: Any) -> None:
        with self._plans_lock:
            cache[key] = value
            while len(cache) > self.plan_cache:
                cache.popitem(last=False)

    def _compile(
        self, text: str, *, include_deleted: bool, user_id: str | None, clock: OrgClock, binds: LiteralBinds
    ) -> QueryPlan:
        if not isinstance(text, str) or not text.strip():
            raise MalformedQuery("SOQL statements cannot be empty or null")
        if len(text) > MAX_QUERY_LENGTH:
            raise MalformedQuery(f"SOQL statements cannot be longer than {MAX_QUERY_LENGTH} characters")
        try:
            tree = parse_soql(text)
        except QuerySyntaxError as error:
            raise syntax_error(text, error) from None
        context = QueryContext(
            self.schema,
            self.storage.tables,
            clock,
            text,
            include_deleted=include_deleted,
            user_id=user_id,
            binds=binds,
        )
        return compile_query(context, tree)

    def query(
        self,
        text: str,
        *,
        include_deleted: bool = False,
        batch_size: int | None = None,
        version: str = "59.0",
        user_id: str | None = None,
        resource: str = "query",
        clock: OrgClock | None = None,
    ) -> dict[str, Any]:
        """The first page of a query's result; the rest waits behind ``nextRecordsUrl``."""
        with deadline.limited(self.timeout):
            plan = self.plan(text, include_deleted=include_deleted, user_id=user_id, clock=clock)
            batch = max(MIN_BATCH, min(MAX_BATCH, batch_size or DEFAULT_BATCH))
            with self.storage.read() as connection:
                sql, parameters = plan.sql(connection.dialect)
                cursor = driver_connection(connection).execute(sql, parameters)
                if plan.count_only:
                    return {"totalSize": cursor.fetchone()[0], "done": True, "records": []}
                rows = cursor.fetchmany(batch)
                total = len(rows) + sum(1 for _ in cursor)  # the rest is counted, not kept
                if plan.aggregate is not None and total > MAX_BATCH:
                    raise MalformedQuery(
                        "Aggregate query does not support queryMore(), use LIMIT to restrict the results to a "
                        "single batch"
                    )
                records = self.shape(plan, rows, connection, version)
        if total <= batch:
            return {"totalSize": total, "done": True, "records": records}
        source = PlanSource.of(text, include_deleted, clock or self.clock)
        cursor_id = self.cursors.open(plan, user_id, total, batch, source)
        return {
            "totalSize": total,
            "done": False,
            "nextRecordsUrl": f"/services/data/v{version}/{resource}/{cursor_id}-{batch}",
            "records": records,
        }

    def query_more(
        self, locator: str, *, version: str = "59.0", resource: str = "query", user_id: str | None = None
    ) -> dict[str, Any]:
        """The page a locator points at: the plan runs again from the locator's offset."""
        cursor_id, cursor, plan, offset = self.cursors.find(locator, user_id)
        with deadline.limited(self.timeout), self.storage.read() as connection:
            sql, parameters = plan.page_sql(connection.dialect, offset, cursor.batch_size)
            rows = driver_connection(connection).execute(sql, parameters).fetchall()
            records = self.shape(plan, rows, connection, version)
        end = offset + cursor.batch_size
        page: dict[str, Any] = {"totalSize": cursor.total, "done": end >= cursor.total}
        if end < cursor.total:
            page["nextRecordsUrl"] = f"/services/data/v{version}/{resource}/{cursor_id}-{end}"
        else:
            self.cursors.close(cursor_id)
        page["records"] = records
        return page

    def shape(self, plan: QueryPlan, rows: list, connection: Connection, version: str) -> list[dict[str, Any]]:
        """Records from a plan's rows (fetching the rows' child subqueries)."""
        if plan.aggregate is not None:
            return shape_aggregates(plan.aggregate, rows)
        assert plan.template is not None
        children = self._children(plan, rows, connection, version, plan.literals)
        return shape_records(plan.template, rows, version, children)

    def _children(
        self, plan: QueryPlan, rows: list, connection: Connection, version: str, literals: dict[str, Any]
    ) -> ChildRecords:
        """The child subqueries' records by parent Id; ``literals`` are the root plan's literal values."""
        assert plan.template is not None
        slots = [entry for entry in plan.template.entries if isinstance(entry, ChildSlot)]
        if not slots or not rows:
            return {}
        parent_ids = list(dict.fromkeys(row[plan.template.id_index] for row in rows))
        found: ChildRecords = {}
        for slot in slots:
            child_plan = slot.plan
            assert child_plan.template is not None and child_plan.link_index is not None
            child_rows: list[Any] = []
            for start in range(0, len(parent_ids), _CHUNK):
                chunk = parent_ids[start : start + _CHUNK]
                child_rows += connection.execute(child_plan.statement, {**literals, "parent_ids": chunk}).all()
            grandchildren = self._children(child_plan, child_rows, connection, version, literals)
            records = shape_records(child_plan.template, child_rows, version, grandchildren)
            by_parent: dict[str, list[dict[str, Any]]] = {}
            for row, record in zip(child_rows, records, strict=True):
                by_parent.setdefault(row[child_plan.link_index], []).append(record)
            found[id(slot)] = by_parent
        return found

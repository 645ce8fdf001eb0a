"""What a compiled query's rows mean: where each selected column goes in the REST record.

The compiler builds a template alongside the SQL; shape.py walks it to turn row tuples into the
nested records a real org returns (parents as nested objects, children as nested query results).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.sql import Select
from sqlalchemy.sql.elements import ColumnElement

from ..values import wire_converter


@dataclass
class ValueSlot:
    """One scalar in the record: ``key`` ← convert(row[index]).

    ``convert`` defaults to what turns a stored value of ``field_type`` into its wire form (None
    when the stored form already is the wire form); toLabel() and FORMAT() bring their own.
    """

    key: str
    index: int
    field_type: str
    convert: Callable[[Any], Any] | None = None

    def __post_init__(self) -> None:
        if self.convert is None:
            self.convert = wire_converter(self.field_type)


@dataclass
class ParentSlot:
    """A parent record nested under its relationship name; null when row[id_index] is null."""

    key: str
    id_index: int
    sobject: str | None  # None when polymorphic: the type comes from row[type_index]
    type_index: int | None = None
    entries: list[Slot] = field(default_factory=list)

    def child(self, key: str) -> ParentSlot | None:
        return next((e for e in self.entries if isinstance(e, ParentSlot) and e.key == key), None)


@dataclass
class TypeOfSlot:
    """TYPEOF: a polymorphic parent whose fields depend on its actual type (``"*"`` for ELSE)."""

    key: str
    id_index: int
    type_index: int
    by_type: dict[str, list[Slot]]


@dataclass
class ChildSlot:
    """A parent-to-child subquery; its plan runs once for all parent rows."""

    key: str
    plan: QueryPlan


Slot = ValueSlot | ParentSlot | TypeOfSlot | ChildSlot


@dataclass
class RecordTemplate:
    sobject: str
    id_index: int
    entries: list[Slot] = field(default_factory=list)

    def parent(self, key: str) -> ParentSlot | None:
        return next((e for e in self.entries if isinstance(e, ParentSlot) and e.key == key), None)


@dataclass
class AggregateColumn:
    key: str
    index: int
    result_type: str


@dataclass
class QueryPlan:
    """A compiled SELECT: run ``statement``, then shape its rows with the template.

    For a child subquery ``link_index`` is the column holding the parent Id and the statement takes
    the parent Ids as the expanding parameter ``parent_ids``. ``literals`` replaces the values of named
    literal binds (binds.py): a plan compiled for one query serves another of the same shape.
    """

    statement: Select
    template: RecordTemplate | None = None
    aggregate: list[AggregateColumn] | None = None
    count_only: bool = False
    link_index: int | None = None
    sobject: str = ""
    limit: int | None = None  # the query's own LIMIT and OFFSET (already in ``statement``)
    offset: int | None = None
    literals: dict[str, Any] = field(default_factory=dict)
    _sql: PositionalSql | None = field(default=None, repr=False)

    def sql(self, dialect: Dialect) -> tuple[str, tuple[Any, ...]]:
        """The statement as SQLite text with its bound values in order, compiled once per plan.

        The values stay bound parameters; only SQLAlchemy's per-execution bookkeeping is skipped,
        which matters for queries that return thousands of rows.
        """
        if self._sql is None:
            self._sql = positional_sql(self.statement, dialect)
        return self._sql.bound(self.literals)

    def bind_names(self, dialect: Dialect) -> tuple[str, ...]:
        self.sql(dialect)
        assert self._sql is not None
        return self._sql.names

    def with_literals(self, literals: dict[str, Any]) -> QueryPlan:
        """The same plan (and the SQL compiled for it so far) with other values for its literal binds."""
        return replace(self, literals=literals)

    def page_sql(self, dialect: Dialect, start: int, count: int) -> tuple[str, tuple[Any, ...]]:
        """The statement for the ``count`` rows that follow the first ``start`` of the result, within
        the query's own LIMIT and OFFSET (a cursor's next page)."""
        if self.limit is not None:
            count = max(0, min(count, self.limit - start))
        paged = self.statement.offset((self.offset or 0) + start).limit(count)
        return positional_sql(paged, dialect).bound(self.literals)


@dataclass(frozen=True)
class PositionalSql:
    """SQL text with ``?`` parameters, their names and the values compiled into the statement."""

    text: str
    names: tuple[str, ...]
    values: tuple[Any, ...]

    def bound(self, literals: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
        if not literals:
            return self.text, self.values
        return self.text, tuple(literals.get(name, value) for name, value in zip(self.names, self.values, strict=True))


def positional_sql(statement: Select, dialect: Dialect) -> PositionalSql:
    compiled = statement.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
    params = compiled.params  # built anew on every access: read it once, or long IN lists cost quadratic time
    names = tuple(compiled.positiontup or ())
    return PositionalSql(str(compiled), names, tuple(params[name] for name in names))


class Columns:
    """The SELECT list being built: each distinct expression once, addressed by its position."""

    def __init__(self) -> None:
        self.expressions: list[ColumnElement] = []
        self._index: dict[tuple, int] = {}

    def add(self, key: tuple, expression: ColumnElement) -> int:
        if key not in self._index:
            self._index[key] = len(self.expressions)
            self.expressions.append(expression)
        return self._index[key]

    def labelled(self) -> list[ColumnElement]:
        return [expression.label(f"c{index}") for index, expression in enumerate(self.expressions)]

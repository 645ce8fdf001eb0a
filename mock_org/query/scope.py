"""One level of a query (the main query, a child subquery or a semi-join) and the joins it needs.

Parent paths become LEFT OUTER JOINs, one per distinct path, so rows whose parent is missing are
kept (SOQL reference, "Relationship Queries": a filter on a missing parent's field matches null).
A polymorphic lookup (Case.Owner → User or Group) joins every possible target.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from sqlalchemy import case, func, literal, literal_column
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import Alias, FromClause

from soql_parser import nodes

from ..clock import OrgClock
from ..errors import NO_SUCH_SOBJECT, InvalidType, MalformedQuery
from ..schema import Schema, SObject
from .binds import LiteralBinds
from .names import ColumnRef, Hop, NameResolver
from .operands import OperandReader


@dataclass
class QueryContext:
    """What every level of one query shares: schema, tables, clock, the query text, options."""

    schema: Schema
    tables: dict
    clock: OrgClock
    query: str
    include_deleted: bool = False
    user_id: str | None = None
    binds: LiteralBinds = field(default_factory=LiteralBinds)  # lifted literals become named binds (binds.py)
    _aliases: itertools.count = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self.operands = OperandReader(self.query, self.clock)

    def alias(self, sobject: SObject) -> Alias:
        return self.tables[sobject.name.lower()].alias(f"t{next(self._aliases)}")


def _hop_key(hops: tuple[Hop, ...]) -> tuple[str, ...]:
    return tuple(hop.field.name.lower() for hop in hops)


class Scope:
    def __init__(self, context: QueryContext, sobject: SObject, alias: str | None, *, root: bool = False) -> None:
        self.context = context
        self.sobject = sobject
        # The query's own object reads its table directly; only joined parents need aliases (a
        # parent may be the same object, as User.CreatedBy is). Aliasing copies every column.
        self.table = context.tables[sobject.name.lower()] if root else context.alias(sobject)
        self.names = NameResolver(context.schema, sobject, alias, context.query)
        self._from: FromClause = self.table
        self._joins: dict[tuple[str, ...], dict[str, Alias]] = {}

    @property
    def from_clause(self) -> FromClause:
        return self._from

    @property
    def rowid(self) -> ColumnElement:
        """Insertion order: the stable order of rows that ORDER BY does not decide."""
        return literal_column(f'"{self.table.name}".rowid')

    def _previous(self, hops: tuple[Hop, ...]) -> Alias:
        if len(hops) == 1:
            return self.table
        return next(iter(self.targets(hops[:-1]).values()))

    def targets(self, hops: tuple[Hop, ...]) -> dict[str, Alias]:
        """The joined table(s) at the end of ``hops``, keyed by object name; joins them if needed."""
        key = _hop_key(hops)
        if key not in self._joins:
            previous = self._previous(hops)
            hop = hops[-1]
            aliases: dict[str, Alias] = {}
            for target in hop.targets:
                alias = self.context.alias(target)
                self._from = self._from.outerjoin(alias, alias.c.Id == previous.c[hop.field.name])
                aliases[target.name] = alias
            self._joins[key] = aliases
        return self._joins[key]

    def column(self, ref: ColumnRef) -> ColumnElement:
        if not ref.hops:
            return self.table.c[ref.name]
        aliases = self.targets(ref.hops)
        if ref.name == "Type" and ref.hops[-1].polymorphic:
            return self.parent_type(ref.hops)
        having = [alias.c[ref.name] for alias in aliases.values() if ref.name in alias.c]
        if len(having) == 1:
            return having[0]
        return func.coalesce(*having)

    def parent_id(self, hops: tuple[Hop, ...]) -> ColumnElement:
        """The parent's Id, null when there is no parent record."""
        ids = [alias.c.Id for alias in self.targets(hops).values()]
        return ids[0] if len(ids) == 1 else func.coalesce(*ids)

    def parent_type(self, hops: tuple[Hop, ...]) -> ColumnElement:
        """For a polymorphic parent: the name of the object the record really is."""
        whens = [(alias.c.Id.is_not(None), literal(name)) for name, alias in self.targets(hops).items()]
        return case(*whens, else_=None)


def root_scope(context: QueryContext, query: nodes.SoqlQuery) -> Scope:
    """The scope of a query whose FROM names an object (a main query or a semi-join's inner query)."""
    if len(query.from_items) > 1:
        raise MalformedQuery.at(
            context.query, query.from_items[1].pos, "A query selects from one object; join through relationship paths"
        )
    item = query.from_items[0]
    sobject = context.schema.get(item.sobject)
    if sobject is None:
        raise InvalidType.at(context.query, item.pos, NO_SUCH_SOBJECT.format(sobject=item.sobject))
    return Scope(context, sobject, item.alias, root=True)

"""A SOQL syntax tree → a QueryPlan: a SQLAlchemy Core SELECT with bound parameters, and the
template that turns its rows into REST records. Never SQL text built from the query.

This module handles the query as a whole (FROM, the SELECT list, child subqueries, ORDER BY,
LIMIT/OFFSET, WITH/USING/FOR/UPDATE); conditions.py compiles WHERE and HAVING, aggregates.py the
aggregate queries.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import bindparam, case, func, select
from sqlalchemy.sql.elements import ColumnElement

from soql_parser import nodes
from soql_parser.literals import write_number

from ..errors import InvalidField, InvalidType, MalformedQuery, NumberOutsideValidRange
from ..schema import TEXT_TYPES
from .aggregates import AggregateCompiler
from .conditions import ConditionCompiler, semijoin_query
from .expressions import ORDER_BY, SELECT, WHERE, ExpressionCompiler, Operand
from .formatting import format_value, label_converter
from .functions import FUNCTIONS
from .names import ColumnRef, Hop
from .scope import QueryContext, Scope, root_scope
from .templates import ChildSlot, Columns, ParentSlot, QueryPlan, RecordTemplate, TypeOfSlot, ValueSlot

MAX_OFFSET = 2000
MAX_LIMIT = 2**31 - 1  # LIMIT is a Java int on a real org
MAX_FIELDS_LIMIT = 200
MAX_CHILD_DEPTH = 5  # the root plus four levels of children (API v58+)
MAX_CHILD_SUBQUERIES = 20
AGGREGATE_KINDS = frozenset({"aggregate", "date", "grouping"})
# USING SCOPE values (SOQL reference, "USING SCOPE"), plus two that public parsers also accept.
_SCOPES = frozenset(
    "delegated everything mine mine_and_my_groups my_territory my_team_territory team scopingrule allprivate mru "
    "mineandmygroups".split()
)
_OWNED_SCOPES = frozenset({"mine", "mine_and_my_groups", "mineandmygroups", "allprivate", "delegated"})
_FOLDED = TEXT_TYPES - {"id", "reference"}
NO_SUCH_CHILD = (
    "Didn't understand relationship '{name}' in FROM part of query call. If you are attempting to use a custom "
    "relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or "
    "the describe call for the appropriate names."
)


def is_aggregate_query(query: nodes.SoqlQuery) -> bool:
    """GROUP BY, or an aggregate or date function in the SELECT list, makes rows AggregateResults."""
    if query.group_by is not None:
        return True
    for item in query.select_items:
        expression = item.expression
        while isinstance(expression, nodes.FunctionCall):
            function = FUNCTIONS.get(expression.name.upper())
            if function is not None and function.kind in AGGREGATE_KINDS:
                return True
            expression = expression.argument
    return False


Restriction = Callable[[Scope], ColumnElement]


def compile_query(context: QueryContext, query: nodes.SoqlQuery, restrict: Restriction | None = None) -> QueryPlan:
    """The plan of a main query (FROM names an object); ``restrict`` adds a condition of the caller's
    (SOSL uses it to keep the records the search matched)."""
    scope = root_scope(context, query)
    return QueryCompiler(scope, query, depth=1, restrict=restrict).plan()


class QueryCompiler:
    """Compiles one level: the main query or a child subquery (``link`` is the child's lookup to its parent)."""

    def __init__(
        self,
        scope: Scope,
        query: nodes.SoqlQuery,
        depth: int,
        link: ColumnElement | None = None,
        restrict: Restriction | None = None,
    ) -> None:
        self.scope = scope
        self.query = query
        self.depth = depth
        self.link = link
        self.restrict = restrict
        self.context = scope.context
        self.text = scope.context.query
        self.expressions = ExpressionCompiler(scope)
        self.columns = Columns()

    # ------------------------------------------------------------------- the plan

    def plan(self) -> QueryPlan:
        """The main query's plan, or a child subquery's (restricted to its parents' Ids)."""
        query = self.query
        self._check_clauses()
        where = self._where()
        aggregate = isinstance(query.select_items[0].expression, nodes.CountAll) or is_aggregate_query(query)
        if aggregate and self.link is not None:
            raise MalformedQuery.at(
                self.text, query.from_items[0].pos, "Only root queries support aggregate expressions"
            )
        if isinstance(query.select_items[0].expression, nodes.CountAll):
            return self._count_plan(where)
        if aggregate:
            return AggregateCompiler(self, where).plan()
        template = RecordTemplate(self.scope.sobject.name, self.columns.add(("value", "id"), self.scope.table.c.Id))
        if self.link is not None:
            where.append(self.link.in_(bindparam("parent_ids", expanding=True)))
            self.columns.add(("link",), self.link)
        self._select_list(template)
        order = self._order_by()
        statement = select(*self.columns.labelled()).select_from(self.scope.from_clause).where(*where)
        return self._finish(statement, template, order)

    def _finish(self, statement, template: RecordTemplate, order: list[ColumnElement]) -> QueryPlan:
        limit, offset = self._paging()
        if self.link is None:
            statement = statement.order_by(*order, self.scope.rowid)
            if limit is not None:
                statement = statement.limit(limit)
            if offset:
                statement = statement.offset(offset)
            return QueryPlan(statement, template, sobject=self.scope.sobject.name, limit=limit, offset=offset)
        # A child subquery runs once for all parents; LIMIT and OFFSET count within each parent.
        link_index = self.columns.add(("link",), self.link)
        if limit is None and not offset:
            statement = statement.order_by(self.link, *order, self.scope.rowid)
            return QueryPlan(statement, template, link_index=link_index, sobject=self.scope.sobject.name)
        rank = func.row_number().over(partition_by=self.link, order_by=[*order, self.scope.rowid]).label("rn")
        ranked = statement.add_columns(rank).subquery("ranked")
        first = (offset or 0) + 1
        outer = select(*(ranked.c[f"c{i}"] for i in range(len(self.columns.expressions)))).where(ranked.c.rn >= first)
        if limit is not None:
            outer = outer.where(ranked.c.rn < first + limit)
        outer = outer.order_by(ranked.c[f"c{link_index}"], ranked.c.rn)
        return QueryPlan(outer, template, link_index=link_index, sobject=self.scope.sobject.name)

    def _count_plan(self, where: list[ColumnElement]) -> QueryPlan:
        query = self.query
        if query.group_by is not None or query.order_by:
            clause = "GROUP BY" if query.group_by is not None else "ORDER BY"
            raise MalformedQuery(f"COUNT() cannot be used with {clause}")
        limit, offset = self._paging()
        inner = select(self.scope.table.c.Id).select_from(self.scope.from_clause).where(*where)
        if limit is not None:
            inner = inner.limit(limit)
        if offset:
            inner = inner.offset(offset)
        statement = select(func.count()).select_from(inner.subquery("counted"))
        return QueryPlan(statement, count_only=True, sobject=self.scope.sobject.name)

    # ------------------------------------------------------------------- clauses other than SELECT

    def _check_clauses(self) -> None:
        query, text = self.query, self.text
        if query.bind:
            raise MalformedQuery("BIND is only allowed with lookup filters, which this org does not have")
        for clause in query.with_clauses:
            if isinstance(clause, nodes.WithDataCategory):
                group = clause.filters[0].group
                raise MalformedQuery(f"Invalid data category group name: {group}")
        if query.update_options and not self.scope.sobject.name.lower().endswith("__kav"):
            raise MalformedQuery(f"UPDATE {query.update_options[0]} is only supported for Knowledge articles")
        item = query.from_items[0]
        if item.lookup is not None:
            raise MalformedQuery.at(text, item.pos, "USING LOOKUP is only allowed in lookup-filter searches")

    def _where(self) -> list[ColumnElement]:
        conditions = []
        if not self.context.include_deleted:
            conditions.append(self.scope.table.c.IsDeleted == 0)
        item = self.query.from_items[0]
        if item.scope is not None:
            conditions.extend(self._filter_scope(item))
        if self.restrict is not None:
            conditions.append(self.restrict(self.scope))
        if self.query.where is not None:
            compiler = ConditionCompiler(
                self.expressions, WHERE, semijoins=lambda inner, operand: semijoin_query(self.scope, inner, operand)
            )
            conditions.append(compiler.compile(self.query.where))
        return conditions

    def _filter_scope(self, item: nodes.FromItem) -> list[ColumnElement]:
        """USING SCOPE: the owned scopes keep the querying user's records; the others keep all."""
        scope = (item.scope or "").lower()
        if scope not in _SCOPES:
            raise MalformedQuery.at(self.text, item.pos, f"Invalid scope: {item.scope}")
        if scope not in _OWNED_SCOPES:
            return []
        owner = self.scope.sobject.field("OwnerId")
        if owner is None:
            raise MalformedQuery.at(self.text, item.pos, f"USING SCOPE {item.scope} needs an object with an owner")
        return [self.scope.table.c.OwnerId == (self.context.user_id or "")]

    def _paging(self) -> tuple[int | None, int | None]:
        limit, offset = self.query.limit, self.query.offset
        if limit is not None and limit < 0:
            raise MalformedQuery(f"The LIMIT value must not be negative: {write_number(limit)}")
        if offset is not None and offset < 0:
            raise MalformedQuery(f"The OFFSET value must not be negative: {write_number(offset)}")
        if offset is not None and offset > MAX_OFFSET:
            raise NumberOutsideValidRange(f"Maximum SOQL offset allowed is {MAX_OFFSET}")
        if limit is not None and limit > MAX_LIMIT:
            raise NumberOutsideValidRange(
                f"The LIMIT value is outside the valid range (0 to {MAX_LIMIT}): {write_number(limit)}"
            )
        return limit, offset

    def _order_by(self) -> list[ColumnElement]:
        return [
            self.order_expression(item, self.expressions.operand(self._orderable(item), ORDER_BY))
            for item in self.query.order_by
        ]

    def _orderable(self, item: nodes.OrderItem) -> nodes.FieldPath | nodes.FunctionCall:
        if isinstance(item.expression, nodes.Distance):
            raise MalformedQuery.at(
                self.text, item.expression.pos, "DISTANCE() needs a geolocation field; this org has none"
            )
        return item.expression

    @staticmethod
    def order_expression(item: nodes.OrderItem, operand: Operand) -> ColumnElement:
        """Text sorts as the locale does (case and accents aside), picklists in definition order; nulls first unless
        NULLS LAST says otherwise (SOQL reference, "ORDER BY")."""
        key = operand.sql
        field = operand.field
        if operand.function is None and field is not None and field.type == "picklist" and field.picklist_values:
            key = case(
                {entry.value: rank for rank, entry in enumerate(field.picklist_values)},
                value=key,
                else_=len(field.picklist_values),
            )
        elif operand.type in _FOLDED and (operand.function is None or operand.function.kind == "label"):
            key = key.collate("SF")
        ordered = key.desc() if item.direction == "DESC" else key.asc()
        return ordered.nulls_last() if item.nulls == "LAST" else ordered.nulls_first()

    # ------------------------------------------------------------------- SELECT list

    def _select_list(self, template: RecordTemplate) -> None:
        selected: set[tuple[str, ...]] = set()
        children = 0
        fields_limit_needed = None
        for item in self.query.select_items:
            expression = item.expression
            if isinstance(expression, nodes.SoqlQuery):
                children += 1
                if children > MAX_CHILD_SUBQUERIES:
                    raise MalformedQuery(f"A query can have at most {MAX_CHILD_SUBQUERIES} child subqueries")
                self._no_alias(item)
                template.entries.append(self._child(expression))
            elif isinstance(expression, nodes.Fields):
                if expression.category != "STANDARD":
                    fields_limit_needed = expression
                for field in self.scope.sobject.field_list():
                    if expression.category == "ALL" or field.custom == (expression.category == "CUSTOM"):
                        ref = ColumnRef((), field.name, field)
                        self._add_value(template, ref, self.scope.table.c[field.name], None, selected, expression.pos)
            elif isinstance(expression, nodes.TypeOf):
                self._no_alias(item)
                template.entries.append(self._typeof(expression, selected))
            elif isinstance(expression, nodes.Distance):
                raise MalformedQuery.at(
                    self.text, expression.pos, "DISTANCE() needs a geolocation field; this org has none"
                )
            elif isinstance(expression, nodes.FieldPath):
                self._no_alias(item)
                operand = self.expressions.operand(expression, SELECT)
                self._add_value(template, operand.ref, operand.sql, None, selected, expression.pos)
            else:
                assert isinstance(expression, nodes.FunctionCall)  # COUNT() stands alone: an aggregate query
                self._select_function(template, item, expression, selected)
        if fields_limit_needed is not None and (self.query.limit is None or self.query.limit > MAX_FIELDS_LIMIT):
            raise MalformedQuery.at(
                self.text,
                fields_limit_needed.pos,
                f"The SOQL FIELDS function must have a LIMIT of at most {MAX_FIELDS_LIMIT}",
            )

    def _no_alias(self, item: nodes.SelectItem) -> None:
        if item.alias is not None:
            raise MalformedQuery("only aggregate expressions use field aliasing")

    def _select_function(
        self, template: RecordTemplate, item: nodes.SelectItem, expression: nodes.FunctionCall, selected: set
    ) -> None:
        """toLabel(), FORMAT() and convertCurrency() in a plain query: the field's value, converted."""
        operand = self.expressions.operand(expression, SELECT)
        kind = operand.function.kind if operand.function else ""
        field = operand.field
        convert = None
        if kind == "label" and field is not None:
            convert = label_converter(field)
        elif kind == "format":
            clock = self.context.clock
            convert = lambda value, kind=operand.ref.type: format_value(value, kind, clock)  # noqa: E731
        ref = operand.ref
        if item.alias is not None:
            ref = ColumnRef((), item.alias, field)
        self._add_value(template, ref, operand.sql, convert, selected, expression.pos)

    def _add_value(
        self,
        template: RecordTemplate,
        ref: ColumnRef,
        sql: ColumnElement,
        convert,
        selected: set,
        pos: tuple[int, int] | None,
    ) -> None:
        path = tuple(part.lower() for part in ref.path)
        if path in selected:
            raise InvalidField.at(self.text, pos, f"duplicate field selected: {ref.name}")
        selected.add(path)
        container = self._parent_container(template, ref.hops)
        index = self.columns.add(("value", *path), sql)
        container.entries.append(ValueSlot(ref.name, index, ref.type, convert))

    def _parent_container(self, template: RecordTemplate, hops: tuple[Hop, ...]) -> RecordTemplate | ParentSlot:
        container: RecordTemplate | ParentSlot = template
        for depth, hop in enumerate(hops, start=1):
            prefix = hops[:depth]
            found = container.parent(hop.name) if isinstance(container, RecordTemplate) else container.child(hop.name)
            if found is None:
                key = tuple(h.field.name.lower() for h in prefix)
                found = ParentSlot(hop.name, self.columns.add(("parent", *key), self.scope.parent_id(prefix)), None)
                if hop.polymorphic:
                    found.type_index = self.columns.add(("type", *key), self.scope.parent_type(prefix))
                else:
                    found.sobject = hop.targets[0].name
                container.entries.append(found)
            container = found
        return container

    def _typeof(self, typeof: nodes.TypeOf, selected: set) -> TypeOfSlot:
        before, hop = self.scope.names.relationship(typeof.relationship)
        hops = (*before, hop)
        if not hop.polymorphic:
            raise MalformedQuery.at(
                self.text, typeof.pos, f"TYPEOF can only be used with a polymorphic relationship: {hop.name}"
            )
        key = tuple(h.field.name.lower() for h in hops)
        if ("typeof", *key) in selected:
            raise InvalidField.at(self.text, typeof.pos, f"duplicate field selected: {hop.name}")
        selected.add(("typeof", *key))
        targets = self.scope.targets(hops)
        by_type: dict[str, list] = {}
        for when in typeof.whens:
            target = next((t for t in hop.targets if t.name.lower() == when.sobject.lower()), None)
            if target is None:
                raise MalformedQuery.at(self.text, when.pos, f"Invalid TYPEOF type: {when.sobject} for {hop.name}")
            slots = []
            for path in when.fields:
                field = target.field(path.parts[-1]) if len(path.parts) == 1 else None
                if field is None:
                    raise InvalidField.at(
                        self.text, path.pos, f"No such column '{path.text}' on entity '{target.name}'"
                    )
                index = self.columns.add(("typeof", *key, target.name, field.name), targets[target.name].c[field.name])
                slots.append(ValueSlot(field.name, index, field.type))
            by_type[target.name] = slots
        else_slots = []
        for path in typeof.else_fields:
            ref = self.scope.names.column(nodes.FieldPath((*typeof.relationship.parts, *path.parts), pos=path.pos))
            index = self.columns.add(("typeof-else", *key, ref.name), self.scope.column(ref))
            else_slots.append(ValueSlot(ref.name, index, ref.type))
        by_type["*"] = else_slots
        return TypeOfSlot(
            hop.name,
            self.columns.add(("parent", *key), self.scope.parent_id(hops)),
            self.columns.add(("type", *key), self.scope.parent_type(hops)),
            by_type,
        )

    # ------------------------------------------------------------------- child subqueries

    def _child(self, subquery: nodes.SoqlQuery) -> ChildSlot:
        item = subquery.from_items[0]
        parts = item.sobject.split(".")
        parent = self.scope.sobject
        qualifier_ok = len(parts) == 1 or (
            len(parts) == 2 and parts[0].lower() in {parent.name.lower(), (self.scope.names.alias or "").lower()}
        )
        relationship = parent.child_relationship(parts[-1]) if qualifier_ok else None
        if relationship is None:
            raise InvalidType.at(self.text, item.pos, NO_SUCH_CHILD.format(name=item.sobject))
        if self.depth >= MAX_CHILD_DEPTH:
            raise MalformedQuery.at(
                self.text,
                item.pos,
                "SOQL statements cannot query aggregate relationships more than "
                f"{MAX_CHILD_DEPTH - 1} levels away from the root entity object.",
            )
        if subquery.offset is not None and self.query.limit != 1:
            raise MalformedQuery.at(
                self.text, item.pos, "OFFSET in a subquery is only allowed when the parent query has LIMIT 1"
            )
        child = self.context.schema[relationship.child_sobject]
        scope = Scope(self.context, child, item.alias)
        link = scope.table.c[relationship.field]
        compiler = QueryCompiler(scope, subquery, self.depth + 1, link=link)
        plan = compiler.plan()
        return ChildSlot(relationship.name, plan)

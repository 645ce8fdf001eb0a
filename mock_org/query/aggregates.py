"""Aggregate queries: GROUP BY (plain, ROLLUP, CUBE), HAVING, aggregate and date functions.

Rows come back as AggregateResult records whose keys are the alias, ``expr0``, ``expr1``… for
unaliased expressions (counting only those), or the field's name for a grouped field (SOQL
reference, "Using Aliases with GROUP BY"). SQLite has no ROLLUP or CUBE, so each grouping set is
its own SELECT and the results are stacked with UNION ALL.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import TYPE_CHECKING

from sqlalchemy import literal, null, select, union_all
from sqlalchemy.sql.elements import ColumnElement

from soql_parser import nodes
from soql_parser.render import to_text

from ..errors import MalformedQuery
from .conditions import ConditionCompiler
from .expressions import GROUP_BY, HAVING, ORDER_BY, SELECT, Operand
from .templates import AggregateColumn, QueryPlan

if TYPE_CHECKING:
    from .compile import QueryCompiler

MAX_ROLLUP_FIELDS = 3


class AggregateCompiler:
    def __init__(self, owner: QueryCompiler, where: list[ColumnElement]) -> None:
        self.owner = owner
        self.query = owner.query
        self.text = owner.text
        self.expressions = owner.expressions
        self.where = where
        self.groups: list[Operand] = []

    def plan(self) -> QueryPlan:
        query = self.query
        group_by = query.group_by
        if group_by is not None:
            self.groups = [self._group_operand(node) for node in group_by.expressions]
            if group_by.kind and len(self.groups) > MAX_ROLLUP_FIELDS:
                raise MalformedQuery(f"{group_by.kind} can have at most {MAX_ROLLUP_FIELDS} fields")
        elif query.limit is not None:
            raise MalformedQuery(
                "LIMIT cannot be used in a query that uses an aggregate function but no GROUP BY clause"
            )
        outputs = self._select_list()
        having = self._having()
        order = [self._order_operand(item) for item in query.order_by]
        limit, offset = self.owner._paging()
        sets = self._grouping_sets()
        statement = self._statement(outputs, order, having, sets, limit, offset)
        columns = [AggregateColumn(key, index, result) for index, (key, _, result, _) in enumerate(outputs)]
        return QueryPlan(statement, aggregate=columns, sobject=self.owner.scope.sobject.name)

    # ------------------------------------------------------------------- operands

    def _group_operand(self, node: nodes.FieldPath | nodes.FunctionCall) -> Operand:
        operand = self.expressions.operand(node, GROUP_BY)
        if operand.function is not None and operand.function.kind != "date":
            raise MalformedQuery.at(self.text, node.pos, f"{operand.function.name}() cannot be used in GROUP BY")
        return operand

    def _is_grouped_field_of(self, operand: Operand) -> bool:
        """The argument of an aggregate is itself a grouped expression."""
        return any(group.key == operand.key[1:] for group in self.groups)

    def _check(self, operand: Operand, node: nodes.FieldPath | nodes.FunctionCall, clause: str) -> None:
        """Every non-aggregate expression must be grouped; no grouped expression may be aggregated."""
        kind = operand.function.kind if operand.function else None
        if kind == "aggregate":
            if self._is_grouped_field_of(operand):
                raise MalformedQuery(f"Grouped field should not be aggregated: {operand.ref.name}")
            return
        if kind == "grouping":
            if not (self.query.group_by and self.query.group_by.kind) or not self._is_grouped_field_of(operand):
                raise MalformedQuery(f"GROUPING() needs a field of a ROLLUP or CUBE group: {operand.ref.name}")
            return
        key = operand.key[1:] if kind in ("label", "currency", "format") else operand.key
        if not any(group.key == key for group in self.groups):
            verb = "Ordered field" if clause == ORDER_BY else "Field"
            raise MalformedQuery(f"{verb} must be grouped or aggregated: {self._name(node, operand)}")

    @staticmethod
    def _name(node: nodes.FieldPath | nodes.FunctionCall, operand: Operand) -> str:
        return (
            to_text(node)
            if isinstance(node, nodes.FunctionCall) and operand.function is not None and operand.function.kind == "date"
            else operand.ref.name
        )

    # ------------------------------------------------------------------- clauses

    def _select_list(self) -> list[tuple[str, Operand, str, nodes.SelectItem]]:
        outputs: list[tuple[str, Operand, str, nodes.SelectItem]] = []
        unaliased = 0
        for item in self.query.select_items:
            node = item.expression
            if isinstance(node, nodes.SoqlQuery):
                raise MalformedQuery("A query with GROUP BY or aggregate functions cannot have child subqueries")
            if not isinstance(node, (nodes.FieldPath, nodes.FunctionCall)):
                raise MalformedQuery.at(self.text, getattr(node, "pos", None), "Field must be grouped or aggregated")
            operand = self.expressions.operand(node, SELECT)
            self._check(operand, node, SELECT)
            field_like = isinstance(node, nodes.FieldPath) or (
                operand.function is not None and operand.function.kind in ("label", "currency")
            )
            if item.alias is not None:
                key = item.alias
            elif field_like:
                key = operand.ref.name
            else:
                key = f"expr{unaliased}"
                unaliased += 1
            if any(existing == key for existing, *_ in outputs):
                raise MalformedQuery(f"duplicate alias: {key}")
            result = "string" if operand.function is not None and operand.function.kind == "format" else operand.type
            outputs.append((key, operand, result, item))
        return outputs

    def _having(self) -> ColumnElement | None:
        if self.query.having is None:
            return None
        compiler = ConditionCompiler(
            self.expressions, HAVING, check=lambda operand, node: self._check(operand, node, HAVING)
        )
        return compiler.compile(self.query.having)

    def _order_operand(self, item: nodes.OrderItem) -> tuple[nodes.OrderItem, Operand]:
        node = self.owner._orderable(item)
        operand = self.expressions.operand(node, ORDER_BY)
        self._check(operand, node, ORDER_BY)
        return item, operand

    # ------------------------------------------------------------------- the statement

    def _grouping_sets(self) -> list[tuple[int, ...]]:
        """Which GROUP BY expressions each grouping set keeps (ROLLUP: right to left; CUBE: all)."""
        count = len(self.groups)
        kind = self.query.group_by.kind if self.query.group_by else ""
        if kind == "ROLLUP":
            return [tuple(range(size)) for size in range(count, -1, -1)]
        if kind == "CUBE":
            return [subset for size in range(count, -1, -1) for subset in combinations(range(count), size)]
        return [tuple(range(count))]

    def _statement(self, outputs, order, having, sets, limit, offset):
        scope = self.owner.scope
        hidden = [operand for _, operand in order]
        selects = []
        for kept in sets:
            rolled = {index for index in range(len(self.groups)) if index not in kept}
            rolled_keys = {self.groups[index].key for index in rolled}

            def value(operand: Operand, rolled_keys=rolled_keys) -> ColumnElement:
                kind = operand.function.kind if operand.function else None
                if kind == "grouping":
                    return literal(1 if operand.key[1:] in rolled_keys else 0)
                if kind != "aggregate" and (operand.key in rolled_keys or operand.key[1:] in rolled_keys):
                    return null()
                return operand.sql

            columns = [value(operand).label(f"c{i}") for i, (_, operand, _, _) in enumerate(outputs)]
            columns += [value(operand).label(f"o{i}") for i, operand in enumerate(hidden)]
            statement = select(*columns).select_from(scope.from_clause).where(*self.where)
            kept_groups = [self.groups[index].sql for index in kept]
            if kept_groups:
                statement = statement.group_by(*kept_groups)
            if having is not None:
                statement = statement.having(having)
            selects.append(statement)
        if len(selects) == 1 and not order:
            ordered = selects[0]
        else:
            stacked = union_all(*selects).subquery("grouped") if len(selects) > 1 else selects[0].subquery("grouped")
            ordered = select(*(stacked.c[f"c{i}"] for i in range(len(outputs)))).select_from(stacked)
            ordered = ordered.order_by(
                *(
                    self.owner.order_expression(item, replace(operand, sql=stacked.c[f"o{i}"]))
                    for i, (item, operand) in enumerate(order)
                )
            )
        if limit is not None:
            ordered = ordered.limit(limit)
        if offset:
            ordered = ordered.offset(offset)
        return ordered

"""WHERE and HAVING conditions → SQL with a real org's semantics.

* String comparisons are case-insensitive (Unicode case folding); Ids compare exactly, 15 or 18
  characters alike.
* There is no three-valued logic: ``!=``, ``NOT IN`` and ``NOT (…)`` keep rows whose field is null,
  ``=``, ``<``, ``LIKE``, ``IN`` never match null (reference/soql_sosl.md §3.1). Every positive
  predicate below is false-or-null on a null field, and NOT reads null as false.
* Semi- and anti-joins follow the documented limits (at most two, never under OR or NOT, only at
  the top level, not nested).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import Select, and_, false, func, literal_column, not_, or_, select
from sqlalchemy.sql.elements import ColumnElement

from soql_parser import nodes

from ..errors import MalformedQuery
from ..schema import TEXT_TYPES
from ..storage import INLINE_VALUES, fold, one_of
from .expressions import WHERE, ExpressionCompiler, Operand
from .operands import Range, like_pattern, type_error
from .scope import Scope, root_scope

_FOLDED = TEXT_TYPES - {"id", "reference", "multipicklist"}
_LIKE_TYPES = _FOLDED
_COMPARE = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
MAX_SEMI_JOINS = 2
_GROUP = 16  # terms per parenthesised group of a long AND or OR chain


def _two_valued(condition: ColumnElement) -> ColumnElement:
    return func.coalesce(condition, 0)


def _balanced(combine: Callable[..., ColumnElement], parts: list[ColumnElement]) -> ColumnElement:
    """``a AND b AND …`` as a shallow tree of parenthesised groups: SQLite refuses an expression more
    than 1,000 levels deep, and a flat chain of n terms is n levels deep to its parser. A group is
    written ``(…) = 1`` (true, false or null as before), or SQLAlchemy would flatten it again."""
    while len(parts) > _GROUP:
        parts = [
            combine(*parts[i : i + _GROUP]).self_group() == literal_column("1") for i in range(0, len(parts), _GROUP)
        ]
    return combine(*parts)


class ConditionCompiler:
    """Compiles one WHERE or HAVING clause.

    ``check`` is called with every operand (HAVING uses it to insist on grouped or aggregated
    expressions); ``semijoins`` builds the inner query of a semi-join (None where none is allowed).
    """

    def __init__(
        self,
        expressions: ExpressionCompiler,
        clause: str,
        check: Callable[[Operand, nodes.FieldPath | nodes.FunctionCall], None] | None = None,
        semijoins: Callable[[nodes.SoqlQuery, Operand], Select[Any]] | None = None,
    ) -> None:
        self.expressions = expressions
        self.clause = clause
        self.check = check
        self.semijoins = semijoins
        self.query = expressions.query
        self.operands = expressions.scope.context.operands
        self.binds = expressions.scope.context.binds
        self._semijoin_count = 0

    def compile(self, condition: nodes.Condition) -> ColumnElement:
        return self._condition(condition, top=True, under_or=False, under_not=False, root=True)

    def _condition(
        self, condition: nodes.Condition, *, top: bool, under_or: bool, under_not: bool, root: bool = False
    ) -> ColumnElement:
        """``top``: the condition is the WHERE itself or an operand of the WHERE's own AND."""
        if isinstance(condition, nodes.And):
            return _balanced(
                and_,
                [
                    self._condition(c, top=top and root, under_or=under_or, under_not=under_not)
                    for c in condition.operands
                ],
            )
        if isinstance(condition, nodes.Or):
            return _balanced(
                or_, [self._condition(c, top=False, under_or=True, under_not=under_not) for c in condition.operands]
            )
        if isinstance(condition, nodes.Not):
            inner = self._condition(condition.operand, top=False, under_or=under_or, under_not=True)
            return not_(_two_valued(inner))
        if isinstance(condition, nodes.SemiJoin):
            return self._semijoin(condition, top=top, under_or=under_or, under_not=under_not)
        if isinstance(condition, nodes.SetCondition):
            return self._set_condition(condition)
        return self._comparison(condition)

    # ------------------------------------------------------------------- operands

    def _operand(self, node: nodes.FieldPath | nodes.FunctionCall | nodes.Distance) -> Operand:
        if isinstance(node, nodes.Distance):
            raise MalformedQuery.at(self.query, node.pos, "DISTANCE() needs a geolocation field; this org has none")
        operand = self.expressions.operand(node, self.clause)
        if self.clause == WHERE and operand.is_aggregate:
            raise MalformedQuery.at(self.query, node.pos, "Aggregate functions are not allowed in the WHERE clause")
        if self.check is not None:
            self.check(operand, node)
        return operand

    def _read(self, operand: Operand, literal: nodes.Literal) -> object:
        """A literal compared with ``operand``, in stored form."""
        if operand.function is not None and operand.function.kind == "label":
            return self._label(operand, literal)
        if operand.function is not None and operand.type == "int":
            if isinstance(literal, nodes.NullLiteral):
                return None
            return self.operands.integer(literal, operand.ref.name)
        return self.operands.read(literal, operand.ref.name, operand.type)

    def _label(self, operand: Operand, literal: nodes.Literal) -> object:
        """toLabel(field) compares with the picklist label; it becomes the stored value here."""
        if not isinstance(literal, nodes.StringLiteral):
            return self.operands.read(literal, operand.ref.name, operand.type)
        field = operand.field
        folded = fold(literal.value)
        for entry in field.picklist_values if field else ():
            if fold(entry.label) == folded:
                return fold(entry.value)
        return folded

    # ------------------------------------------------------------------- predicates

    def _comparison(self, condition: nodes.Comparison) -> ColumnElement:
        operand = self._operand(condition.left)
        if condition.operator == "LIKE":
            if operand.type not in _LIKE_TYPES or isinstance(condition.value, nodes.NullLiteral):
                raise MalformedQuery.at(self.query, condition.left.pos, f"invalid operator on {operand.type} field")
            pattern = self.binds.bind(
                condition.value,
                like_pattern(condition.value, self.query),
                lambda literal: like_pattern(literal, self.query),
            )
            return func.sf_matches(operand.sql, pattern) == 1
        value = self._bound_read(operand, condition.value)
        return self._compare(operand, condition.operator, value, condition.value)

    def _bound_read(self, operand: Operand, literal: nodes.Literal) -> object:
        """``_read``, as a named bind when the literal is lifted out of the query's shape (binds.py)."""
        return self.binds.bind(literal, self._read(operand, literal), lambda other: self._read(operand, other))

    def _compare(self, operand: Operand, operator: str, value: object, literal: nodes.Literal) -> ColumnElement:
        column = operand.sql
        if value is None:
            if operator == "=":
                return column.is_(None)
            if operator == "!=":
                return column.is_not(None)
            raise MalformedQuery.at(self.query, literal.pos, f"invalid operator {operator} with null")
        if operand.type == "multipicklist":
            if operator not in ("=", "!="):
                raise MalformedQuery.at(self.query, literal.pos, f"invalid operator {operator} on multipicklist field")
            equal = func.sf_mp_equals(column, value) == 1
            return equal if operator == "=" else not_(equal)
        if isinstance(value, Range):
            return self._in_range(column, operator, value)
        left = func.sf_fold(column) if operand.type in _FOLDED else column
        if operator == "=":
            return left == value
        if operator == "!=":
            return or_(column.is_(None), left != value)
        return _COMPARE[operator](left, value)

    @staticmethod
    def _in_range(column: ColumnElement, operator: str, value: Range) -> ColumnElement:
        # A relative date literal is a range [start, end): `<` is before it, `>` after it
        # (SOQL reference, "Date Formats and Date Literals").
        if operator == "=":
            return and_(column >= value.start, column < value.end)
        if operator == "!=":
            return or_(column.is_(None), column < value.start, column >= value.end)
        bound = {"<": (column < value.start), "<=": (column < value.end), ">": (column >= value.end)}
        return bound.get(operator, column >= value.start)

    def _set_condition(self, condition: nodes.SetCondition) -> ColumnElement:
        operand = self._operand(condition.left)
        if condition.operator in ("INCLUDES", "EXCLUDES"):
            return self._includes(operand, condition)
        values = [self._read(operand, literal) for literal in condition.values]
        plain = [value for value in values if value is not None and not isinstance(value, Range)]
        if len(plain) <= INLINE_VALUES:  # a longer list is one JSON value (one_of), never rebound
            plain = [
                self.binds.bind(literal, value, lambda other: self._read(operand, other))
                for literal, value in zip(condition.values, values, strict=True)
                if value is not None and not isinstance(value, Range)
            ]
        left = func.sf_fold(operand.sql) if operand.type in _FOLDED else operand.sql
        parts = [one_of(left, plain)] if plain else []
        parts += [self._in_range(operand.sql, "=", value) for value in values if isinstance(value, Range)]
        if any(value is None for value in values):
            parts.append(operand.sql.is_(None))
        positive = or_(*parts) if parts else false()
        return not_(_two_valued(positive)) if condition.operator == "NOT IN" else positive

    def _includes(self, operand: Operand, condition: nodes.SetCondition) -> ColumnElement:
        if operand.type != "multipicklist":
            raise MalformedQuery.at(
                self.query, condition.left.pos, f"{condition.operator} is only valid on multi-select picklist fields"
            )
        groups = []
        for literal in condition.values:
            if not isinstance(literal, nodes.StringLiteral):
                raise type_error(self.query, literal, operand.ref.name, "multipicklist")
            groups.append(literal.value)
        includes = func.sf_mp_includes(operand.sql, json.dumps(groups)) == 1
        return includes if condition.operator == "INCLUDES" else not_(includes)

    # ------------------------------------------------------------------- semi-joins

    def _semijoin(self, condition: nodes.SemiJoin, *, top: bool, under_or: bool, under_not: bool) -> ColumnElement:
        position = condition.left.pos
        if self.semijoins is None:
            raise MalformedQuery.at(self.query, position, "Nesting of semi join sub-selects is not supported")
        if under_or:
            raise MalformedQuery.at(
                self.query, position, "Semi join sub-selects are not allowed with the 'OR' operator"
            )
        if under_not:
            raise MalformedQuery.at(
                self.query, position, "Semi join sub-selects are not allowed with the 'NOT' operator"
            )
        if not top:
            raise MalformedQuery.at(
                self.query,
                position,
                "Semi join sub-selects are only allowed at the top level WHERE expressions and not in nested WHERE "
                "expressions.",
            )
        self._semijoin_count += 1
        if self._semijoin_count > MAX_SEMI_JOINS:
            raise MalformedQuery.at(self.query, position, f"Maximum {MAX_SEMI_JOINS} semi join sub-selects are allowed")
        operand = self._operand(condition.left)
        if operand.function is not None or operand.ref.hops or operand.type not in ("id", "reference"):
            raise MalformedQuery.at(
                self.query, position, f"Semi join sub-selects can only be used with an id field: {condition.left}"
            )
        inner = self.semijoins(condition.query, operand)
        positive = operand.sql.in_(inner)
        return not_(_two_valued(positive)) if condition.negated else positive


def semijoin_query(outer: Scope, query: nodes.SoqlQuery, operand: Operand) -> Select[Any]:
    """The inner SELECT of a semi-join: one Id or reference field of another object, no paths."""
    context = outer.context
    scope = root_scope(context, query)
    if scope.sobject.name == outer.sobject.name:
        raise MalformedQuery.at(
            context.query, query.from_items[0].pos, "The inner and outer selects should not be on the same object type"
        )
    node = query.select_items[0].expression
    expressions = ExpressionCompiler(scope)
    if not isinstance(node, nodes.FieldPath):
        raise MalformedQuery.at(
            context.query, getattr(node, "pos", None), "semi join sub selects can only query id fields"
        )
    inner = expressions.operand(node, WHERE)
    if inner.ref.hops or inner.type not in ("id", "reference"):
        raise MalformedQuery.at(
            context.query, node.pos, f"semi join sub selects can only query id fields, cannot use: '{node.text}'"
        )
    where = [inner.sql.is_not(None), scope.table.c.IsDeleted == 0]
    if query.where is not None:
        where.append(ConditionCompiler(expressions, WHERE, semijoins=None).compile(query.where))
    # Never correlated with the outer query: the inner object is a table of its own.
    return select(inner.sql).select_from(scope.from_clause).where(*where).correlate(None)

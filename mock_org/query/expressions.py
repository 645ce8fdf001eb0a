"""Field expressions → SQL: fields, parent paths and function calls, checked for the clause they are in.

A real org allows each function in some clauses only (aggregates in SELECT, HAVING and ORDER BY;
convertTimezone only inside a date function; convertCurrency not in WHERE…) and each field in a
clause only if describe says so (filterable, groupable, sortable). The checks are here, the SQL
comes from functions.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlalchemy.sql.elements import ColumnElement

from soql_parser import nodes
from soql_parser.render import to_text

from ..errors import InvalidField, MalformedQuery
from ..schema import TEXT_TYPES, Field
from .functions import FUNCTIONS, Function
from .names import ColumnRef
from .scope import Scope

# The clause an expression appears in decides what it may be.
SELECT, WHERE, HAVING, GROUP_BY, ORDER_BY = "SELECT", "WHERE", "HAVING", "GROUP BY", "ORDER BY"

_ALLOWED = {
    SELECT: {"aggregate", "date", "label", "format", "currency", "grouping"},
    WHERE: {"date", "label"},
    HAVING: {"aggregate", "date", "grouping"},
    GROUP_BY: {"date"},
    ORDER_BY: {"aggregate", "date", "label", "grouping"},
}
_ATTRIBUTE = {WHERE: ("filterable", "filtered"), GROUP_BY: ("groupable", "grouped"), ORDER_BY: ("sortable", "sorted")}


@dataclass(frozen=True)
class Operand:
    """A compiled field expression.

    ``type`` is the Salesforce type of its value, ``ref`` the field it reads, ``function`` the outer
    function (if any), and ``key`` identifies it structurally so that SELECT and HAVING items can be
    matched against GROUP BY items however they are spelled.
    """

    sql: ColumnElement
    type: str
    ref: ColumnRef
    function: Function | None
    key: tuple[str, ...]
    pos: tuple[int, int] | None

    @property
    def field(self) -> Field | None:
        return self.ref.field

    @property
    def is_aggregate(self) -> bool:
        return self.function is not None and self.function.kind in ("aggregate", "grouping")


class ExpressionCompiler:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.query = scope.context.query

    def operand(self, node: nodes.FieldPath | nodes.FunctionCall | nodes.Fields, clause: str) -> Operand:
        if isinstance(node, nodes.FieldPath):
            ref = self.scope.names.column(node)
            self._check_attribute(ref, clause, node.pos)
            key = ("field", *(part.lower() for part in ref.path))
            return Operand(self.scope.column(ref), ref.type, ref, None, key, node.pos)
        if isinstance(node, nodes.FunctionCall):
            return self._call(node, clause)
        raise MalformedQuery.at(self.query, node.pos, f"FIELDS({node.category}) can only be used in the SELECT list")

    def _check_attribute(self, ref: ColumnRef, clause: str, pos: tuple[int, int] | None) -> None:
        if clause not in _ATTRIBUTE or ref.field is None:
            return
        attribute, verb = _ATTRIBUTE[clause]
        if not getattr(ref.field, attribute):
            raise InvalidField.at(self.query, pos, f"field '{ref.field.name}' can not be {verb} in a query call")

    def _call(self, node: nodes.FunctionCall, clause: str) -> Operand:
        function = FUNCTIONS.get(node.name.upper())
        if function is None:
            raise MalformedQuery.at(self.query, node.pos, f"Unknown function: {node.name}")
        if function.kind == "timezone":
            raise MalformedQuery.at(self.query, node.pos, "convertTimezone() can only be used inside a date function")
        if function.kind == "aggregate" and clause == WHERE:
            raise MalformedQuery.at(self.query, node.pos, "Aggregate functions are not allowed in the WHERE clause")
        if function.kind not in _ALLOWED[clause]:
            raise MalformedQuery.at(self.query, node.pos, f"{function.name}() is not allowed in {clause}")
        argument = node.argument
        if function.kind == "date":
            return self._date_function(function, argument, clause, node.pos)
        if isinstance(argument, nodes.FunctionCall):
            # FORMAT(MIN(x)), FORMAT(convertCurrency(x)): FORMAT may wrap one other function.
            if function.kind != "format":
                raise MalformedQuery.at(self.query, argument.pos, f"{node.name}() cannot wrap another function")
            inner = self._call(argument, clause)
            return Operand(inner.sql, "string", inner.ref, inner.function, ("format", *inner.key), node.pos)
        # An aggregate reads its field whatever the clause; other functions take the clause's rules.
        inner = self.operand(argument, SELECT if function.kind in ("aggregate", "grouping") else clause)
        if function.accepts is not None and inner.type not in function.accepts:
            name = inner.field.name if inner.field else inner.ref.name
            raise MalformedQuery.at(
                self.query,
                node.pos,
                f"field {name} does not support aggregate operator {function.name}"
                if function.kind == "aggregate"
                else f"{function.name}() cannot be used with field {name}",
            )
        argument_sql = inner.sql
        if function.name in ("MIN", "MAX") and inner.type in TEXT_TYPES - {"id", "reference"}:
            argument_sql = argument_sql.collate("SF")  # the smallest text as the locale sorts it
        sql = function.sql(argument_sql, self.scope.context.clock)
        result = function.result or inner.type
        return Operand(sql, result, inner.ref, function, (function.name.lower(), *inner.key), node.pos)

    def _date_function(
        self,
        function: Function,
        argument: nodes.FieldPath | nodes.FunctionCall,
        clause: str,
        pos: tuple[int, int] | None,
    ) -> Operand:
        local = False
        if isinstance(argument, nodes.FunctionCall):
            inner_function = FUNCTIONS.get(argument.name.upper())
            if (
                inner_function is None
                or inner_function.kind != "timezone"
                or not isinstance(argument.argument, nodes.FieldPath)
            ):
                raise MalformedQuery.at(self.query, argument.pos, f"{function.name}() cannot wrap {argument.name}()")
            argument, local = argument.argument, True
        inner = self.operand(argument, clause if clause != GROUP_BY else SELECT)
        if inner.type not in function.accepts:  # type: ignore[operator]
            raise MalformedQuery.at(
                self.query, pos, f"{function.name}() cannot be used with field {inner.ref.name} of type {inner.type}"
            )
        if local and inner.type != "datetime":
            raise MalformedQuery.at(self.query, pos, "convertTimezone() takes a dateTime field")
        clock = self.scope.context.clock
        # Stored datetimes are UTC text 'YYYY-MM-DDTHH:MM:SS.mmm+0000'; date functions read them in UTC
        # unless convertTimezone() moves them into the user's time zone.
        moment: ColumnElement[Any]
        if inner.type == "datetime":
            moment = func.sf_local_time(inner.sql, clock.timezone) if local else func.substr(inner.sql, 1, 19)
        else:
            moment = inner.sql
        key = (function.name.lower(), "local" if local else "utc", *inner.key)
        return Operand(function.sql(moment, clock), function.result or inner.type, inner.ref, function, key, pos)

    def describe(self, node: nodes.FieldPath | nodes.FunctionCall) -> str:
        """How a real org names an expression in a message: the field name, or the call as written."""
        return node.text if isinstance(node, nodes.FieldPath) else to_text(node)

"""Syntax tree → canonical query text: upper-case keywords, single spaces, one line.

``parse(to_text(tree)) == tree`` holds for every tree the parser produces. Names keep the
spelling they were written with; parentheses appear exactly where the tree needs them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from typing import Any

from . import literals, nodes


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class Renderer:
    """One ``render_<node>`` method per node class, found once when the class is built."""

    dispatch: dict[type, Callable[[Renderer, Any], str]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.dispatch = {}
        for node_class in node_classes():
            method = getattr(cls, f"render_{_snake(node_class.__name__)}", None)
            if method is not None:
                cls.dispatch[node_class] = method

    def render(self, node: Any) -> str:
        try:
            method = self.dispatch[type(node)]
        except KeyError:
            raise TypeError(f"cannot render {type(node).__name__}") from None
        return method(self, node)

    def join(self, items: Iterable[Any], separator: str = ", ") -> str:
        return separator.join(self.render(item) for item in items)


def node_classes() -> list[type]:
    """Every syntax-tree class (used to build the dispatch table and to test it is complete)."""
    return [
        value
        for value in vars(nodes).values()
        if isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__module__ == nodes.__name__
        and value is not nodes.Located
    ]


class TextRenderer(Renderer):
    # ------------------------------------------------------------------- queries

    def render_soql_query(self, query: nodes.SoqlQuery) -> str:
        parts = ["SELECT " + self.join(query.select_items), "FROM " + self.join(query.from_items)]
        if query.where is not None:
            parts.append("WHERE " + self.render(query.where))
        parts.extend(self.render(clause) for clause in query.with_clauses)
        if query.group_by is not None:
            parts.append(self.render(query.group_by))
        if query.having is not None:
            parts.append("HAVING " + self.render(query.having))
        if query.order_by:
            parts.append("ORDER BY " + self.join(query.order_by))
        if query.limit is not None:
            parts.append(f"LIMIT {literals.write_number(query.limit)}")
        if query.offset is not None:
            parts.append(f"OFFSET {literals.write_number(query.offset)}")
        if query.bind:
            parts.append("BIND " + self.join(query.bind))
        if query.for_options:
            parts.append("FOR " + ", ".join(query.for_options))
        if query.update_options:
            parts.append("UPDATE " + ", ".join(query.update_options))
        return " ".join(parts)

    def render_select_item(self, item: nodes.SelectItem) -> str:
        text = self.render(item.expression)
        if isinstance(item.expression, nodes.SoqlQuery):
            text = f"({text})"
        return f"{text} {item.alias}" if item.alias else text

    def render_from_item(self, item: nodes.FromItem) -> str:
        text = item.sobject
        if item.alias:
            text += f" {item.alias}"
        if item.scope:
            text += f" USING SCOPE {item.scope}"
        if item.lookup:
            text += f" USING LOOKUP {item.lookup}"
        return text

    # ------------------------------------------------------------------- field expressions

    def render_field_path(self, path: nodes.FieldPath) -> str:
        return path.text

    def render_function_call(self, call: nodes.FunctionCall) -> str:
        return f"{call.name}({self.render(call.argument)})"

    def render_fields(self, fields: nodes.Fields) -> str:
        return f"FIELDS({fields.category})"

    def render_count_all(self, _: nodes.CountAll) -> str:
        return "COUNT()"

    def render_type_of(self, typeof: nodes.TypeOf) -> str:
        parts = ["TYPEOF", typeof.relationship.text]
        parts.extend(self.render(when) for when in typeof.whens)
        if typeof.else_fields:
            parts.append("ELSE " + self.join(typeof.else_fields))
        parts.append("END")
        return " ".join(parts)

    def render_type_of_when(self, when: nodes.TypeOfWhen) -> str:
        return f"WHEN {when.sobject} THEN {self.join(when.fields)}"

    def render_distance(self, distance: nodes.Distance) -> str:
        unit = literals.write_string(nodes.StringLiteral(distance.unit))
        return f"DISTANCE({self.render(distance.field)}, {self.render(distance.point)}, {unit})"

    def render_geolocation(self, point: nodes.Geolocation) -> str:
        return f"GEOLOCATION({literals.write_number(point.latitude)}, {literals.write_number(point.longitude)})"

    # ------------------------------------------------------------------- conditions

    def _operand(self, condition: nodes.Condition) -> str:
        text = self.render(condition)
        return f"({text})" if isinstance(condition, (nodes.And, nodes.Or, nodes.Not)) else text

    def render_and(self, condition: nodes.And) -> str:
        return " AND ".join(self._operand(operand) for operand in condition.operands)

    def render_or(self, condition: nodes.Or) -> str:
        return " OR ".join(self._operand(operand) for operand in condition.operands)

    def render_not(self, condition: nodes.Not) -> str:
        return "NOT " + self._operand(condition.operand)

    def render_comparison(self, condition: nodes.Comparison) -> str:
        return f"{self.render(condition.left)} {condition.operator} {self.render(condition.value)}"

    def render_set_condition(self, condition: nodes.SetCondition) -> str:
        return f"{self.render(condition.left)} {condition.operator} ({self.join(condition.values)})"

    def render_semi_join(self, condition: nodes.SemiJoin) -> str:
        operator = "NOT IN" if condition.negated else "IN"
        return f"{self.render(condition.left)} {operator} ({self.render(condition.query)})"

    # ------------------------------------------------------------------- values

    def render_string_literal(self, literal: nodes.StringLiteral) -> str:
        return literals.write_string(literal)

    def render_number_literal(self, literal: nodes.NumberLiteral) -> str:
        return literals.write_number(literal.value)

    def render_boolean_literal(self, literal: nodes.BooleanLiteral) -> str:
        return "TRUE" if literal.value else "FALSE"

    def render_null_literal(self, _: nodes.NullLiteral) -> str:
        return "NULL"

    def render_date_literal(self, literal: nodes.DateLiteral) -> str:
        return literal.value.isoformat()

    def render_date_time_literal(self, literal: nodes.DateTimeLiteral) -> str:
        return literals.write_datetime(literal.value)

    def render_time_literal(self, literal: nodes.TimeLiteral) -> str:
        return literals.write_time(literal.value)

    def render_relative_date_literal(self, literal: nodes.RelativeDateLiteral) -> str:
        return literal.name if literal.n is None else f"{literal.name}:{literals.write_number(literal.n)}"

    def render_currency_literal(self, literal: nodes.CurrencyLiteral) -> str:
        return literal.currency + literals.write_number(literal.amount)

    # ------------------------------------------------------------------- WITH and later clauses

    def render_with_data_category(self, clause: nodes.WithDataCategory) -> str:
        return "WITH DATA CATEGORY " + self.join(clause.filters, " AND ")

    def render_data_category_filter(self, item: nodes.DataCategoryFilter) -> str:
        categories = item.categories[0] if len(item.categories) == 1 else f"({', '.join(item.categories)})"
        return f"{item.group} {item.selector} {categories}"

    def render_with_identifier(self, clause: nodes.WithIdentifier) -> str:
        options = f"({self.join(clause.options)})" if clause.options else ""
        return f"WITH {clause.name}{options}"

    def render_with_option(self, option: nodes.WithOption) -> str:
        return f"{option.name} = {self.render(option.value)}"

    def render_with_filter(self, clause: nodes.WithFilter) -> str:
        if clause.operator == "IN":
            return f"WITH {clause.name} IN ({self.join(clause.values)})"
        return f"WITH {clause.name} = {self.render(clause.values[0])}"

    def render_group_by(self, group_by: nodes.GroupBy) -> str:
        expressions = self.join(group_by.expressions)
        return f"GROUP BY {group_by.kind}({expressions})" if group_by.kind else f"GROUP BY {expressions}"

    def render_order_item(self, item: nodes.OrderItem) -> str:
        text = self.render(item.expression)
        if item.direction:
            text += f" {item.direction}"
        if item.nulls:
            text += f" NULLS {item.nulls}"
        return text

    def render_bind_item(self, item: nodes.BindItem) -> str:
        return f"{item.name} = {self.render(item.value)}"

    # ------------------------------------------------------------------- SOSL

    def render_sosl_query(self, query: nodes.SoslQuery) -> str:
        search = self.render(query.search)
        parts = ["FIND " + (literals.write_string(nodes.StringLiteral(search)) if query.quoted else f"{{{search}}}")]
        if query.search_group:
            parts.append(f"IN {query.search_group} FIELDS")
        if query.returning:
            parts.append("RETURNING " + self.join(query.returning))
        parts.extend(self.render(clause) for clause in query.with_clauses)
        if query.search_mode:
            parts.append(f"USING {query.search_mode} SEARCH")
        if query.limit is not None:
            parts.append(f"LIMIT {literals.write_number(query.limit)}")
        if query.update_options:
            parts.append("UPDATE " + ", ".join(query.update_options))
        return " ".join(parts)

    def render_returning_object(self, item: nodes.ReturningObject) -> str:
        if not item.select_items:
            return item.sobject
        parts = [self.join(item.select_items)]
        if item.listview:
            parts.append(f"USING LISTVIEW = {item.listview}")
        if item.lookup:
            parts.append(f"USING LOOKUP {item.lookup}")
        if item.bind:
            parts.append("BIND " + self.join(item.bind))
        if item.where is not None:
            parts.append("WHERE " + self.render(item.where))
        if item.order_by:
            parts.append("ORDER BY " + self.join(item.order_by))
        if item.limit is not None:
            parts.append(f"LIMIT {literals.write_number(item.limit)}")
        if item.offset is not None:
            parts.append(f"OFFSET {literals.write_number(item.offset)}")
        return f"{item.sobject}({' '.join(parts)})"

    def render_search_term(self, term: nodes.SearchTerm) -> str:
        return f'"{term.text}"' if term.phrase else term.text

    def _search_operand(self, expression: nodes.SearchExpression, *, under_and: bool, right: bool) -> str:
        """Parenthesise where re-parsing would regroup: AND binds tighter than OR, and both
        are left-associative."""
        text = self.render(expression)
        if isinstance(expression, nodes.SearchTerm):
            return text
        needed = (
            (isinstance(expression, nodes.SearchOr) or right)
            if under_and
            else (right and isinstance(expression, nodes.SearchOr))
        )
        return f"({text})" if needed else text

    def render_search_and(self, expression: nodes.SearchAnd) -> str:
        left = self._search_operand(expression.left, under_and=True, right=False)
        right = self._search_operand(expression.right, under_and=True, right=True)
        if not expression.explicit:
            return f"{left} {right}"
        if right.lower() == "not":
            right = "(not)"  # a bare `not` right after AND would read as AND NOT
        return f"{left} AND {right}"

    def render_search_and_not(self, expression: nodes.SearchAndNot) -> str:
        left = self._search_operand(expression.left, under_and=True, right=False)
        right = self._search_operand(expression.right, under_and=True, right=True)
        return f"{left} AND NOT {right}"

    def render_search_or(self, expression: nodes.SearchOr) -> str:
        left = self._search_operand(expression.left, under_and=False, right=False)
        right = self._search_operand(expression.right, under_and=False, right=True)
        return f"{left} OR {right}"


_RENDERER = TextRenderer()


def to_text(node: nodes.Node) -> str:
    """The canonical text of a query (or of any part of one)."""
    return _RENDERER.render(node)

"""Parse tree → syntax tree (nodes.py): one method per grammar rule, named after the rule.

The transformer runs inside the LALR parser, so a rule is checked the moment it is reduced and
the first problem in reading order is the one reported. Checks that Salesforce's grammar makes
after lexing (date-literal names, currency literals, function names, WITH names, string
escapes) raise ``QuerySyntaxError`` at the offending token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import Literal as TypingLiteral

from lark import Token, Transformer

from . import keywords, literals, nodes
from .errors import QuerySyntaxError
from .render import to_text

Children = list[Any]


def _pos(token: Token) -> tuple[int, int]:
    return (token.line or 1, token.column or 1)


def _error_at(token: Token, message: str, offset: int = 0) -> QuerySyntaxError:
    return QuerySyntaxError(message, token.line or 1, (token.column or 1) + offset, token=str(token))


def _unexpected(token: Token) -> QuerySyntaxError:
    return _error_at(token, f"unexpected token: '{token}'")


def _nodes(children: Children) -> list[Any]:
    """The children that are values, without the keyword and punctuation tokens."""
    return [child for child in children if not isinstance(child, Token)]


_LITERAL_KINDS = {"string": nodes.StringLiteral, "boolean": nodes.BooleanLiteral, "integer": nodes.NumberLiteral}


def _error_at_node(node: nodes.Located, message: str, before: str = "") -> QuerySyntaxError:
    line, column = node.pos or (1, 1)
    return QuerySyntaxError(message, line, column, token=before or None)


def _check_literal_kind(value: nodes.Literal, kind: str) -> None:
    """SOSL WITH clauses take one kind of value each (a string, TRUE/FALSE, an integer)."""
    expected = _LITERAL_KINDS[kind]
    wrong_number = isinstance(value, nodes.NumberLiteral) and kind == "integer" and not isinstance(value.value, int)
    if not isinstance(value, expected) or wrong_number:
        raise _error_at_node(value, f"unexpected token: '{to_text(value)}'")


def _tokens(children: Children, *types: str) -> list[Token]:
    return [child for child in children if isinstance(child, Token) and child.type in types]


def _read(token: Token, reader: Callable[[str], Any]) -> Any:
    try:
        return reader(str(token))
    except literals.LiteralError as error:
        raise _error_at(token, error.message, error.offset) from None


def _clauses(children: Children) -> dict[str, Any]:
    """Collect the ``(name, value)`` pairs that the clause rules return."""
    found: dict[str, Any] = {}
    for name, value in _nodes(children):
        if name == "with_clauses":
            found[name] = (*found.get(name, ()), value)
        elif name == "group_by":
            found["group_by"], found["having"] = value
        else:
            found[name] = value
    return found


class SoqlTransformer(Transformer):
    """Builds ``SoqlQuery`` and ``SoslQuery`` trees; the search text goes to ``parse_search``."""

    def __init__(self, parse_search: Callable[[str, Token, bool], nodes.SearchExpression]) -> None:
        super().__init__()
        self._parse_search = parse_search

    # ------------------------------------------------------------------- queries

    def soql_query(self, children: Children) -> nodes.SoqlQuery:
        return nodes.SoqlQuery(**_clauses(children))

    subquery = soql_query

    def semijoin(self, children: Children) -> nodes.SoqlQuery:
        values = _nodes(children)
        item = nodes.SelectItem(values[0])
        return nodes.SoqlQuery(select_items=(item,), **_clauses(values[1:]))

    # ------------------------------------------------------------------- SELECT

    def select_count_all(self, children: Children) -> tuple[str, Any]:
        return ("select_items", (nodes.SelectItem(nodes.CountAll()),))

    def select_clause(self, children: Children) -> tuple[str, Any]:
        return ("select_items", tuple(_nodes(children)))

    def select_item(self, children: Children) -> nodes.SelectItem:
        last = children[-1]
        alias = str(last) if isinstance(last, Token) and last.type != "RPAR" else None
        return nodes.SelectItem(_nodes(children)[0], alias)

    select_subquery = select_item
    select_typeof = select_item
    select_distance = select_item

    def alias(self, children: Children) -> Token:
        return children[0]

    def ident(self, children: Children) -> Token:
        token: Token = children[0]
        return token

    def function_name(self, children: Children) -> Token:
        token: Token = children[0]
        return token

    def field_path(self, children: Children) -> nodes.FieldPath:
        return nodes.FieldPath(tuple(str(children[0]).split(".")), pos=_pos(children[0]))

    def function_call(self, children: Children) -> nodes.FunctionCall:
        name: Token = children[0]
        spelling = keywords.FUNCTION_SPELLINGS.get(name.upper(), str(name))
        return nodes.FunctionCall(spelling, _nodes(children)[0], pos=_pos(name))

    def fields_call(self, children: Children) -> nodes.Fields:
        category = children[2]
        if category.upper() not in keywords.FIELDS_CATEGORIES:
            raise _unexpected(category)
        return nodes.Fields(category.upper(), pos=_pos(children[0]))

    def typeof(self, children: Children) -> nodes.TypeOf:
        relationship = nodes.FieldPath(tuple(str(children[1]).split(".")), pos=_pos(children[1]))
        whens = tuple(c for c in children if isinstance(c, nodes.TypeOfWhen))
        else_fields = next((c for c in children if isinstance(c, tuple)), ())
        return nodes.TypeOf(relationship, whens, else_fields, pos=_pos(children[0]))

    def typeof_when(self, children: Children) -> nodes.TypeOfWhen:
        return nodes.TypeOfWhen(str(children[1]), tuple(_nodes(children)), pos=_pos(children[1]))

    def typeof_else(self, children: Children) -> tuple[nodes.FieldPath, ...]:
        return tuple(_nodes(children))

    def distance(self, children: Children) -> nodes.Distance:
        field, point = _nodes(children)
        unit = _read(_tokens(children, "STRING")[0], literals.read_string).value
        return nodes.Distance(field, point, unit, pos=_pos(children[0]))

    def geolocation(self, children: Children) -> nodes.Geolocation:
        latitude, longitude = _nodes(children)
        return nodes.Geolocation(latitude.value, longitude.value, pos=_pos(children[0]))

    # ------------------------------------------------------------------- FROM

    def from_clause(self, children: Children) -> tuple[str, Any]:
        return ("from_items", tuple(_nodes(children)))

    def from_item(self, children: Children) -> nodes.FromItem:
        names = [c for c in children if isinstance(c, Token) and c.type != "AS"]
        using = dict(_nodes(children))
        alias = str(names[1]) if len(names) > 1 else None
        return nodes.FromItem(str(names[0]), alias, using.get("scope"), using.get("lookup"), pos=_pos(names[0]))

    def using_scope(self, children: Children) -> tuple[str, str]:
        return ("scope", str(children[2]))

    def lookup_clause(self, children: Children) -> tuple[str, str]:
        return ("lookup", str(children[2]))

    def using_clause(self, children: Children) -> tuple[str, str]:
        result: tuple[str, str] = children[0]
        return result

    # ------------------------------------------------------------------- WHERE

    def where_clause(self, children: Children) -> tuple[str, Any]:
        return ("where", _nodes(children)[0])

    def condition(self, children: Children) -> nodes.Condition:
        result: nodes.Condition = children[0]
        return result

    def and_condition(self, children: Children) -> nodes.And:
        return nodes.And(tuple(_nodes(children)))

    def or_condition(self, children: Children) -> nodes.Or:
        return nodes.Or(tuple(_nodes(children)))

    def not_condition(self, children: Children) -> nodes.Not:
        return nodes.Not(_nodes(children)[0])

    def parenthesized(self, children: Children) -> nodes.Condition:
        result: nodes.Condition = _nodes(children)[0]
        return result

    def comparison(self, children: Children) -> nodes.Comparison:
        left, operator, value = children
        return nodes.Comparison(left, operator, value)

    def comparison_operator(self, children: Children) -> str:
        operator = str(children[0])
        return "!=" if operator == "<>" else operator

    def like(self, children: Children) -> nodes.Comparison:
        left, value = _nodes(children)
        return nodes.Comparison(left, "LIKE", value)

    def includes(self, children: Children) -> nodes.SetCondition:
        left, values = _nodes(children)
        operator: TypingLiteral["INCLUDES", "EXCLUDES"] = "INCLUDES" if _tokens(children, "INCLUDES") else "EXCLUDES"
        return nodes.SetCondition(left, operator, values)

    def in_list(self, children: Children) -> nodes.SetCondition:
        left, values = _nodes(children)
        operator: TypingLiteral["IN", "NOT IN"] = "NOT IN" if _tokens(children, "NOT") else "IN"
        return nodes.SetCondition(left, operator, values)

    def semijoin_condition(self, children: Children) -> nodes.SemiJoin:
        left, query = _nodes(children)
        return nodes.SemiJoin(left, bool(_tokens(children, "NOT")), query)

    def value_list(self, children: Children) -> tuple[nodes.Literal, ...]:
        return tuple(_nodes(children))

    # ------------------------------------------------------------------- literals

    def string(self, children: Children) -> nodes.StringLiteral:
        result: nodes.StringLiteral = _read(children[0], literals.read_string)
        return nodes.StringLiteral(result.value, result.escaped_wildcards, pos=_pos(children[0]))

    def signed_number(self, children: Children) -> nodes.NumberLiteral:
        sign = str(children[0]) if len(children) == 2 else ""
        return nodes.NumberLiteral(literals.read_number(sign, str(children[-1])), pos=_pos(children[0]))

    def signed_integer(self, children: Children) -> int:
        sign = str(children[0]) if len(children) == 2 else ""
        return int(literals.read_number(sign, str(children[-1])))

    def date(self, children: Children) -> nodes.DateLiteral:
        return nodes.DateLiteral(_read(children[0], literals.read_date), pos=_pos(children[0]))

    def datetime(self, children: Children) -> nodes.DateTimeLiteral:
        return nodes.DateTimeLiteral(_read(children[0], literals.read_datetime), pos=_pos(children[0]))

    def time(self, children: Children) -> nodes.TimeLiteral:
        return nodes.TimeLiteral(_read(children[0], literals.read_time), pos=_pos(children[0]))

    def null(self, children: Children) -> nodes.NullLiteral:
        return nodes.NullLiteral(pos=_pos(children[0]))

    def true(self, children: Children) -> nodes.BooleanLiteral:
        return nodes.BooleanLiteral(True, pos=_pos(children[0]))

    def false(self, children: Children) -> nodes.BooleanLiteral:
        return nodes.BooleanLiteral(False, pos=_pos(children[0]))

    def negative_currency(self, children: Children) -> nodes.CurrencyLiteral:
        literal = literals.read_currency(str(children[0]))
        assert literal is not None  # the terminal's pattern is a currency literal
        return nodes.CurrencyLiteral(literal.currency, literal.amount, pos=_pos(children[0]))

    def named_value(self, children: Children) -> nodes.Literal:
        """A bare name in value position: a relative date literal or a currency literal."""
        name: Token = children[0]
        takes_n = literals.RELATIVE_DATE_LITERALS.get(name.upper())
        if len(children) == 1:
            currency = literals.read_currency(str(name))
            if currency is not None:
                return nodes.CurrencyLiteral(currency.currency, currency.amount, pos=_pos(name))
            if takes_n is False:
                return nodes.RelativeDateLiteral(name.upper(), pos=_pos(name))
            raise _unexpected(name)
        if takes_n is not True:
            raise _unexpected(name)
        return nodes.RelativeDateLiteral(name.upper(), int(literals.read_number("", str(children[2]))), pos=_pos(name))

    # ------------------------------------------------------------------- WITH

    def with_data_category(self, children: Children) -> tuple[str, Any]:
        return ("with_clauses", nodes.WithDataCategory(tuple(_nodes(children))))

    def data_category_filter(self, children: Children) -> nodes.DataCategoryFilter:
        group, selector, *rest = children
        categories = tuple(str(c) for c in rest if c.type not in ("LPAR", "RPAR", "COMMA"))
        return nodes.DataCategoryFilter(str(group), selector, categories)

    def data_category_selector(self, children: Children) -> str:
        return str(children[0].type)

    def with_option(self, children: Children) -> nodes.WithOption:
        return nodes.WithOption(str(children[0]), children[2], pos=_pos(children[0]))

    def with_filter(self, children: Children) -> tuple[str, Any]:
        name: Token = children[1]
        return ("with_clauses", nodes.WithFilter(str(name), "=", (children[3],)))

    def with_identifier(self, children: Children) -> tuple[str, Any]:
        return ("with_clauses", self._with_identifier(children, keywords.SOQL_WITH_IDENTIFIERS))

    def search_with_identifier(self, children: Children) -> tuple[str, Any]:
        clause = self._with_identifier(children, keywords.SOSL_WITH_IDENTIFIERS)
        allowed = keywords.SOSL_WITH_OPTIONS.get(clause.name, {})
        for option in clause.options:
            kind = allowed.get(option.name.lower())
            if kind is None:
                raise _error_at_node(option, f"unexpected token: '{option.name}'", before=option.name)
            _check_literal_kind(option.value, kind)
        return ("with_clauses", clause)

    @staticmethod
    def _with_identifier(children: Children, known: dict[str, str]) -> nodes.WithIdentifier:
        name: Token = children[1]
        spelling = known.get(name.upper())
        if spelling is None:
            raise _unexpected(name)
        return nodes.WithIdentifier(spelling, tuple(_nodes(children)))

    def search_with_filter(self, children: Children) -> tuple[str, Any]:
        name = self._search_with_filter_name(children[1])
        _check_literal_kind(children[3], keywords.SOSL_WITH_FILTERS_VALUE_KIND[name])
        return ("with_clauses", nodes.WithFilter(name, "=", (children[3],)))

    def search_with_filter_list(self, children: Children) -> tuple[str, Any]:
        name = self._search_with_filter_name(children[1])
        if name not in keywords.SOSL_WITH_LIST_FILTERS:
            raise _unexpected(_tokens(children, "IN")[0])
        values = _nodes(children)[0]
        for value in values:
            _check_literal_kind(value, "string")
        return ("with_clauses", nodes.WithFilter(name, "IN", values))

    @staticmethod
    def _search_with_filter_name(name: Token) -> str:
        spelling = keywords.SOSL_WITH_FILTERS.get(name.upper())
        if spelling is None:
            raise _unexpected(name)
        return spelling

    # ------------------------------------------------------------------- GROUP BY, ORDER BY, paging

    def group_by_clause(self, children: Children) -> tuple[str, Any]:
        values = _nodes(children)
        group_by: nodes.GroupBy = values[0]
        having = values[1][1] if len(values) > 1 else None
        return ("group_by", (group_by, having))

    def group_by_list(self, children: Children) -> nodes.GroupBy:
        return nodes.GroupBy(tuple(_nodes(children)))

    def group_by_rollup(self, children: Children) -> nodes.GroupBy:
        return nodes.GroupBy(tuple(_nodes(children)), "ROLLUP")

    def group_by_cube(self, children: Children) -> nodes.GroupBy:
        return nodes.GroupBy(tuple(_nodes(children)), "CUBE")

    def having_clause(self, children: Children) -> tuple[str, Any]:
        return ("having", _nodes(children)[0])

    def order_by_clause(self, children: Children) -> tuple[str, Any]:
        return ("order_by", tuple(_nodes(children)))

    def order_item(self, children: Children) -> nodes.OrderItem:
        direction: TypingLiteral["ASC", "DESC"] | None = (
            "ASC" if _tokens(children, "ASC") else "DESC" if _tokens(children, "DESC") else None
        )
        nulls: TypingLiteral["FIRST", "LAST"] | None = (
            "FIRST" if _tokens(children, "FIRST") else "LAST" if _tokens(children, "LAST") else None
        )
        return nodes.OrderItem(_nodes(children)[0], direction, nulls)

    def limit_clause(self, children: Children) -> tuple[str, int]:
        return ("limit", children[1])

    def offset_clause(self, children: Children) -> tuple[str, int]:
        return ("offset", children[1])

    def bind_clause(self, children: Children) -> tuple[str, Any]:
        return ("bind", tuple(_nodes(children)))

    def bind_item(self, children: Children) -> nodes.BindItem:
        return nodes.BindItem(str(children[0]), children[2])

    def for_clause(self, children: Children) -> tuple[str, Any]:
        return ("for_options", tuple(_nodes(children)))

    def for_option(self, children: Children) -> str:
        token: Token = children[0]
        if token.type == "UPDATE":
            raise _error_at(token, keywords.APEX_ONLY_MESSAGES["FOR_UPDATE"])
        return token.type

    def update_clause(self, children: Children) -> tuple[str, Any]:
        return ("update_options", self._update_options(children))

    @staticmethod
    def _update_options(children: Children) -> tuple[str, ...]:
        options = []
        for token in _tokens(children, "IDENT"):
            if token.upper() not in keywords.UPDATE_OPTIONS:
                raise _unexpected(token)
            options.append(token.upper())
        return tuple(options)

    # ------------------------------------------------------------------- SOSL

    def sosl_query(self, children: Children) -> nodes.SoslQuery:
        search, quoted = children[1]
        return nodes.SoslQuery(search=search, quoted=quoted, **_clauses(children[2:]))

    def search_text(self, children: Children) -> tuple[nodes.SearchExpression, bool]:
        token: Token = children[0]
        if token.type == "STRING":
            text = _read(token, literals.read_string).value
            return self._parse_search(text, token, True), True
        return self._parse_search(str(token)[1:-1], token, False), False

    def search_in(self, children: Children) -> tuple[str, str]:
        group = children[1]
        if group.upper() not in keywords.SEARCH_GROUPS:
            raise _error_at(group, f"Malformed search token: {group}")
        return ("search_group", group.upper())

    def returning_clause(self, children: Children) -> tuple[str, Any]:
        return ("returning", tuple(_nodes(children)))

    def returning_object(self, children: Children) -> nodes.ReturningObject:
        body = _nodes(children)
        return nodes.ReturningObject(str(children[0]), **(body[0] if body else {}), pos=_pos(children[0]))

    def returning_body(self, children: Children) -> dict[str, Any]:
        values = _nodes(children)
        items = tuple(v for v in values if isinstance(v, nodes.SelectItem))
        clauses: dict[str, Any] = dict(v for v in values if isinstance(v, tuple))
        return {"select_items": items, **clauses}

    def listview_clause(self, children: Children) -> tuple[str, str]:
        if children[1].upper() != "LISTVIEW":
            raise _unexpected(children[1])
        return ("listview", str(children[3]))

    def search_using(self, children: Children) -> tuple[str, str]:
        mode, search = children[1], children[2]
        if mode.upper() not in keywords.SEARCH_MODES:
            raise _unexpected(mode)
        if search.upper() != "SEARCH":
            raise _unexpected(search)
        return ("search_mode", mode.upper())

    def search_limit(self, children: Children) -> tuple[str, int]:
        return ("limit", int(literals.read_number("", str(children[1]))))

    def search_update(self, children: Children) -> tuple[str, Any]:
        return ("update_options", self._update_options(children))


class SearchTransformer(Transformer):
    """The SOSL search expression (search.lark) → ``SearchExpression`` nodes."""

    def search_word(self, children: Children) -> nodes.SearchTerm:
        return nodes.SearchTerm(str(children[0]))

    def search_phrase(self, children: Children) -> nodes.SearchTerm:
        return nodes.SearchTerm(str(children[0])[1:-1], phrase=True)

    def search_primary(self, children: Children) -> nodes.SearchExpression:
        result: nodes.SearchExpression = _nodes(children)[0]
        return result

    def search_or(self, children: Children) -> nodes.SearchOr:
        left, right = _nodes(children)
        return nodes.SearchOr(left, right)

    def search_and_not(self, children: Children) -> nodes.SearchAndNot:
        left, right = _nodes(children)
        return nodes.SearchAndNot(left, right)

    def search_and_explicit(self, children: Children) -> nodes.SearchAnd:
        left, right = _nodes(children)
        return nodes.SearchAnd(left, right, explicit=True)

    def search_and_implicit(self, children: Children) -> nodes.SearchAnd:
        left, right = _nodes(children)
        return nodes.SearchAnd(left, right, explicit=False)

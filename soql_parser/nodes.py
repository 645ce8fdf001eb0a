"""The SOQL and SOSL syntax tree: frozen, hashable dataclasses with no behaviour.

Node names follow the Salesforce SOQL and SOSL Reference. Sequences are tuples so that two
trees compare equal exactly when they mean the same query; source positions are deliberately
not part of a node (``parse(to_text(tree)) == tree`` must hold).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal as TypingLiteral


@dataclass(frozen=True, slots=True)
class Located:
    """A node that remembers where it starts in the query text, for the caret of an error.

    ``pos`` is (line, column), both 1-based; it takes no part in equality or hashing, so a tree
    parsed from text equals the same tree built by hand.
    """

    pos: tuple[int, int] | None = field(default=None, compare=False, repr=False, kw_only=True)


# ----------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class StringLiteral(Located):
    """A quoted string, escapes decoded.

    ``escaped_wildcards`` holds the indexes in ``value`` of ``%`` and ``_`` characters that were
    written ``\\%`` / ``\\_``: inside a LIKE pattern they match themselves, not any text.
    """

    value: str
    escaped_wildcards: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class NumberLiteral(Located):
    """An integer or a decimal (Salesforce has no exponent notation)."""

    value: int | Decimal


@dataclass(frozen=True, slots=True)
class BooleanLiteral(Located):
    value: bool


@dataclass(frozen=True, slots=True)
class NullLiteral(Located):
    pass


@dataclass(frozen=True, slots=True)
class DateLiteral(Located):
    """A fixed date such as ``2020-12-20`` (unquoted in SOQL)."""

    value: dt.date


@dataclass(frozen=True, slots=True)
class DateTimeLiteral(Located):
    """A fixed instant such as ``2020-12-22T11:00:00Z``; the offset written is kept."""

    value: dt.datetime


@dataclass(frozen=True, slots=True)
class TimeLiteral(Located):
    """A time of day for Time fields, such as ``13:45:00.000Z``."""

    value: dt.time


@dataclass(frozen=True, slots=True)
class RelativeDateLiteral(Located):
    """A range relative to today: ``TODAY``, ``LAST_N_DAYS:30``… (name in upper case)."""

    name: str
    n: int | None = None


@dataclass(frozen=True, slots=True)
class CurrencyLiteral(Located):
    """An amount in a currency, such as ``USD5000`` (multi-currency orgs)."""

    currency: str
    amount: int | Decimal


# ----------------------------------------------------------------------------- field expressions


@dataclass(frozen=True, slots=True)
class FieldPath(Located):
    """A field, or a path through parent relationships: ``("Account", "Owner", "Name")``."""

    parts: tuple[str, ...]

    @property
    def text(self) -> str:
        return ".".join(self.parts)


@dataclass(frozen=True, slots=True)
class FunctionCall(Located):
    """``name(argument)``; known function names are spelled as the reference spells them."""

    name: str
    argument: FieldPath | FunctionCall


@dataclass(frozen=True, slots=True)
class Fields(Located):
    """``FIELDS(ALL | STANDARD | CUSTOM)``."""

    category: TypingLiteral["ALL", "STANDARD", "CUSTOM"]


@dataclass(frozen=True, slots=True)
class CountAll:
    """``COUNT()``: the whole SELECT list; the count comes back as totalSize."""


@dataclass(frozen=True, slots=True)
class TypeOfWhen(Located):
    sobject: str
    fields: tuple[FieldPath, ...]


@dataclass(frozen=True, slots=True)
class TypeOf(Located):
    """``TYPEOF What WHEN Account THEN Phone … ELSE Name END`` for polymorphic lookups."""

    relationship: FieldPath
    whens: tuple[TypeOfWhen, ...]
    else_fields: tuple[FieldPath, ...] = ()


@dataclass(frozen=True, slots=True)
class Geolocation(Located):
    latitude: int | Decimal
    longitude: int | Decimal


@dataclass(frozen=True, slots=True)
class Distance(Located):
    """``DISTANCE(field, GEOLOCATION(lat, lon), 'mi')``."""

    field: FieldPath
    point: Geolocation
    unit: str


@dataclass(frozen=True, slots=True)
class SelectItem:
    """One SELECT-list entry; ``expression`` is a SoqlQuery for a child subquery."""

    expression: FieldExpression
    alias: str | None = None


# ----------------------------------------------------------------------------- conditions


@dataclass(frozen=True, slots=True)
class Comparison:
    """``left op value`` with op one of = != < <= > >= LIKE (``<>`` is read as ``!=``)."""

    left: FieldPath | FunctionCall | Distance
    operator: TypingLiteral["=", "!=", "<", "<=", ">", ">=", "LIKE"]
    value: Literal


@dataclass(frozen=True, slots=True)
class SetCondition:
    """``left IN (…)``, ``NOT IN``, ``INCLUDES`` or ``EXCLUDES`` with a literal list."""

    left: FieldPath | FunctionCall
    operator: TypingLiteral["IN", "NOT IN", "INCLUDES", "EXCLUDES"]
    values: tuple[Literal, ...]


@dataclass(frozen=True, slots=True)
class SemiJoin:
    """``field [NOT] IN (SELECT … )``: a semi-join, or an anti-join when negated."""

    left: FieldPath | FunctionCall
    negated: bool
    query: SoqlQuery


@dataclass(frozen=True, slots=True)
class And:
    operands: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Or:
    operands: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Not:
    operand: Condition


# ----------------------------------------------------------------------------- clauses


@dataclass(frozen=True, slots=True)
class FromItem(Located):
    """An object (or, in a subquery, a child relationship path) with its optional alias."""

    sobject: str
    alias: str | None = None
    scope: str | None = None
    lookup: str | None = None


@dataclass(frozen=True, slots=True)
class DataCategoryFilter:
    group: str
    selector: TypingLiteral["AT", "ABOVE", "BELOW", "ABOVE_OR_BELOW"]
    categories: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WithDataCategory:
    filters: tuple[DataCategoryFilter, ...]


@dataclass(frozen=True, slots=True)
class WithOption(Located):
    name: str
    value: Literal


@dataclass(frozen=True, slots=True)
class WithIdentifier:
    """``WITH SECURITY_ENFORCED``, ``WITH SNIPPET(target_length=120)``, …"""

    name: str
    options: tuple[WithOption, ...] = ()


@dataclass(frozen=True, slots=True)
class WithFilter:
    """``WITH UserId = '005…'``, ``WITH NETWORK IN ('a', 'b')``, ``WITH METADATA = 'LABELS'``."""

    name: str
    operator: TypingLiteral["=", "IN"]
    values: tuple[Literal, ...]


@dataclass(frozen=True, slots=True)
class GroupBy:
    expressions: tuple[FieldPath | FunctionCall, ...]
    kind: TypingLiteral["", "ROLLUP", "CUBE"] = ""


@dataclass(frozen=True, slots=True)
class OrderItem:
    expression: FieldPath | FunctionCall | Distance
    direction: TypingLiteral["ASC", "DESC"] | None = None
    nulls: TypingLiteral["FIRST", "LAST"] | None = None


@dataclass(frozen=True, slots=True)
class BindItem:
    name: str
    value: Literal


@dataclass(frozen=True, slots=True)
class SoqlQuery:
    """A SOQL statement, a parent-to-child subquery, or the inner query of a semi-join."""

    select_items: tuple[SelectItem, ...]
    from_items: tuple[FromItem, ...]
    where: Condition | None = None
    with_clauses: tuple[WithClause, ...] = ()
    group_by: GroupBy | None = None
    having: Condition | None = None
    order_by: tuple[OrderItem, ...] = ()
    limit: int | None = None
    offset: int | None = None
    bind: tuple[BindItem, ...] = ()
    for_options: tuple[TypingLiteral["VIEW", "REFERENCE"], ...] = ()
    update_options: tuple[TypingLiteral["TRACKING", "VIEWSTAT"], ...] = ()


# ----------------------------------------------------------------------------- SOSL


@dataclass(frozen=True, slots=True)
class SearchTerm:
    """A word (wildcards and backslash escapes kept as written) or a quoted phrase."""

    text: str
    phrase: bool = False


@dataclass(frozen=True, slots=True)
class SearchAnd:
    """``left AND right``; ``explicit`` is False for words that are only juxtaposed."""

    left: SearchExpression
    right: SearchExpression
    explicit: bool = True


@dataclass(frozen=True, slots=True)
class SearchAndNot:
    left: SearchExpression
    right: SearchExpression


@dataclass(frozen=True, slots=True)
class SearchOr:
    left: SearchExpression
    right: SearchExpression


@dataclass(frozen=True, slots=True)
class ReturningObject(Located):
    """One ``RETURNING`` entry: an object with its optional field list and clauses."""

    sobject: str
    select_items: tuple[SelectItem, ...] = ()
    listview: str | None = None
    lookup: str | None = None
    bind: tuple[BindItem, ...] = ()
    where: Condition | None = None
    order_by: tuple[OrderItem, ...] = ()
    limit: int | None = None
    offset: int | None = None


@dataclass(frozen=True, slots=True)
class SoslQuery:
    """A SOSL statement. ``quoted`` is True for ``FIND 'text'`` (the Apex form)."""

    search: SearchExpression
    quoted: bool = False
    search_group: TypingLiteral["ALL", "NAME", "EMAIL", "PHONE", "SIDEBAR"] | None = None
    returning: tuple[ReturningObject, ...] = ()
    with_clauses: tuple[WithClause, ...] = ()
    search_mode: str | None = None
    limit: int | None = None
    update_options: tuple[TypingLiteral["TRACKING", "VIEWSTAT"], ...] = ()


# ----------------------------------------------------------------------------- unions

Literal = (
    StringLiteral
    | NumberLiteral
    | BooleanLiteral
    | NullLiteral
    | DateLiteral
    | DateTimeLiteral
    | TimeLiteral
    | RelativeDateLiteral
    | CurrencyLiteral
)
FieldExpression = FieldPath | FunctionCall | Fields | CountAll | TypeOf | Distance | SoqlQuery
Condition = Comparison | SetCondition | SemiJoin | And | Or | Not
WithClause = WithDataCategory | WithIdentifier | WithFilter
SearchExpression = SearchTerm | SearchAnd | SearchAndNot | SearchOr
Node = (
    SoqlQuery
    | SoslQuery
    | SelectItem
    | Condition
    | Literal
    | FieldExpression
    | FromItem
    | WithClause
    | GroupBy
    | OrderItem
    | SearchExpression
)

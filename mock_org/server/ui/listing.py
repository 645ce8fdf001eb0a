"""List views: the request's sort, filters, quick find and page turned into SOQL for ``Org.query``.

Nothing the user types reaches the query as text: field names are checked against the describe,
operators come from a fixed table, and values become SOQL literals of the field's type (strings
quoted and escaped by the parser's own writer). Whatever the engine still refuses (``LIKE`` on a
number, say) comes back as its Salesforce error, which the page shows.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from soql_parser.literals import write_string
from soql_parser.nodes import StringLiteral

from ...clock import OrgClock
from ...ids import is_id
from ...org import Org
from .catalog import Catalog, ObjectInfo
from .columns import Column, column, columns, default_columns, dig, select_list, title_of

PAGE_SIZES = (10, 25, 50, 100, 200)
DEFAULT_PAGE_SIZE = 50
MAX_OFFSET = 2000  # SOQL's OFFSET limit: a list pages through its first rows, filters reach the rest
DEFAULT_SORT = "CreatedDate"
# value → (label, SOQL operator); the LIKE forms wrap the value in wildcards.
OPERATORS = {
    "equals": ("equals", "="),
    "not_equal": ("not equal to", "!="),
    "less": ("less than", "<"),
    "greater": ("greater than", ">"),
    "less_or_equal": ("less or equal", "<="),
    "greater_or_equal": ("greater or equal", ">="),
    "contains": ("contains", "LIKE"),
    "not_contains": ("does not contain", "NOT LIKE"),
    "starts_with": ("starts with", "LIKE"),
}
NUMBER_TYPES = frozenset({"int", "double", "currency", "percent"})
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")
_RELATIVE_DATE = re.compile(r"[A-Za-z_]+(:\d+)?")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})")
_BOOLEANS = {"true": "true", "yes": "true", "1": "true", "false": "false", "no": "false", "0": "false"}


class FilterError(ValueError):
    """A filter the list cannot make a query of; the page shows the message."""


@dataclass(frozen=True)
class Filter:
    field: str
    op: str
    value: str


@dataclass
class ListRequest:
    """What a list view was asked for, read from the query string."""

    sort: str = DEFAULT_SORT
    descending: bool = True
    filters: list[Filter] = field(default_factory=list)
    find: str = ""
    page: int = 1
    size: int = DEFAULT_PAGE_SIZE

    @classmethod
    def read(cls, args: Any) -> ListRequest:
        """From ``request.args``: sort, dir, field/op/value (repeated), q, page, size."""
        fields, ops, values = args.getlist("field"), args.getlist("op"), args.getlist("value")
        filters = [Filter(name, op, value) for name, op, value in zip(fields, ops, values, strict=False) if name]
        size = _integer(args.get("size"), DEFAULT_PAGE_SIZE)
        return cls(
            sort=args.get("sort") or DEFAULT_SORT,
            descending=(args.get("dir") or ("desc" if not args.get("sort") else "asc")).lower() == "desc",
            filters=filters,
            find=(args.get("q") or "").strip(),
            page=max(1, _integer(args.get("page"), 1)),
            size=size if size in PAGE_SIZES else DEFAULT_PAGE_SIZE,
        )

    def args(self, **changes: Any) -> dict[str, Any]:
        """The query string of this view with ``changes`` (for sort and page links)."""
        data: dict[str, Any] = {
            "sort": self.sort,
            "dir": "desc" if self.descending else "asc",
            "q": self.find or None,
            "page": self.page if self.page > 1 else None,
            "size": self.size if self.size != DEFAULT_PAGE_SIZE else None,
            "field": [item.field for item in self.filters],
            "op": [item.op for item in self.filters],
            "value": [item.value for item in self.filters],
        }
        data.update(changes)
        return {key: value for key, value in data.items() if value not in (None, [], "")}


def _integer(text: str | None, default: int) -> int:
    return int(text) if text and text.isascii() and text.isdigit() and len(text) < 7 else default  # "²" is a digit too


@dataclass
class ListQuery:
    """The SOQL of one page of a list view and of its row count."""

    info: ObjectInfo
    columns: list[Column]
    sort_column: Column
    soql: str  # the page in one query, as the page shows it
    count_soql: str
    offset: int
    ids_soql: str | None = None  # the page's Ids alone, when the order needs no join (see page_records)
    select: str = ""

    def by_ids(self, ids: list[str]) -> str:
        return f"SELECT {self.select} FROM {self.info.name} WHERE Id IN ({', '.join(map(_string, ids))})"


def build(
    catalog: Catalog, info: ObjectInfo, request: ListRequest, zone: dt.tzinfo, base: Sequence[str] = ()
) -> ListQuery:
    """The list view's queries; ``base`` conditions (a related list's parent) are always applied."""
    shown = columns(catalog, info, default_columns(info))
    sort_column = _sort_column(catalog, info, shown, request.sort)
    conditions = list(base)
    conditions += [condition(catalog, info, item, zone) for item in request.filters]
    if request.find and (title := info.field(info.title)) and title["type"] != "id":
        conditions.append(f"{info.title} LIKE {_like(request.find, 'contains')}")
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    direction = "DESC" if request.descending else "ASC"
    offset = min((request.page - 1) * request.size, MAX_OFFSET)
    tail = f"{where} ORDER BY {sort_column.order_path} {direction} NULLS LAST, Id {direction} LIMIT {request.size}" + (
        f" OFFSET {offset}" if offset else ""
    )
    select = select_list(shown)
    ids_soql = None if sort_column.title_path else f"SELECT Id FROM {info.name}{tail}"
    return ListQuery(
        info,
        shown,
        sort_column,
        f"SELECT {select} FROM {info.name}{tail}",
        f"SELECT COUNT() FROM {info.name}{where}",
        offset,
        ids_soql,
        select,
    )


def page_records(org: Org, built: ListQuery, clock: OrgClock | None = None) -> list[dict[str, Any]]:
    """The page's records. Sorting every row of a large object with its lookups joined costs ten times
    more than sorting the object's own rows, so when the order needs no lookup the page's Ids are found
    first and their columns fetched by Id (the same records as ``built.soql`` gives)."""
    if built.ids_soql is None:
        return org.query(built.soql, clock=clock)["records"]
    ids = [record["Id"] for record in org.query(built.ids_soql, clock=clock)["records"]]
    if not ids:
        return []
    found = {record["Id"]: record for record in org.query(built.by_ids(ids))["records"]}
    return [found[record_id] for record_id in ids if record_id in found]


def _sort_column(catalog: Catalog, info: ObjectInfo, shown: list[Column], name: str) -> Column:
    for entry in shown:
        if entry.name.lower() == name.lower() and entry.sortable:
            return entry
    chosen = info.field(name)
    if chosen is not None and chosen["sortable"]:
        return column(catalog, info, chosen["name"])
    return column(catalog, info, DEFAULT_SORT if info.field(DEFAULT_SORT) else "Id")


def condition(catalog: Catalog, info: ObjectInfo, item: Filter, zone: dt.tzinfo, prefix: str = "") -> str:
    """One filter as a SOQL condition; ``prefix`` is the relationship path to ``info`` (a report's
    filter on a parent's field, ``Account.``)."""
    field = info.field(item.field)
    if field is None or not field["filterable"]:
        raise FilterError(f"{item.field} is not a field you can filter {info.label_plural} by.")
    if item.op not in OPERATORS:
        raise FilterError(f"Unknown filter operator: {item.op}")
    operator = OPERATORS[item.op][1]
    name, value = prefix + field["name"], item.value.strip()
    if operator.endswith("LIKE"):
        test = f"{name} LIKE {_like(value, item.op)}"
        return f"(NOT {test})" if operator == "NOT LIKE" else test
    if field["type"] == "reference" and value and not is_id(value) and field["relationshipName"]:
        # A lookup is filtered by the name it shows (Account = "Acme"), or by an Id.
        name = f"{prefix}{field['relationshipName']}.{title_of(catalog, field)}"
        return f"{name} {operator} {_string(value)}"
    if field["type"] == "datetime" and _is_date(value):
        return f"DAY_ONLY(convertTimezone({name})) {operator} {value}"
    return f"{name} {operator} {literal(field, value)}"


def literal(field: Mapping[str, Any], value: str) -> str:
    """``value`` as a SOQL literal for ``field`` (blank is null), or FilterError."""
    kind, label = field["type"], field["label"]
    if not value:
        return "null"
    if kind == "boolean":
        if value.lower() not in _BOOLEANS:
            raise FilterError(f"{label} is a checkbox: filter it by true or false.")
        return _BOOLEANS[value.lower()]
    if kind in NUMBER_TYPES:
        if not _NUMBER.fullmatch(value.replace(",", "")):
            raise FilterError(f"{label} is a number: {value!r} is not one.")
        return value.replace(",", "")
    if kind in ("date", "datetime"):
        if _is_date(value) and kind == "date":
            return value
        if kind == "datetime" and _DATETIME.fullmatch(value):
            return value
        if _RELATIVE_DATE.fullmatch(value) and not _NUMBER.fullmatch(value):
            return value.upper()  # TODAY, LAST_N_DAYS:30 …: the engine checks the name
        raise FilterError(f"{label} takes a date (YYYY-MM-DD) or a date literal such as LAST_N_DAYS:30.")
    return _string(value)


def _is_date(value: str) -> bool:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


def _string(value: str) -> str:
    return write_string(StringLiteral(value))


def _like(value: str, op: str) -> str:
    """A LIKE pattern that finds ``value`` literally: its own ``%`` and ``_`` are escaped."""
    start = 0 if op == "starts_with" else 1
    pattern = ("%" if start else "") + value + "%"
    escaped = tuple(index for index in range(start, start + len(value)) if pattern[index] in "%_")
    return write_string(StringLiteral(pattern, escaped))


def rows(records: list[dict[str, Any]], shown: list[Column]) -> list[dict[str, Any]]:
    """Each record's cells: the value, and for a lookup the Id and name it links to."""
    return [
        {
            "record": record,
            "cells": [
                (entry, dig(record, entry.path), entry.title_path and dig(record, entry.title_path)) for entry in shown
            ],
        }
        for record in records
    ]

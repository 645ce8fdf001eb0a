"""How two orgs' answers to one query are compared, and what counts as a difference.

Records are flattened to ``path → value`` (parent fields as ``Account.Name``, a child sub-query as
the multiset of its rows, ``attributes`` as type and url). Side A's Ids, wherever they occur in a
value (the url, ToIds, a lookup), are first written as side B knows them through the Id map.
Fields that legitimately differ between two orgs are left out. Then:

- rows are matched by Id (else as whole rows): rows only on A are *missing*, only on B *extra*,
  matched rows with another value a *value* difference;
- the order is compared only where ORDER BY is given, and only as the sequence of its keys, so
  ties may come back in any order. Under an Id map an Id-valued key orders by each org's own Ids
  and is left out of the comparison;
- with LIMIT or OFFSET the rows are compared only where the kept ORDER BY keys decide them: rows
  tied with the last (or, with OFFSET, the first) key may differ, and with no such key only the
  count is compared;
- an error on one side only is *error_vs_success*; errors on both sides compare equal when their
  codes do (the messages are not compared);
- ``totalSize`` (``COUNT()``) is compared when the rows are equal.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

import soql_parser
from soql_parser import nodes

ABSENT = "<absent>"
AGGREGATE_FUNCTIONS = frozenset({"count", "count_distinct", "sum", "avg", "min", "max"})
_ID_TOKEN = re.compile(r"(?<![A-Za-z0-9])([A-Za-z0-9]{18}|[A-Za-z0-9]{15})(?![A-Za-z0-9])")
_QUOTED_ID = re.compile(r"'([A-Za-z0-9]{18}|[A-Za-z0-9]{15})'")


class IdTranslation:
    """Side A's Ids as side B knows them (``IdMap.flat()``; empty: the same Ids on both sides)."""

    def __init__(self, flat: Mapping[str, str] | None = None) -> None:
        self._flat = dict(flat or {})
        self.targets = frozenset(self._flat.values()) | frozenset(target[:15] for target in self._flat.values())

    def __bool__(self) -> bool:
        return bool(self._flat)

    def _one(self, match: re.Match[str]) -> str:
        source = match.group(1)
        target = self._flat.get(source)
        if target is None:
            return match.group(0)
        return match.group(0).replace(source, target if len(source) == 18 else target[:15])

    def text(self, value: str) -> str:
        """Every Id inside a value (a lookup, an attributes url, a JSON list of Ids)."""
        return _ID_TOKEN.sub(self._one, value) if self._flat else value

    def query(self, text: str) -> str:
        """A statement for side B: the Ids in its string literals translated."""
        return _QUOTED_ID.sub(self._one, text) if self._flat else text


class NotCompared:
    """Field names (``SystemModstamp``) or ``Object.Field`` names left out of every comparison."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names = tuple(names)
        self._folded = frozenset(name.casefold() for name in self.names)

    def skips(self, sobject: str | None, name: str) -> bool:
        return name.casefold() in self._folded or f"{sobject}.{name}".casefold() in self._folded


@dataclass(frozen=True)
class Outcome:
    """What one org answered: its records (and totalSize), or its error."""

    records: tuple[dict[str, Any], ...] = ()
    total_size: int = 0
    error_code: str | None = None
    message: str = ""

    @property
    def failed(self) -> bool:
        return self.error_code is not None

    def summary(self) -> dict[str, Any]:
        if self.failed:
            return {"error": self.error_code, "message": self.message}
        return {"rows": len(self.records), "totalSize": self.total_size}


@dataclass(frozen=True)
class Plan:
    """What a statement's text says about comparing its answers."""

    order: tuple[str, ...] | None = None  # the ORDER BY keys as row paths; None: no ORDER BY
    group: tuple[str, ...] = ()  # the GROUP BY keys as row paths: what identifies an aggregate row
    limited: bool = False  # LIMIT or OFFSET
    offset: bool = False
    clock: bool = False  # a relative date literal: the answer depends on the org's "today"
    notes: tuple[str, ...] = field(default=())


# ----------------------------------------------------------------------------- reading the statement


def plan_of(text: str) -> Plan:
    """The comparison plan of a statement (a statement that does not parse gets the empty plan: both
    orgs should refuse it, and their error codes are compared)."""
    try:
        tree = soql_parser.parse(text)
    except soql_parser.QuerySyntaxError:
        return Plan()
    clock = _has(tree, nodes.RelativeDateLiteral)
    if isinstance(tree, nodes.SoslQuery):
        limited = tree.limit is not None or any(item.limit is not None or item.offset for item in tree.returning)
        note = ("search results are compared as sets: relevance decides their order",)
        return Plan(None, (), limited, False, clock, note)
    limited, offset = tree.limit is not None or bool(tree.offset), bool(tree.offset)
    group = tuple(_group_key(tree, expression) for expression in tree.group_by.expressions) if tree.group_by else ()
    if not tree.order_by:
        return Plan(None, group, limited, offset, clock)
    keys = [_column(tree, item.expression) for item in tree.order_by]
    if None in keys:  # rows sorted by (k1, k2) are sorted by k1: compare the readable keys before it
        note = ("order compared by the ORDER BY keys before the first one that is not selected",)
        readable = tuple(key for key in keys[: keys.index(None)] if key is not None)
        return Plan(readable, group, limited, offset, clock, note)
    return Plan(tuple(key for key in keys if key is not None), group, limited, offset, clock)


def _has(node: Any, kind: type) -> bool:
    if isinstance(node, kind):
        return True
    if isinstance(node, tuple):
        return any(_has(item, kind) for item in node)
    if is_dataclass(node):
        return any(_has(getattr(node, item.name), kind) for item in fields(node))
    return False


def _is_aggregate(tree: nodes.SoqlQuery) -> bool:
    return tree.group_by is not None or any(
        isinstance(item.expression, nodes.FunctionCall) and item.expression.name.casefold() in AGGREGATE_FUNCTIONS
        for item in tree.select_items
    )


def _group_key(tree: nodes.SoqlQuery, expression: Any) -> str:
    """The column of a GROUP BY key (``toLabel(Status)`` selected for ``GROUP BY Status`` is ``Status``)."""
    found = _column(tree, expression)
    return found or (expression.parts[-1] if isinstance(expression, nodes.FieldPath) else "")


def _column(tree: nodes.SoqlQuery, expression: Any) -> str | None:
    """The row path an ORDER BY or GROUP BY expression reads, or None when the rows do not carry it."""
    if _is_aggregate(tree):
        # Aggregate rows are named by alias, by the field's own name, or expr0, expr1 … in select order.
        wanted, unnamed = soql_parser.to_text(expression).casefold(), 0
        for select in tree.select_items:
            field = select.expression
            plain = isinstance(field, nodes.FieldPath)
            name = select.alias or (field.parts[-1] if isinstance(field, nodes.FieldPath) else f"expr{unnamed}")
            unnamed += not (select.alias or plain)
            if soql_parser.to_text(select.expression).casefold() == wanted:
                return name
        return None
    if not isinstance(expression, nodes.FieldPath):
        return None
    parts = list(expression.parts)
    names = {name.casefold() for item in tree.from_items for name in (item.sobject, item.alias) if name}
    if len(parts) > 1 and parts[0].casefold() in names:
        parts = parts[1:]
    return ".".join(parts)


# ----------------------------------------------------------------------------- reading the answers


@dataclass(frozen=True)
class Row:
    identity: tuple[str | None, str] | None  # (type, Id) as side B knows it
    source_id: str | None  # the Id as this side wrote it
    values: dict[str, Any]

    def key(self, paths: Sequence[str]) -> tuple[Any, ...] | None:
        """The values at ``paths`` (a path under a null parent reads None); None if one is not there."""
        folded = {name.casefold(): value for name, value in self.values.items()}
        found = []
        for path in paths:
            parts = path.casefold().split(".")
            for length in range(len(parts), 0, -1):
                prefix = ".".join(parts[:length])
                if prefix in folded and (length == len(parts) or folded[prefix] is None):
                    found.append(folded[prefix] if length == len(parts) else None)
                    break
            else:
                return None
        return tuple(found)

    def canonical(self) -> str:
        return json.dumps(self.values, sort_keys=True, default=str)


def rows_of(
    records: Iterable[Mapping[str, Any]], skip: NotCompared, ids: IdTranslation | None, group: tuple[str, ...] = ()
) -> list[Row]:
    """The records as rows, each identified by its Id, or (aggregate rows) by its GROUP BY values; when
    that does not tell the rows apart, none is identified and they are compared as whole rows."""
    rows = []
    for record in records:
        values = _flatten(record, "", None, skip, ids)
        source_id = record.get("Id") if isinstance(record.get("Id"), str) else None
        identity = (values.get("attributes.type"), values["Id"]) if isinstance(values.get("Id"), str) else None
        rows.append(Row(identity, source_id, values))
    if group:
        rows = [Row(_group_identity(row, group), None, row.values) for row in rows]
    if len({row.identity for row in rows}) < len(rows):
        rows = [Row(None, row.source_id, row.values) for row in rows]
    return rows


def _group_identity(row: Row, group: tuple[str, ...]) -> tuple[str | None, str] | None:
    key = row.key(group)
    return None if key is None else ("AggregateResult", json.dumps(dict(zip(group, key, strict=True)), default=str))


def _flatten(
    record: Mapping[str, Any], prefix: str, owner: str | None, skip: NotCompared, ids: IdTranslation | None
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    found = record.get("attributes")
    attributes = found if isinstance(found, Mapping) else {}
    sobject = attributes.get("type") or owner
    for name in ("type", "url"):
        if name in attributes:
            out[f"{prefix}attributes.{name}"] = _value(attributes[name], ids)
    for name, value in record.items():
        if name == "attributes" or skip.skips(sobject, name):
            continue
        path = prefix + name
        if isinstance(value, Mapping) and isinstance(value.get("records"), list):  # a child sub-query
            children = [row.canonical() for row in rows_of(value["records"], skip, ids)]
            out[path] = tuple(sorted(children))
        elif isinstance(value, Mapping):  # a parent record
            out.update(_flatten(value, path + ".", None, skip, ids))
        else:
            out[path] = _value(value, ids)
    return out


def _value(value: Any, ids: IdTranslation | None) -> Any:
    return ids.text(value) if ids and isinstance(value, str) else value


# ----------------------------------------------------------------------------- the comparison


def compare(plan: Plan, a: Outcome, b: Outcome, skip: NotCompared, ids: IdTranslation) -> tuple[list[dict], list[str]]:
    """The differences between side A's and side B's answers, and notes on what was not compared."""
    if a.failed or b.failed:
        if a.failed and b.failed:
            same = a.error_code == b.error_code
            return ([] if same else [{"kind": "error_code", "a": a.summary(), "b": b.summary()}]), []
        return [{"kind": "error_vs_success", "a": a.summary(), "b": b.summary()}], []
    rows_a, rows_b = rows_of(a.records, skip, ids, plan.group), rows_of(b.records, skip, None, plan.group)
    notes = list(plan.notes)
    keys = _comparable_keys(plan.order or (), rows_a, rows_b, ids, notes)
    if plan.limited and not keys:
        notes.append("rows not compared: LIMIT or OFFSET without comparable ORDER BY keys may pick any rows")
        return _count(a, b, len(rows_a), len(rows_b)), notes
    loose = _boundary(plan, keys, rows_a, rows_b) if plan.limited else set()
    differences = _row_differences(rows_a, rows_b, keys, loose)
    if not differences:
        differences = _count(a, b, len(rows_a), len(rows_b)) or (_order(keys, rows_a, rows_b) if keys else [])
    return differences, notes


def _comparable_keys(
    keys: tuple[str, ...], rows_a: list[Row], rows_b: list[Row], ids: IdTranslation, notes: list[str]
) -> tuple[str, ...]:
    """The ORDER BY keys up to the first that is not comparable: one a row does not carry (not returned,
    or not compared), or, under an Id map, one holding Ids (each org orders by its own)."""
    for position, key in enumerate(keys):
        if any(row.key((key,)) is None for row in (*rows_a, *rows_b)):
            notes.append(f"order compared by the keys before {key}: it is not returned, or not compared")
            return keys[:position]
        if ids and _id_valued(key, rows_a, ids):
            notes.append(f"order compared by the keys before {key}: each org orders by its own Ids")
            return keys[:position]
    return keys


def _id_valued(key: str, rows: list[Row], ids: IdTranslation) -> bool:
    return any(value in ids.targets for row in rows for value in (row.key((key,)) or ()))


def _boundary(plan: Plan, keys: tuple[str, ...], rows_a: list[Row], rows_b: list[Row]) -> set[tuple]:
    """The key values at the edges of a LIMIT/OFFSET window that both orgs agree on: either org may
    pick any of the rows tied there."""
    if not rows_a or not rows_b:
        return set()
    edges = [(rows_a[-1].key(keys), rows_b[-1].key(keys))]
    if plan.offset:
        edges.append((rows_a[0].key(keys), rows_b[0].key(keys)))
    return {key_a for key_a, key_b in edges if key_a is not None and key_a == key_b}  # comparable keys: never None


def _count(a: Outcome, b: Outcome, rows_a: int, rows_b: int) -> list[dict]:
    if a.total_size == b.total_size and rows_a == rows_b:
        return []
    return [
        {
            "kind": "count",
            "a": {"rows": rows_a, "totalSize": a.total_size},
            "b": {"rows": rows_b, "totalSize": b.total_size},
        }
    ]


def _row_differences(rows_a: list[Row], rows_b: list[Row], keys: tuple[str, ...] | None, loose: set) -> list[dict]:
    differences: list[dict] = []
    by_identity_b = {row.identity: row for row in rows_b if row.identity}
    matched: set = set()
    anonymous_a: Counter[str] = Counter()
    for row in rows_a:
        if row.identity is None:
            anonymous_a[row.canonical()] += 1
            continue
        other = by_identity_b.get(row.identity)
        if other is None:
            if not (loose and row.key(keys or ()) in loose):
                differences.append(_missing("missing", row))
            continue
        matched.add(row.identity)
        differences += _value_differences(row, other)
    for row in rows_b:
        if row.identity is not None and row.identity not in matched and not (loose and row.key(keys or ()) in loose):
            differences.append(_missing("extra", row))
    anonymous_b = Counter(row.canonical() for row in rows_b if row.identity is None)
    for kind, counts in (("missing", anonymous_a - anonymous_b), ("extra", anonymous_b - anonymous_a)):
        for canonical, times in counts.items():
            values = json.loads(canonical)
            if not (loose and Row(None, None, values).key(keys or ()) in loose):
                differences += [{"kind": kind, "row": values}] * times
    return differences


def _missing(kind: str, row: Row) -> dict:
    sobject = row.identity[0] if row.identity else None
    return {"kind": kind, "object": sobject, "id": row.source_id, "row": row.values}


def _value_differences(row_a: Row, row_b: Row) -> list[dict]:
    differences = []
    sobject = row_a.identity[0] if row_a.identity else None
    for path in dict.fromkeys([*row_a.values, *row_b.values]):
        value_a, value_b = row_a.values.get(path, ABSENT), row_b.values.get(path, ABSENT)
        if value_a == value_b and type(value_a) is type(value_b):  # 1 and 1.0 read differently in a client
            continue
        difference = {
            "kind": "value",
            "object": sobject,
            "field": f"{sobject}.{path}",
            "id_a": row_a.source_id,
            "id_b": row_b.source_id,
            "a": value_a,
            "b": value_b,
        }
        if row_a.source_id is None and row_a.identity:  # an aggregate row: its GROUP BY values say which
            difference["group"] = json.loads(row_a.identity[1])
        if isinstance(value_a, tuple) and isinstance(value_b, tuple):  # a child sub-query: say which rows
            only_a, only_b = Counter(value_a) - Counter(value_b), Counter(value_b) - Counter(value_a)
            difference |= {
                "a": [json.loads(item) for item in only_a.elements()],
                "b": [json.loads(item) for item in only_b.elements()],
                "children": True,
            }
        differences.append(difference)
    return differences


def _order(keys: tuple[str, ...], rows_a: list[Row], rows_b: list[Row]) -> list[dict]:
    sequence_a, sequence_b = [row.key(keys) for row in rows_a], [row.key(keys) for row in rows_b]
    for position, (key_a, key_b) in enumerate(zip(sequence_a, sequence_b, strict=True)):
        if key_a != key_b:
            a, b = list(key_a or ()), list(key_b or ())  # comparable keys: every row carries them, never None
            return [{"kind": "order", "by": list(keys), "position": position, "a": a, "b": b}]
    return []

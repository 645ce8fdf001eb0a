"""Rows → REST records, exactly as a real org returns them (reference/salesforce_api.md §4).

``attributes`` first, then the fields in SELECT order with the schema's spelling; a parent as a
nested record (null when the lookup is empty); a child subquery as a nested query result (null when
there are no children); aggregate rows as AggregateResult records without a url.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import Any

from ..schema import NUMBER_TYPES
from ..values import plain_double, wire_value
from .templates import AggregateColumn, ChildSlot, ParentSlot, RecordTemplate, Slot, TypeOfSlot, ValueSlot

Row = Sequence[Any]
ChildRecords = dict[int, dict[str, list[dict[str, Any]]]]  # id(ChildSlot) → parent Id → records


class Records(list):
    """Shaped records that know whether a double in them needs Java's notation (``java_doubles``):
    when none does, the server's JSON encoder writes them as they are, without looking (server/rest/wire.py)."""

    java_doubles: bool

    def __init__(self, records: Iterable[dict], java_doubles: bool) -> None:
        super().__init__(records)
        self.java_doubles = java_doubles


def _any_java_double(values: Iterable[Any]) -> bool:
    return any(value.__class__ is float and not plain_double(value) for value in values)


def attributes(sobject: str, record_id: str, version: str) -> dict[str, str]:
    return {"type": sobject, "url": f"/services/data/v{version}/sobjects/{sobject}/{record_id}"}


def _record(sobject: str, record_id: str, entries: list[Slot], row: Row, version: str, children: ChildRecords) -> dict:
    record: dict[str, Any] = {"attributes": attributes(sobject, record_id, version)}
    for entry in entries:
        if isinstance(entry, ValueSlot):
            value = row[entry.index]
            record[entry.key] = entry.convert(value) if entry.convert else value
        elif isinstance(entry, ParentSlot):
            parent_id = row[entry.id_index]
            if parent_id is None:
                record[entry.key] = None
            else:
                parent_type = entry.sobject or row[entry.type_index]  # type: ignore[index]
                record[entry.key] = _record(parent_type, parent_id, entry.entries, row, version, children)
        elif isinstance(entry, TypeOfSlot):
            parent_id = row[entry.id_index]
            if parent_id is None:
                record[entry.key] = None
            else:
                parent_type = row[entry.type_index]
                slots = entry.by_type.get(parent_type, entry.by_type["*"])
                record[entry.key] = _record(parent_type, parent_id, slots, row, version, children)
        elif isinstance(entry, ChildSlot):
            found = children.get(id(entry), {}).get(record_id)
            record[entry.key] = {"totalSize": len(found), "done": True, "records": found} if found else None
    return record


FlatSlot = tuple[str, int, str, Callable[[Any], Any] | None]  # a ValueSlot's key, index, field type, convert


def _numeric(slot: FlatSlot) -> bool:
    """Whether the slot's values may be doubles: number fields, and converted values but checkboxes'
    (every other field type is stored as TEXT, which SQLite never hands back as a REAL)."""
    _key, _index, field_type, convert = slot
    return field_type in NUMBER_TYPES or (convert is not None and field_type != "boolean")


@functools.lru_cache(maxsize=1024)
def _flat_shaper(sobject: str, id_index: int, slots: tuple[FlatSlot, ...], version: str) -> Callable[[Row], dict]:
    """For the common template of plain fields only: a function made for this template whose body is
    one dict display, the fastest record CPython can build (as dataclasses and namedtuple generate
    their methods). Keys enter the source as string literals (repr), values as row[i] or C<n>(row[i]).
    Built once per template shape (a new query text of a known shape reuses it)."""
    namespace: dict[str, Any] = {"PREFIX": f"/services/data/v{version}/sobjects/{sobject}/", "TYPE": sobject}
    values = []
    for number, (key, index, _type, convert) in enumerate(slots):
        value = f"row[{index}]"
        if convert is not None:
            namespace[f"C{number}"] = convert
            value = f"C{number}({value})"
        values.append(f"{key!r}: {value}")
    attributes = f"'attributes': {{'type': TYPE, 'url': PREFIX + row[{id_index}]}}"
    source = f"def shape(row):\n    return {{{', '.join([attributes, *values])}}}\n"
    exec(source, namespace)  # the source is built from the template's keys as literals, never from query text
    shape: Callable[[Row], dict] = namespace["shape"]
    return shape


def shape_records(template: RecordTemplate, rows: list[Row], version: str, children: ChildRecords) -> list[dict]:
    """Flat templates give ``Records`` that know their doubles; nested ones a plain list (server/rest/wire.py looks)."""
    if all(isinstance(entry, ValueSlot) for entry in template.entries):
        slots = tuple((e.key, e.index, e.field_type, e.convert) for e in template.entries)  # type: ignore[union-attr]
        shaper = _flat_shaper(template.sobject, template.id_index, slots, version)
        records = [shaper(row) for row in rows]
        numeric = [itemgetter(key) for key, *_ in filter(_numeric, slots)]
        return Records(records, any(_any_java_double(map(get, records)) for get in numeric))
    return [_record(template.sobject, row[template.id_index], template.entries, row, version, children) for row in rows]


def shape_aggregates(columns: list[AggregateColumn], rows: list[Row]) -> Records:
    records = []
    for row in rows:
        record: dict[str, Any] = {"attributes": {"type": "AggregateResult"}}
        for column in columns:
            record[column.key] = wire_value(column.result_type, row[column.index])
        records.append(record)
    return Records(records, any(_any_java_double(record.values()) for record in records))

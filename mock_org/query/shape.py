"""Rows → REST records, exactly as a real org returns them (reference/salesforce_api.md §4).

``attributes`` first, then the fields in SELECT order with the schema's spelling; a parent as a
nested record (null when the lookup is empty); a child subquery as a nested query result (null when
there are no children); aggregate rows as AggregateResult records without a url.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..values import wire_value
from .templates import AggregateColumn, ChildSlot, ParentSlot, RecordTemplate, Slot, TypeOfSlot, ValueSlot

Row = Sequence[Any]
ChildRecords = dict[int, dict[str, list[dict[str, Any]]]]  # id(ChildSlot) → parent Id → records


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


def _flat_shaper(template: RecordTemplate, version: str) -> Callable[[Row], dict] | None:
    """For the common template of plain fields only: a function made for this template whose body is
    one dict display, the fastest record CPython can build (as dataclasses and namedtuple generate
    their methods). Keys enter the source as string literals (repr), values as row[i] or C<n>(row[i])."""
    if not all(isinstance(entry, ValueSlot) for entry in template.entries):
        return None
    namespace: dict[str, Any] = {
        "PREFIX": f"/services/data/v{version}/sobjects/{template.sobject}/",
        "TYPE": template.sobject,
    }
    values = []
    for number, entry in enumerate(template.entries):
        value = f"row[{entry.index}]"  # type: ignore[union-attr]
        if entry.convert is not None:  # type: ignore[union-attr]
            namespace[f"C{number}"] = entry.convert  # type: ignore[union-attr]
            value = f"C{number}({value})"
        values.append(f"{entry.key!r}: {value}")  # type: ignore[union-attr]
    attributes = f"'attributes': {{'type': TYPE, 'url': PREFIX + row[{template.id_index}]}}"
    source = f"def shape(row):\n    return {{{', '.join([attributes, *values])}}}\n"
    exec(source, namespace)  # the source is built from the template's keys as literals, never from query text
    shape: Callable[[Row], dict] = namespace["shape"]
    return shape


def shape_records(template: RecordTemplate, rows: list[Row], version: str, children: ChildRecords) -> list[dict]:
    shaper = _flat_shaper(template, version)
    if shaper is not None:
        return [shaper(row) for row in rows]
    return [_record(template.sobject, row[template.id_index], template.entries, row, version, children) for row in rows]


def shape_aggregates(columns: list[AggregateColumn], rows: list[Row]) -> list[dict]:
    records = []
    for row in rows:
        record: dict[str, Any] = {"attributes": {"type": "AggregateResult"}}
        for column in columns:
            record[column.key] = wire_value(column.result_type, row[column.index])
        records.append(record)
    return records

"""Query column metadata (``GET /query?q=…&columns=true``), read off a compiled query plan.

The sf CLI asks for it after every query and builds its table from ``columnName``, ``displayName``,
``aggregate`` and ``joinColumns`` (reference/salesforce_api.md §4.7); Bulk API 2.0 uses the same
columns as its CSV header. The other keys are what a real org sends for the column's field.
"""

from __future__ import annotations

from typing import Any

from .query.templates import ChildSlot, ParentSlot, QueryPlan, Slot, TypeOfSlot, ValueSlot
from .schema import Schema, SObject

_APEX_TYPES = {
    "id": "Id",
    "reference": "Id",
    "boolean": "Boolean",
    "int": "Integer",
    "double": "Double",
    "currency": "Decimal",
    "percent": "Double",
    "date": "Date",
    "datetime": "Datetime",
    "time": "Time",
}
_NUMBER_TYPES = frozenset({"int", "double", "currency", "percent"})
_BOOLEAN_TYPES = frozenset({"boolean"})
_NON_TEXT = _NUMBER_TYPES | _BOOLEAN_TYPES | {"date", "datetime", "time", "id", "reference"}


def _column(name: str, field_type: str, *, custom: bool, writable: bool, aggregate: bool = False) -> dict[str, Any]:
    return {
        "aggregate": aggregate,
        "apexType": _APEX_TYPES.get(field_type, "String"),
        "booleanType": field_type in _BOOLEAN_TYPES,
        "columnName": name,
        "custom": custom,
        "displayName": name,
        "foreignKeyName": None,
        "insertable": writable,
        "joinColumns": [],
        "numberType": field_type in _NUMBER_TYPES,
        "textType": field_type not in _NON_TEXT,
        "updatable": writable,
    }


def _join(name: str, joins: list[dict[str, Any]], *, aggregate: bool) -> dict[str, Any]:
    """A parent relationship (its fields as join columns) or, with ``aggregate``, a child subquery."""
    column = _column(name, "", custom=name.endswith("__r"), writable=False, aggregate=aggregate)
    column.update(apexType=None, textType=False, joinColumns=joins)
    return column


def _slots(schema: Schema, sobject: SObject | None, entries: list[Slot]) -> list[dict[str, Any]]:
    columns = []
    for entry in entries:
        if isinstance(entry, ValueSlot):
            field = sobject.field(entry.key) if sobject is not None else None
            custom = field.custom if field is not None else entry.key.endswith("__c")
            writable = field is not None and field.createable and field.updateable
            columns.append(_column(entry.key, entry.field_type, custom=custom, writable=writable))
        elif isinstance(entry, ParentSlot):
            parent = schema.get(entry.sobject) if entry.sobject else None
            columns.append(_join(entry.key, _slots(schema, parent, entry.entries), aggregate=False))
        elif isinstance(entry, TypeOfSlot):
            fallback = entry.by_type.get("*") or next(iter(entry.by_type.values()), [])
            columns.append(_join(entry.key, _slots(schema, None, fallback), aggregate=False))
        elif isinstance(entry, ChildSlot):
            child = schema.get(entry.plan.sobject)
            joins = _slots(schema, child, entry.plan.template.entries) if entry.plan.template else []
            columns.append(_join(entry.key, joins, aggregate=True))
    return columns


def column_metadata(schema: Schema, plan: QueryPlan) -> dict[str, Any]:
    """The ``columnMetadata`` document of one query plan."""
    sobject = schema.get(plan.sobject)
    if plan.aggregate is not None:
        columns = [
            _column(
                column.key,
                column.result_type,
                custom=column.key.endswith("__c"),
                writable=False,
                aggregate=column.key.startswith("expr"),
            )
            for column in plan.aggregate
        ]
    elif plan.template is not None:
        columns = _slots(schema, sobject, plan.template.entries)
    else:
        columns = []
    return {
        "columnMetadata": columns,
        "entityName": sobject.name if sobject is not None else plan.sobject,
        "groupBy": plan.aggregate is not None,
        "idSelected": any(column["columnName"] == "Id" for column in columns),
        "keyPrefix": sobject.key_prefix if sobject is not None else None,
    }


def csv_header(columns: list[dict[str, Any]], prefix: str = "") -> list[str]:
    """Column paths as Bulk API 2.0 writes them (``Account.Name`` for a parent's field); subqueries have none."""
    header = []
    for column in columns:
        path = prefix + column["columnName"]
        if column["joinColumns"]:
            if not column["aggregate"]:
                header += csv_header(column["joinColumns"], path + ".")
        else:
            header.append(path)
    return header

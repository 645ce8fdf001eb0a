"""Copies of a sales org's records with one record changed, added or removed: the perturbation tests' edits."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from fixtures.tasks.sales.records import SalesRecords


def edited(sales: SalesRecords, sobject: str, row_id: str, **changes: Any) -> SalesRecords:
    """``sales`` with the ``sobject`` row ``row_id`` changed (or added when it is new, or removed when
    ``changes`` is ``{"delete": True}``)."""
    rows = dict(sales[sobject])
    if changes.get("delete"):
        del rows[row_id]
    else:
        rows[row_id] = MappingProxyType({**rows.get(row_id, {"Id": row_id}), **changes})
    tables = dict(sales.tables)
    tables[sobject] = MappingProxyType(rows)
    return SalesRecords(MappingProxyType(tables), sales.source)

"""The query console: SOQL through ``Org.query`` (or ``queryAll``), SOSL through ``Org.search``, and
the next page through ``Org.query_more``; the answer is shown as a grid and as the API's JSON."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...clock import OrgClock
from ...org import Org
from ..rest.wire import dumps

_SOSL = re.compile(r"\s*FIND\b", re.IGNORECASE)


@dataclass
class Grid:
    """Records as rows of cells under dotted column names (``Account.Name``); child results nest."""

    columns: list[str] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    title: str = ""


@dataclass
class Answer:
    grids: list[Grid]
    total: int | None
    done: bool
    locator: str | None
    json: str


def is_search(text: str) -> bool:
    return bool(_SOSL.match(text))


def run(
    org: Org,
    text: str,
    *,
    include_deleted: bool = False,
    locator: str = "",
    user_id: str,
    clock: OrgClock | None = None,
) -> Answer:
    if locator:
        return _page(org.query_more(locator, user_id=user_id))  # a cursor serves the user who opened it
    if is_search(text):
        result = org.search(text, user_id=user_id, clock=clock)
        grouped: dict[str, list[dict[str, Any]]] = {}
        for record in result["searchRecords"]:
            grouped.setdefault(record["attributes"]["type"], []).append(record)
        grids = [grid(records, title) for title, records in grouped.items()]
        return Answer(grids, len(result["searchRecords"]), True, None, dumps(result))
    return _page(org.query(text, include_deleted=include_deleted, user_id=user_id, clock=clock))


def _page(result: dict[str, Any]) -> Answer:
    locator = result.get("nextRecordsUrl", "").rsplit("/", 1)[-1] or None
    return Answer([grid(result["records"])], result["totalSize"], result["done"], locator, dumps(result))


def grid(records: list[dict[str, Any]], title: str = "") -> Grid:
    table = Grid(title=title)
    for record in records:
        row: dict[str, Any] = {}
        _flatten(record, "", row)
        for name in row:
            if name not in table.columns:
                table.columns.append(name)
        table.rows.append(row)
    return table


def _flatten(record: dict[str, Any], prefix: str, row: dict[str, Any]) -> None:
    for key, value in record.items():
        if key == "attributes":
            continue
        if isinstance(value, dict) and "records" in value:
            row[prefix + key] = grid(value["records"])
        elif isinstance(value, dict):
            _flatten(value, f"{prefix}{key}.", row)
        else:
            row[prefix + key] = value


def cell_text(value: Any) -> str:
    """A scalar as the API wrote it (``true``, ``15000.0``), a string as itself, null as nothing."""
    if value is None:
        return ""
    return value if isinstance(value, str) else dumps(value)

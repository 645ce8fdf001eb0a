"""Reports, as Lightning's summary reports: an object's records filtered (on its own fields, its parents'
fields one lookup away, and "without" related records, Lightning's cross filters), grouped by one field — a
parent's too, and a date by calendar month (UTC) — with the record count and averages per group.

The SOQL is built from checked parts, as the list views' is (listing.py): field paths are looked up in the
describe, operators come from the list views' table and values become literals of the field's type. The
records are fetched (at most ``MAX_ROWS``) and summed here, which also gives cases their ``Age``: hours from
CreatedDate to ClosedDate, the age a closed case's report shows.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ...clock import OrgClock
from ...org import Org
from .catalog import Catalog, ObjectInfo
from .columns import dig
from .listing import Filter, FilterError, condition

MAX_ROWS = 50_000
AGE = "Age"  # a case's hours from CreatedDate to ClosedDate
MONTH = "month"
NUMBER_TYPES = frozenset({"int", "double", "currency", "percent"})


@dataclass
class ReportRequest:
    group: str = ""
    date: str = ""  # "month": a date group by calendar month (UTC)
    measures: list[str] = field(default_factory=list)  # fields to average
    filters: list[Filter] = field(default_factory=list)
    without: str = ""  # a child relationship: only records that have none of these children…
    without_filters: list[Filter] = field(default_factory=list)  # …that match these filters

    @classmethod
    def read(cls, args: Any) -> ReportRequest:
        def filters(prefix: str) -> list[Filter]:
            fields, ops, values = (args.getlist(prefix + name) for name in ("field", "op", "value"))
            return [Filter(*entry) for entry in zip(fields, ops, values, strict=False) if entry[0]]

        return cls(
            group=args.get("group", ""),
            date=args.get("date", ""),
            measures=[name for name in args.getlist("avg") if name],
            filters=filters(""),
            without=args.get("without", ""),
            without_filters=filters("w"),
        )


@dataclass
class Group:
    key: Any
    label: str
    link: str | None
    count: int = 0
    sums: list[float] = field(default_factory=list)
    counted: list[int] = field(default_factory=list)

    def average(self, index: int) -> float | None:
        return self.sums[index] / self.counted[index] if self.counted[index] else None


@dataclass
class Report:
    soql: str
    group_label: str
    measure_labels: list[str]
    groups: list[Group]
    total: int
    truncated: bool


def field_at(catalog: Catalog, info: ObjectInfo, path: str) -> tuple[ObjectInfo, dict[str, Any], str]:
    """The object, field and relationship prefix of ``Field`` or ``Relationship.Field`` (one lookup away)."""
    if "." not in path:
        found = info.field(path)
        if found is None:
            raise FilterError(f"{info.label} has no field {path}.")
        return info, found, ""
    relationship, name = path.split(".", 1)
    lookup = next(
        (
            entry
            for entry in info.field_list()
            if (entry["relationshipName"] or "").lower() == relationship.lower() and len(entry["referenceTo"]) == 1
        ),
        None,
    )
    if lookup is None or "." in name:
        raise FilterError(f"{path} is not a field of {info.label} or of a record it looks up.")
    parent = catalog.get(lookup["referenceTo"][0])
    found = parent.field(name)
    if found is None:
        raise FilterError(f"{parent.label} has no field {name}.")
    return parent, found, lookup["relationshipName"] + "."


def conditions(catalog: Catalog, info: ObjectInfo, request: ReportRequest, zone: dt.tzinfo) -> list[str]:
    made = []
    for item in request.filters:
        owner, found, prefix = field_at(catalog, info, item.field)
        made.append(condition(catalog, owner, Filter(found["name"], item.op, item.value), zone, prefix))
    if request.without:
        child = next(
            (entry for entry in info.children if entry["relationshipName"].lower() == request.without.lower()), None
        )
        if child is None:
            raise FilterError(f"{info.label} has no related list {request.without}.")
        child_info = catalog.get(child["childSObject"])
        inner = [condition(catalog, child_info, item, zone) for item in request.without_filters]
        where = f" WHERE {' AND '.join(inner)}" if inner else ""
        made.append(f"Id NOT IN (SELECT {child['field']} FROM {child_info.name}{where})")
    return made


def run(
    org: Org, catalog: Catalog, info: ObjectInfo, request: ReportRequest, zone: dt.tzinfo, clock: OrgClock | None
) -> Report:
    where = conditions(catalog, info, request, zone)
    paths = ["Id"]
    group_label, group_path, group_field = "All records", "", None
    if request.group:
        owner, group_field, prefix = field_at(catalog, info, request.group)
        group_path = prefix + group_field["name"]
        group_label = group_field["label"] + (f" ({owner.label})" if prefix else "")
        if request.date == MONTH:
            if group_field["type"] not in ("date", "datetime"):
                raise FilterError(f"{group_label} is not a date: it cannot be grouped by month.")
            group_label += ": calendar month (UTC)"
        paths.append(group_path)
    measure_labels, measure_paths = [], []
    for name in request.measures:
        if name == AGE and info.name == "Case":
            measure_labels.append("Average Age (hours)")
            measure_paths.append(AGE)
            paths += ["CreatedDate", "ClosedDate"]
            continue
        owner, found, prefix = field_at(catalog, info, name)
        if found["type"] not in NUMBER_TYPES:
            raise FilterError(f"{found['label']} is not a number: it cannot be averaged.")
        measure_labels.append(f"Average {found['label']}")
        measure_paths.append(prefix + found["name"])
        paths.append(prefix + found["name"])
    select = ", ".join(dict.fromkeys(paths))
    soql = f"SELECT {select} FROM {info.name}" + (f" WHERE {' AND '.join(where)}" if where else "")
    rows, truncated = _fetch(org, soql, clock)
    groups: dict[Any, Group] = {}
    for row in rows:
        key = dig(row, group_path) if group_path else ""
        if key and request.date == MONTH:
            key = str(key)[:7]
        group = groups.get(key)
        if group is None:
            group = groups[key] = Group(key, "" if key is None else str(key), None)
            group.sums, group.counted = [0.0] * len(measure_paths), [0] * len(measure_paths)
        group.count += 1
        for index, path in enumerate(measure_paths):
            value = _age(row) if path == AGE else dig(row, path)
            if value is not None:
                group.sums[index] += float(value)
                group.counted[index] += 1
    ordered = sorted(groups.values(), key=lambda group: (-group.count, group.label))
    return Report(soql, group_label, measure_labels, ordered, len(rows), truncated)


def _fetch(org: Org, soql: str, clock: OrgClock | None) -> tuple[list[dict[str, Any]], bool]:
    result = org.query(soql, clock=clock)
    rows = list(result["records"])
    while not result["done"] and len(rows) < MAX_ROWS:
        result = org.query_more(result["nextRecordsUrl"].rsplit("/", 1)[-1])
        rows += result["records"]
    return rows[:MAX_ROWS], not result["done"] or len(rows) > MAX_ROWS


def _age(row: dict[str, Any]) -> float | None:
    if not row.get("ClosedDate") or not row.get("CreatedDate"):
        return None
    closed, created = (
        dt.datetime.strptime(row[name], "%Y-%m-%dT%H:%M:%S.%f%z") for name in ("ClosedDate", "CreatedDate")
    )
    return (closed - created).total_seconds() / 3600

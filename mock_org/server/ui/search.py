"""Global search: the words typed become one SOSL search over every searchable object (``Org.search``),
and the records come back grouped by object, in the columns of each object's list view."""

from __future__ import annotations

from dataclasses import dataclass

from ...org import Org
from .catalog import Catalog, ObjectInfo
from .columns import Column, columns, default_columns, select_list
from .listing import rows

PER_OBJECT = 25  # rows per object on the all-objects page; one object's page shows up to SCOPED
SCOPED = 200
# SOSL's reserved characters (SOQL and SOSL Reference, "FIND"); * and ? stay wildcards, as in Lightning.
_RESERVED = frozenset("&|!{}[]()^~:\\\"'+-")


@dataclass
class Group:
    info: ObjectInfo
    columns: list[Column]
    rows: list


def search_term(text: str) -> str:
    """What the user typed, as the text of FIND {…}: reserved characters escaped, spaces kept."""
    return "".join("\\" + char if char in _RESERVED else char for char in " ".join(text.split()))


def searchable(catalog: Catalog) -> list[ObjectInfo]:
    return [info for info in map(catalog.get, catalog.main) if info.describe["searchable"]]


def search(org: Org, catalog: Catalog, text: str, scope: ObjectInfo | None) -> tuple[str, list[Group]]:
    """The SOSL text and the groups of records it found, in the order of the objects."""
    targets = [scope] if scope else searchable(catalog)
    limit = SCOPED if scope else PER_OBJECT
    shown = {info.name: columns(catalog, info, default_columns(info)) for info in targets}
    returning = ", ".join(f"{info.name}({select_list(shown[info.name])} LIMIT {limit})" for info in targets)
    sosl = f"FIND {{{search_term(text)}}} IN ALL FIELDS RETURNING {returning}"
    found: dict[str, list] = {}
    for record in org.search(sosl)["searchRecords"]:
        found.setdefault(record["attributes"]["type"], []).append(record)
    groups = [
        Group(info, shown[info.name], rows(found[info.name], shown[info.name]))
        for info in targets
        if info.name in found
    ]
    return sosl, groups

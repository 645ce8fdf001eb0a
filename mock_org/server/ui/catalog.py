"""What the pages know about objects and fields: the org's own describe, read once per app.

Labels, types, picklist labels, lengths, flags and relationships all come from ``Org.describe``
(the schema does not change while the org is served), so a page shows what the API reports.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ...ids import is_id
from ...org import Org

# The audit fields a record page shows in its own section, and list views and forms leave out.
SYSTEM_FIELDS = (
    "Id",
    "IsDeleted",
    "CreatedById",
    "CreatedDate",
    "LastModifiedById",
    "LastModifiedDate",
    "SystemModstamp",
)
# Objects without a name field are titled by the first of these they have (an email by its subject).
TITLE_FALLBACKS = ("Subject", "Name", "Title")


@dataclass
class ObjectInfo:
    """One object's describe, with lookups by field name (any case) and picklist labels."""

    describe: dict[str, Any]
    fields: dict[str, dict[str, Any]] = field(init=False)
    children: list[dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        self.fields = {entry["name"].lower(): entry for entry in self.describe["fields"]}
        self.children = [child for child in self.describe["childRelationships"] if child["relationshipName"]]

    @property
    def name(self) -> str:
        return self.describe["name"]

    @property
    def label(self) -> str:
        return self.describe["label"]

    @property
    def label_plural(self) -> str:
        return self.describe["labelPlural"]

    @property
    def title(self) -> str:
        """The field a record is called by: its name field, else a subject or name, else its Id."""
        named = next((entry["name"] for entry in self.describe["fields"] if entry["nameField"]), None)
        return named or next((name for name in TITLE_FALLBACKS if self.field(name)), "Id")

    def field(self, name: str) -> dict[str, Any] | None:
        return self.fields.get(name.lower())

    def field_list(self) -> list[dict[str, Any]]:
        return list(self.fields.values())

    def picklist_label(self, field_name: str, value: str) -> str:
        entry = self.field(field_name)
        for option in entry["picklistValues"] if entry else ():
            if option["value"] == value:
                return option["label"]
        return value


class Catalog:
    """Every object's ``ObjectInfo``, made on first use; the objects a person works with, in schema order."""

    def __init__(self, org: Org) -> None:
        self.org = org
        self._lock = threading.Lock()
        self._objects: dict[str, ObjectInfo] = {}
        entries = org.describe_global()["sobjects"]
        self._prefixes = {entry["keyPrefix"]: entry["name"] for entry in entries}
        self.main = [entry["name"] for entry in entries if entry["layoutable"]]

    def get(self, name: str) -> ObjectInfo:
        """The object called ``name`` in any case (NOT_FOUND, as the API says, when there is none)."""
        key = name.lower()
        with self._lock:
            known = self._objects.get(key)
        if known is None:
            known = ObjectInfo(self.org.describe(name))
            with self._lock:
                self._objects[key] = known
        return known

    def object_of(self, record_id: Any) -> str | None:
        """The object with pages that a record Id belongs to, by its key prefix (None for a setup
        object such as a profile or a queue, which has no page to link to)."""
        if not isinstance(record_id, str) or not is_id(record_id):
            return None
        name = self._prefixes.get(record_id[:3])
        return name if name in self.main else None

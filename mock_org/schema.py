"""The org schema: objects, fields, types, relationships and picklists, read from a JSON file.

Every lookup is case-insensitive and answers with the schema's own spelling, as a real org
resolves `select id from case` to `Id` on `Case`. Child relationships are derived from the
reference fields that name one (``childRelationshipName``), so each is written down once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

# The dump layout: the engine serves it, fixtures generates data for it, and every dump carries a copy.
DEFAULT_SCHEMA = Path(__file__).resolve().parent / "crmarena_schema.json"
# What a B2B sales org adds to it (docs/orgs.md); a B2B dump carries the whole, composed by schema_document.
SALES_OBJECTS = Path(__file__).resolve().parent / "sales_objects.json"
# What a B2C org changes in the B2B org's: person-account fields on Account, a lead's Company optional.
B2C_CHANGES = Path(__file__).resolve().parent / "b2c_changes.json"
ORG_TYPES = ("service", "b2b", "b2c")
B2B_DESCRIPTION = (
    "The CRMArena B2B org: a sports equipment maker selling to businesses. The Service Cloud objects of the "
    "service org plus the Sales Cloud objects (opportunities, quotes, contracts, leads, activities, territories)."
)

# Salesforce field types whose values are text in the API.
TEXT_TYPES = frozenset({"id", "reference", "string", "textarea", "picklist", "multipicklist", "email", "phone", "url"})
NUMBER_TYPES = frozenset({"double", "currency", "percent", "int"})


@dataclass(frozen=True)
class PicklistValue:
    value: str
    label: str
    active: bool = True
    default_value: bool = False


@dataclass(frozen=True)
class Field:
    """One field of an object, with the describe attributes the org serves."""

    name: str
    label: str
    type: str
    description: str = ""
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    digits: int | None = None
    nillable: bool = True
    filterable: bool = True
    sortable: bool = True
    groupable: bool = True
    createable: bool = True
    updateable: bool = True
    calculated: bool = False
    auto_number: bool = False
    unique: bool = False
    external_id: bool = False
    name_field: bool = False
    custom: bool = False
    reference_to: tuple[str, ...] = ()
    relationship_name: str | None = None
    polymorphic: bool = False
    child_relationship_name: str | None = None
    cascade_delete: bool = False
    picklist_values: tuple[PicklistValue, ...] = ()
    restricted_picklist: bool = False
    default_value: Any = None

    @property
    def is_text(self) -> bool:
        return self.type in TEXT_TYPES

    @property
    def is_reference(self) -> bool:
        return self.type == "reference"

    def picklist_value(self, value: str) -> PicklistValue | None:
        """The picklist entry whose API name matches ``value`` case-insensitively."""
        folded = value.casefold()
        return next((entry for entry in self.picklist_values if entry.value.casefold() == folded), None)


@dataclass(frozen=True)
class ChildRelationship:
    """A parent-to-child relationship, such as Account.Cases (Case.AccountId)."""

    name: str
    child_sobject: str
    field: str
    cascade_delete: bool


@dataclass
class SObject:
    """One object type: its fields in definition order and its relationships."""

    name: str
    label: str
    label_plural: str
    key_prefix: str
    description: str
    custom: bool
    supporting: bool
    searchable: bool
    name_field: str | None
    fields: dict[str, Field] = field(default_factory=dict)  # keyed by lower-case name, in order
    relationships: dict[str, Field] = field(default_factory=dict)  # parent relationship name → reference field
    child_relationships: dict[str, ChildRelationship] = field(default_factory=dict)
    flags: dict[str, bool] = field(default_factory=dict)

    def field(self, name: str) -> Field | None:
        return self.fields.get(name.lower())

    def relationship(self, name: str) -> Field | None:
        return self.relationships.get(name.lower())

    def child_relationship(self, name: str) -> ChildRelationship | None:
        return self.child_relationships.get(name.lower())

    def field_list(self) -> list[Field]:
        return list(self.fields.values())


class SchemaError(ValueError):
    """A schema file that contradicts itself."""


class Schema:
    """All objects of an org, looked up case-insensitively."""

    def __init__(self, objects: list[SObject], description: str = "") -> None:
        self.description = description
        self._objects = {sobject.name.lower(): sobject for sobject in objects}
        self._by_prefix = {sobject.key_prefix: sobject for sobject in objects}
        self._link()

    def __iter__(self) -> Iterator[SObject]:
        return iter(self._objects.values())

    def __len__(self) -> int:
        return len(self._objects)

    def get(self, name: str) -> SObject | None:
        return self._objects.get(name.lower())

    def __getitem__(self, name: str) -> SObject:
        sobject = self.get(name)
        if sobject is None:
            raise KeyError(name)
        return sobject

    def by_prefix(self, prefix: str) -> SObject | None:
        return self._by_prefix.get(prefix)

    def _link(self) -> None:
        for sobject in self:
            for fld in sobject.fields.values():
                if not fld.is_reference:
                    continue
                for target in fld.reference_to:
                    if target.lower() not in self._objects:
                        raise SchemaError(f"{sobject.name}.{fld.name} refers to unknown object {target}")
                if fld.relationship_name:
                    sobject.relationships[fld.relationship_name.lower()] = fld
                if fld.child_relationship_name:
                    parent = self[fld.reference_to[0]]
                    key = fld.child_relationship_name.lower()
                    if key in parent.child_relationships:
                        name = fld.child_relationship_name
                        raise SchemaError(f"{parent.name} has two child relationships named {name}")
                    parent.child_relationships[key] = ChildRelationship(
                        fld.child_relationship_name, sobject.name, fld.name, fld.cascade_delete
                    )


def _field(data: dict[str, Any]) -> Field:
    return Field(
        name=data["name"],
        label=data["label"],
        type=data["type"],
        description=data.get("description", ""),
        length=data.get("length"),
        precision=data.get("precision"),
        scale=data.get("scale"),
        digits=data.get("digits"),
        nillable=data.get("nillable", True),
        filterable=data.get("filterable", True),
        sortable=data.get("sortable", True),
        groupable=data.get("groupable", True),
        createable=data.get("createable", True),
        updateable=data.get("updateable", True),
        calculated=data.get("calculated", False),
        auto_number=data.get("autoNumber", False),
        unique=data.get("unique", False),
        external_id=data.get("externalId", False),
        name_field=data.get("nameField", False),
        custom=data.get("custom", False),
        reference_to=tuple(data.get("referenceTo", ())),
        relationship_name=data.get("relationshipName"),
        polymorphic=data.get("polymorphic", False),
        child_relationship_name=data.get("childRelationshipName"),
        cascade_delete=data.get("cascadeDelete", False),
        picklist_values=tuple(
            PicklistValue(v["value"], v.get("label", v["value"]), v.get("active", True), v.get("defaultValue", False))
            for v in data.get("picklistValues", ())
        ),
        restricted_picklist=data.get("restrictedPicklist", False),
        default_value=data.get("defaultValue"),
    )


def parse_sobject(data: dict[str, Any]) -> SObject:
    """One object of a schema file (its fields in order), not yet linked to the others."""
    sobject = SObject(
        name=data["name"],
        label=data["label"],
        label_plural=data["labelPlural"],
        key_prefix=data["keyPrefix"],
        description=data.get("description", ""),
        custom=data.get("custom", False),
        supporting=data.get("supporting", False),
        searchable=data.get("searchable", True),
        name_field=data.get("nameField"),
        flags={key: data.get(key, True) for key in ("queryable", "createable", "updateable", "deletable")},
    )
    for item in data["fields"]:
        fld = _field(item)
        if fld.name.lower() in sobject.fields:
            raise SchemaError(f"{sobject.name} has two fields named {fld.name}")
        sobject.fields[fld.name.lower()] = fld
    return sobject


def load_schema(path: str | Path = DEFAULT_SCHEMA) -> Schema:
    """Read a schema file (see mock_org/crmarena_schema.json for the format)."""
    with open(path, encoding="utf-8") as handle:
        return schema_from_document(json.load(handle))


def schema_from_document(data: dict[str, Any]) -> Schema:
    return Schema([parse_sobject(item) for item in data["objects"]], data.get("description", ""))


def schema_document(org: str = "service") -> dict[str, Any]:
    """The schema file of an org type: ``service`` is crmarena_schema.json; ``b2b`` adds the sales objects,
    its benchmark objects after the service org's and its supporting objects last; ``b2c`` is ``b2b`` with
    the person-account fields a consumer org fills (b2c_changes.json) and a lead's Company optional (a lead
    without one converts to a person account)."""
    if org not in ORG_TYPES:
        raise ValueError(f"unknown org type {org!r}; one of {', '.join(ORG_TYPES)}")
    service = json.loads(DEFAULT_SCHEMA.read_text(encoding="utf-8"))
    if org == "service":
        return service
    sales = json.loads(SALES_OBJECTS.read_text(encoding="utf-8"))["objects"]
    objects = [*service["objects"], *sales]
    ordered = [item for item in objects if not item.get("supporting")] + [
        item for item in objects if item.get("supporting")
    ]
    if org == "b2c":
        return _b2c_document(service["schemaVersion"], ordered)
    return {"schemaVersion": service["schemaVersion"], "description": B2B_DESCRIPTION, "objects": ordered}


def _b2c_document(version: int, objects: list[dict[str, Any]]) -> dict[str, Any]:
    changes = json.loads(B2C_CHANGES.read_text(encoding="utf-8"))
    changed = []
    for item in objects:
        fields = [
            {**field, "nillable": True} if field["name"] in changes["nillable"].get(item["name"], ()) else field
            for field in item["fields"]
        ]
        if item["name"] == "Account":
            fields += changes["accountFields"]
        changed.append({**item, "fields": fields})
    return {"schemaVersion": version, "description": changes["description"], "objects": changed}


@cache
def org_type_schema(org: str) -> Schema:
    """The schema of an org type, read once per process."""
    return default_schema() if org == "service" else schema_from_document(schema_document(org))


@cache
def sales_object_names() -> frozenset[str]:
    """The objects only a B2B org has (lower case): their tables mark a B2B database."""
    return frozenset(item["name"].lower() for item in json.loads(SALES_OBJECTS.read_text(encoding="utf-8"))["objects"])


@cache
def b2c_account_columns() -> frozenset[str]:
    """The Account fields only a B2C org has (lower case): their columns mark a B2C database."""
    changes = json.loads(B2C_CHANGES.read_text(encoding="utf-8"))
    return frozenset(field["name"].lower() for field in changes["accountFields"])


def org_type_of_tables(tables: set[str], account_columns: set[str] | frozenset[str] = frozenset()) -> str:
    """The org type a database's (lower-case) table names and Account columns show: a sales org when every
    sales object has a table, ``b2c`` among them when Account has the person-account columns of a B2C org."""
    if not sales_object_names() <= tables:
        return "service"
    return "b2c" if b2c_account_columns() <= account_columns else "b2b"


@cache
def default_schema() -> Schema:
    """The CRMArena org's schema, read once per process."""
    return load_schema(DEFAULT_SCHEMA)

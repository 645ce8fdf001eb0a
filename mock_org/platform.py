"""What every org has beside the objects of its data: the metadata objects EntityDefinition and
FieldDefinition (served from the schema itself), PermissionSet and PermissionSetAssignment (one
profile-owned permission set per profile, assigned to its users), and, in an org with person accounts,
``Account.PersonContactId`` and ``Contact.IsPersonAccount``.

A dump holds only its data objects (mock_org/crmarena_schema.json is the dump layout), so ``org_schema``
adds these to a data schema and ``prepare`` adds their tables and columns to a dump and fills them in
when it is made ready to serve (Storage.prepare). Dumps written before these existed, ours and the
original's, gain them the same way. Salesforce references: Object Reference, "EntityDefinition",
"FieldDefinition", "PermissionSet", "PermissionSetAssignment", "Person Account Fields".
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

from sqlalchemy import Table, func, insert, inspect, select, text, update
from sqlalchemy.engine import Connection

from .ids import make_id, serial_of
from .schema import Field, Schema, SObject, parse_sobject

METADATA_OBJECTS = ("EntityDefinition", "FieldDefinition")
TOOLING_OBJECTS = frozenset({"EntityDefinition", "FieldDefinition", "PermissionSet", "Profile", "User"})
STAMP = "2019-01-01T00:00:00.000+0000"  # when the platform's own rows were "made"

_AUDIT = [
    {
        "name": "Id",
        "label": "Record ID",
        "type": "id",
        "length": 18,
        "nillable": False,
        "createable": False,
        "updateable": False,
        "groupable": False,
    },
    {
        "name": "IsDeleted",
        "label": "Deleted",
        "type": "boolean",
        "nillable": False,
        "createable": False,
        "updateable": False,
        "defaultValue": False,
    },
    {
        "name": "CreatedDate",
        "label": "Created Date",
        "type": "datetime",
        "nillable": False,
        "createable": False,
        "updateable": False,
    },
    {
        "name": "CreatedById",
        "label": "Created By ID",
        "type": "reference",
        "length": 18,
        "nillable": False,
        "createable": False,
        "updateable": False,
        "referenceTo": ["User"],
        "relationshipName": "CreatedBy",
    },
    {
        "name": "LastModifiedDate",
        "label": "Last Modified Date",
        "type": "datetime",
        "nillable": False,
        "createable": False,
        "updateable": False,
    },
    {
        "name": "LastModifiedById",
        "label": "Last Modified By ID",
        "type": "reference",
        "length": 18,
        "nillable": False,
        "createable": False,
        "updateable": False,
        "referenceTo": ["User"],
        "relationshipName": "LastModifiedBy",
    },
    {
        "name": "SystemModstamp",
        "label": "System Modstamp",
        "type": "datetime",
        "nillable": False,
        "createable": False,
        "updateable": False,
    },
]


def _text(name: str, label: str, length: int = 255, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "label": label,
        "type": "string",
        "length": length,
        "createable": False,
        "updateable": False,
        **extra,
    }


def _flag(name: str, label: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "label": label,
        "type": "boolean",
        "nillable": False,
        "createable": False,
        "updateable": False,
        "defaultValue": False,
        **extra,
    }


def _read_only_object(name: str, label: str, plural: str, prefix: str, fields: list[dict]) -> dict[str, Any]:
    return {
        "name": name,
        "label": label,
        "labelPlural": plural,
        "keyPrefix": prefix,
        "supporting": True,
        "searchable": False,
        "createable": False,
        "updateable": False,
        "deletable": False,
        "nameField": None,
        "fields": [*_AUDIT, *fields],
    }


ENTITY_DEFINITION = _read_only_object(
    "EntityDefinition",
    "Entity Definition",
    "Entity Definitions",
    "4ie",
    [
        _text("DurableId", "Durable ID"),
        _text("QualifiedApiName", "Qualified API Name", nameField=True),
        _text("DeveloperName", "Developer Name"),
        _text("MasterLabel", "Master Label"),
        _text("Label", "Label"),
        _text("PluralLabel", "Plural Label"),
        _text("KeyPrefix", "Key Prefix", 3),
        _text("NamespacePrefix", "Namespace"),
        _text("Description", "Description", 1000),
        _text("InternalSharingModel", "Internal Sharing Model", 40),
        _text("ExternalSharingModel", "External Sharing Model", 40),
        _text("DeploymentStatus", "Deployment Status", 40),
        _flag("IsCustomizable", "Customizable"),
        _flag("IsCustomSetting", "Custom Setting"),
        _flag("IsQueryable", "Queryable"),
        _flag("IsSearchable", "Searchable"),
        _flag("IsTriggerable", "Triggerable"),
        _flag("IsLayoutable", "Layoutable"),
        _flag("IsReplicateable", "Replicateable"),
        _flag("IsRetrieveable", "Retrieveable"),
        _flag("IsEverCreatable", "Ever Creatable"),
        _flag("IsEverUpdatable", "Ever Updatable"),
        _flag("IsEverDeletable", "Ever Deletable"),
        _flag("IsDeprecatedAndHidden", "Deprecated and Hidden"),
        _flag("IsIdEnabled", "Id Enabled"),
    ],
)
FIELD_DEFINITION = _read_only_object(
    "FieldDefinition",
    "Field Definition",
    "Field Definitions",
    "4if",
    [
        _text("DurableId", "Durable ID"),
        _text("QualifiedApiName", "Qualified API Name", nameField=True),
        _text("DeveloperName", "Developer Name"),
        _text("MasterLabel", "Master Label"),
        _text("Label", "Label"),
        _text("NamespacePrefix", "Namespace"),
        _text("Description", "Description", 1000),
        _text("DataType", "Data Type"),
        _text("ValueTypeId", "Value Type ID"),
        _text("RelationshipName", "Relationship Name"),
        _text("ExtraTypeInfo", "Extra Type Info"),
        {
            "name": "EntityDefinitionId",
            "label": "Entity Definition ID",
            "type": "reference",
            "length": 18,
            "createable": False,
            "updateable": False,
            "referenceTo": ["EntityDefinition"],
            "relationshipName": "EntityDefinition",
            "childRelationshipName": "Fields",
        },
        {"name": "Length", "label": "Length", "type": "int", "digits": 9, "createable": False, "updateable": False},
        {
            "name": "Precision",
            "label": "Precision",
            "type": "int",
            "digits": 9,
            "createable": False,
            "updateable": False,
        },
        {"name": "Scale", "label": "Scale", "type": "int", "digits": 9, "createable": False, "updateable": False},
        _flag("IsNillable", "Nillable"),
        _flag("IsCalculated", "Calculated"),
        _flag("IsNameField", "Name Field"),
        _flag("IsIndexed", "Indexed"),
        _flag("IsApiFilterable", "API Filterable"),
        _flag("IsApiSortable", "API Sortable"),
        _flag("IsApiGroupable", "API Groupable"),
        _flag("IsCompound", "Compound"),
        _flag("IsFieldHistoryTracked", "Field History Tracked"),
    ],
)
PERMISSION_SET = {
    "name": "PermissionSet",
    "label": "Permission Set",
    "labelPlural": "Permission Sets",
    "keyPrefix": "0PS",
    "supporting": True,
    "searchable": False,
    "nameField": "Label",
    "fields": [
        *_AUDIT,
        {"name": "Name", "label": "Name", "type": "string", "length": 80, "nillable": False, "unique": True},
        {"name": "Label", "label": "Label", "type": "string", "length": 80, "nillable": False, "nameField": True},
        {"name": "Description", "label": "Description", "type": "textarea", "length": 255},
        _text("NamespacePrefix", "Namespace Prefix", 15),
        {
            "name": "Type",
            "label": "Type",
            "type": "picklist",
            "length": 40,
            "createable": False,
            "updateable": False,
            "picklistValues": [{"value": "Regular"}, {"value": "Profile"}, {"value": "Group"}, {"value": "Session"}],
        },
        _flag("IsOwnedByProfile", "Is Owned by Profile"),
        _flag("IsCustom", "Custom"),
        {
            "name": "ProfileId",
            "label": "Profile ID",
            "type": "reference",
            "length": 18,
            "createable": False,
            "updateable": False,
            "referenceTo": ["Profile"],
            "relationshipName": "Profile",
        },
        {
            "name": "PermissionsApiEnabled",
            "label": "API Enabled",
            "type": "boolean",
            "nillable": False,
            "defaultValue": False,
        },
        {
            "name": "PermissionsModifyAllData",
            "label": "Modify All Data",
            "type": "boolean",
            "nillable": False,
            "defaultValue": False,
        },
        {
            "name": "PermissionsViewAllData",
            "label": "View All Data",
            "type": "boolean",
            "nillable": False,
            "defaultValue": False,
        },
        {
            "name": "PermissionsCreateAuditFields",
            "label": "Set Audit Fields upon Record Creation",
            "type": "boolean",
            "nillable": False,
            "defaultValue": False,
        },
    ],
}
PERMISSION_SET_ASSIGNMENT = {
    "name": "PermissionSetAssignment",
    "label": "Permission Set Assignment",
    "labelPlural": "Permission Set Assignments",
    "keyPrefix": "0Pa",
    "supporting": True,
    "searchable": False,
    "updateable": False,
    "nameField": None,
    "fields": [
        *_AUDIT,
        {
            "name": "AssigneeId",
            "label": "Assignee ID",
            "type": "reference",
            "length": 18,
            "nillable": False,
            "updateable": False,
            "referenceTo": ["User"],
            "relationshipName": "Assignee",
            "childRelationshipName": "PermissionSetAssignments",
        },
        {
            "name": "PermissionSetId",
            "label": "Permission Set ID",
            "type": "reference",
            "length": 18,
            "nillable": False,
            "updateable": False,
            "referenceTo": ["PermissionSet"],
            "relationshipName": "PermissionSet",
            "childRelationshipName": "Assignments",
        },
        {"name": "ExpirationDate", "label": "Expiration Date", "type": "datetime"},
        _flag("IsActive", "Is Active", defaultValue=True),
    ],
}
PERSON_CONTACT_ID = {
    "name": "PersonContactId",
    "label": "Person Contact ID",
    "type": "reference",
    "length": 18,
    "createable": False,
    "updateable": False,
    "referenceTo": ["Contact"],
    "relationshipName": "PersonContact",
    "description": "The contact behind a person account (Salesforce makes it with the account).",
}
CONTACT_IS_PERSON_ACCOUNT = _flag(
    "IsPersonAccount",
    "Is Person Account",
    calculated=True,
    description="True for the contact that a person account is made of.",
)


def has_person_accounts(schema: Schema) -> bool:
    account, contact = schema.get("Account"), schema.get("Contact")
    return account is not None and contact is not None and account.field("IsPersonAccount") is not None


@cache
def org_schema(schema: Schema) -> Schema:
    """``schema`` with what the platform adds (a schema that has it already is returned as it is)."""
    if schema.get("EntityDefinition") is not None:
        return schema
    objects = [_copy(sobject) for sobject in schema]
    added = [ENTITY_DEFINITION, FIELD_DEFINITION]
    if schema.get("User") is not None and schema.get("Profile") is not None:
        added += [PERMISSION_SET, PERMISSION_SET_ASSIGNMENT]
    objects += [parse_sobject(item) for item in added]
    if has_person_accounts(schema):
        by_name = {sobject.name: sobject for sobject in objects}
        _add_field(by_name["Account"], PERSON_CONTACT_ID)
        _add_field(by_name["Contact"], CONTACT_IS_PERSON_ACCOUNT)
    return Schema(objects, schema.description)


def _copy(sobject: SObject) -> SObject:
    """An unlinked copy: the new schema derives its own relationships."""
    return dataclasses.replace(
        sobject, fields=dict(sobject.fields), relationships={}, child_relationships={}, flags=dict(sobject.flags)
    )


def _add_field(sobject: SObject, data: dict[str, Any]) -> None:
    if sobject.field(data["name"]) is None:
        sobject.fields[data["name"].lower()] = parse_sobject({**_STUB, "fields": [data]}).field_list()[0]


_STUB = {"name": "_", "label": "_", "labelPlural": "_", "keyPrefix": "___"}


# ----------------------------------------------------------------------------- preparing a dump


def prepare(schema: Schema, tables: dict[str, Table], connection: Connection) -> None:
    """Give a dump the platform's tables and columns, and fill them in from the schema and the data."""
    _add_missing_columns(schema, tables, connection)
    _fill_metadata(schema, tables, connection)
    if schema.get("PermissionSet") is not None:
        _fill_permission_sets(tables, connection)
        _stamp_platform_rows(tables, connection)
    if has_person_accounts(schema):
        link_person_contacts(tables, connection)


def _add_missing_columns(schema: Schema, tables: dict[str, Table], connection: Connection) -> None:
    inspector = inspect(connection)
    existing = set(inspector.get_table_names())
    for sobject in schema:
        table = tables[sobject.name.lower()]
        if sobject.name not in existing:
            table.create(connection)
            continue
        present = {column["name"].lower() for column in inspector.get_columns(sobject.name)}
        for field in sobject.field_list():
            if field.name.lower() not in present:
                column = table.c[field.name]
                kind = column.type.compile(connection.dialect)
                default = " NOT NULL DEFAULT 0" if field.type == "boolean" else ""
                connection.exec_driver_sql(f'ALTER TABLE "{sobject.name}" ADD COLUMN "{field.name}" {kind}{default}')


def _audit(record_id: str) -> dict[str, Any]:
    return {
        "Id": record_id,
        "IsDeleted": 0,
        "CreatedDate": STAMP,
        "LastModifiedDate": STAMP,
        "SystemModstamp": STAMP,
        "CreatedById": None,
        "LastModifiedById": None,
    }


def _data_type(field: Field) -> str:
    """The ``DataType`` text Setup shows: ``Text(80)``, ``Lookup(User)``, ``Checkbox``, ``Date/Time``…"""
    kind = field.type
    if kind == "reference":
        return f"Lookup({','.join(field.reference_to)})"
    if kind in ("string", "textarea") and field.length:
        return f"{'Text' if kind == 'string' else 'Long Text Area'}({field.length})"
    if kind in ("double", "currency", "percent", "int") and field.precision:
        return f"{'Number' if kind in ('double', 'int') else kind.title()}({field.precision}, {field.scale or 0})"
    names = {
        "id": "Lookup()",
        "boolean": "Checkbox",
        "datetime": "Date/Time",
        "date": "Date",
        "picklist": "Picklist",
        "multipicklist": "Picklist (Multi-Select)",
        "email": "Email",
        "phone": "Phone",
        "url": "URL",
        "double": "Number",
        "int": "Number",
        "currency": "Currency",
        "percent": "Percent",
        "time": "Time",
    }
    return names.get(kind, kind.title())


_VALUE_TYPES = {
    "reference": "id",
    "datetime": "datetime",
    "multipicklist": "string",
    "picklist": "string",
    "textarea": "string",
    "email": "string",
    "phone": "string",
    "url": "string",
    "currency": "double",
    "percent": "double",
    "int": "int",
}


def _fill_metadata(schema: Schema, tables: dict[str, Table], connection: Connection) -> None:
    """One EntityDefinition per object and one FieldDefinition per field, keyed by their DurableId
    (the object's API name, ``Object.Field`` for a field), as the Tooling and REST query APIs serve them."""
    entities, fields = tables["entitydefinition"], tables["fielddefinition"]
    connection.execute(fields.delete())
    connection.execute(entities.delete())
    entity_rows, field_rows = [], []
    for sobject in schema:
        flags = sobject.flags
        entity_rows.append(
            {
                **_audit(sobject.name),
                "DurableId": sobject.name,
                "QualifiedApiName": sobject.name,
                "DeveloperName": sobject.name.removesuffix("__c").removesuffix("__kav"),
                "MasterLabel": sobject.label,
                "Label": sobject.label,
                "PluralLabel": sobject.label_plural,
                "KeyPrefix": sobject.key_prefix,
                "NamespacePrefix": None,
                "Description": sobject.description or None,
                "InternalSharingModel": "ReadWrite",
                "ExternalSharingModel": "Private",
                "DeploymentStatus": "Deployed",
                "IsCustomizable": int(not sobject.supporting),
                "IsCustomSetting": 0,
                "IsQueryable": int(flags.get("queryable", True)),
                "IsSearchable": int(sobject.searchable),
                "IsTriggerable": int(not sobject.supporting),
                "IsLayoutable": int(not sobject.supporting),
                "IsReplicateable": 1,
                "IsRetrieveable": 1,
                "IsEverCreatable": int(flags.get("createable", True)),
                "IsEverUpdatable": int(flags.get("updateable", True)),
                "IsEverDeletable": int(flags.get("deletable", True)),
                "IsDeprecatedAndHidden": 0,
                "IsIdEnabled": 1,
            }
        )
        for field in sobject.field_list():
            field_rows.append(
                {
                    **_audit(f"{sobject.name}.{field.name}"),
                    "DurableId": f"{sobject.name}.{field.name}",
                    "QualifiedApiName": field.name,
                    "DeveloperName": field.name.removesuffix("__c"),
                    "MasterLabel": field.label,
                    "Label": field.label,
                    "NamespacePrefix": None,
                    "Description": field.description or None,
                    "DataType": _data_type(field),
                    "ValueTypeId": _VALUE_TYPES.get(field.type, field.type),
                    "RelationshipName": field.relationship_name,
                    "ExtraTypeInfo": None,
                    "EntityDefinitionId": sobject.name,
                    "Length": field.length or 0,
                    "Precision": field.precision or 0,
                    "Scale": field.scale or 0,
                    "IsNillable": int(field.nillable),
                    "IsCalculated": int(field.calculated),
                    "IsNameField": int(field.name_field),
                    "IsIndexed": int(field.name == "Id" or field.is_reference or field.unique or field.external_id),
                    "IsApiFilterable": int(field.filterable),
                    "IsApiSortable": int(field.sortable),
                    "IsApiGroupable": int(field.groupable),
                    "IsCompound": 0,
                    "IsFieldHistoryTracked": 0,
                }
            )
    connection.execute(insert(entities), entity_rows)
    connection.execute(insert(fields), field_rows)


def _fill_permission_sets(tables: dict[str, Table], connection: Connection) -> None:
    """Each profile owns a permission set (``X00e…``, IsOwnedByProfile), assigned to every user of the profile."""
    sets, assignments = tables["permissionset"], tables["permissionsetassignment"]
    profiles, users = tables["profile"], tables["user"]
    owned = dict(connection.execute(select(sets.c.ProfileId, sets.c.Id).where(sets.c.IsOwnedByProfile == 1)).all())
    serial = _next_serial(connection, sets)
    for profile_id, name in connection.execute(select(profiles.c.Id, profiles.c.Name).order_by(profiles.c.Id)).all():
        if profile_id in owned:
            continue
        owned[profile_id] = make_id("0PS", serial)
        serial += 1
        administrator = (name or "").casefold() == "system administrator"
        connection.execute(
            insert(sets).values(
                **_audit(owned[profile_id]),
                Name=f"X{profile_id[:15]}",
                Label=name or profile_id,
                Description=None,
                NamespacePrefix=None,
                Type="Profile",
                IsOwnedByProfile=1,
                IsCustom=0,
                ProfileId=profile_id,
                PermissionsApiEnabled=1,
                PermissionsModifyAllData=int(administrator),
                PermissionsViewAllData=int(administrator),
                PermissionsCreateAuditFields=0,
            )
        )
    assigned = set(connection.execute(select(assignments.c.AssigneeId, assignments.c.PermissionSetId)).all())
    serial = _next_serial(connection, assignments)
    for user_id, profile_id in connection.execute(select(users.c.Id, users.c.ProfileId).order_by(users.c.Id)).all():
        permission_set = owned.get(profile_id)
        if permission_set is None or (user_id, permission_set) in assigned:
            continue
        connection.execute(
            insert(assignments).values(
                **_audit(make_id("0Pa", serial)),
                AssigneeId=user_id,
                PermissionSetId=permission_set,
                IsActive=1,
                ExpirationDate=None,
            )
        )
        serial += 1


def _stamp_platform_rows(tables: dict[str, Table], connection: Connection) -> None:
    """Every record of a real org names who made it: the permission sets and assignments the platform
    made name the org's administrator (without it no one could update them: CreatedById is required)."""
    users, profiles = tables["user"], tables["profile"]
    admins = select(profiles.c.Id).where(func.lower(profiles.c.Name) == "system administrator")
    first = select(users.c.Id).where(users.c.IsActive == 1).order_by(users.c.ProfileId.not_in(admins), users.c.Id)
    maker = connection.execute(first.limit(1)).scalar()
    if maker is None:
        return
    for name in ("permissionset", "permissionsetassignment"):
        table = tables[name]
        for column in ("CreatedById", "LastModifiedById"):
            connection.execute(update(table).where(table.c[column].is_(None)).values({column: maker}))


def _next_serial(connection: Connection, table: Table) -> int:
    highest = connection.execute(select(func.max(table.c.Id))).scalar()
    return serial_of(highest) + 1 if highest else 1


def link_person_contacts(tables: dict[str, Table], connection: Connection) -> None:
    """Each person account's contact: the live contact of the account with its first and last name (the
    oldest if several), made when there is none; ``IsPersonAccount`` follows on the contact side."""
    accounts, contacts = tables["account"], tables["contact"]
    unlinked = (
        connection.execute(
            select(accounts).where(accounts.c.IsPersonAccount == 1, accounts.c.PersonContactId.is_(None))
        )
        .mappings()
        .all()
    )
    serial = _next_serial(connection, contacts)
    for account in unlinked:
        same_name = (func.coalesce(contacts.c.FirstName, "") == (account["FirstName"] or "")) & (
            func.coalesce(contacts.c.LastName, "") == (account["LastName"] or "")
        )
        contact_id = connection.execute(
            select(contacts.c.Id)
            .where(contacts.c.AccountId == account["Id"], same_name)
            .order_by(contacts.c.CreatedDate, contacts.c.Id)
            .limit(1)
        ).scalar()
        if contact_id is None:
            contact_id = make_id("003", serial)
            serial += 1
            connection.execute(insert(contacts).values(**person_contact(account), Id=contact_id))
        connection.execute(update(accounts).where(accounts.c.Id == account["Id"]).values(PersonContactId=contact_id))
    connection.execute(
        text(
            'UPDATE "Contact" SET "IsPersonAccount" = "Id" IN '
            '(SELECT "PersonContactId" FROM "Account" WHERE "IsPersonAccount" = 1 AND "PersonContactId" IS NOT NULL)'
        )
    )


# The contact fields a person account's fields stand for ("Person Account Fields": the Person* fields
# and the names are the contact's; Phone is shown on both).
PERSON_FIELDS = {
    "FirstName": "FirstName",
    "LastName": "LastName",
    "PersonEmail": "Email",
    "Phone": "Phone",
    "OwnerId": "OwnerId",
}


def person_contact(account: Any) -> dict[str, Any]:
    """The contact row a person account stands for (without its Id)."""
    row = {target: account.get(source) for source, target in PERSON_FIELDS.items()}
    parts = (account.get("FirstName"), account.get("LastName"))
    row.update(
        Name=" ".join(part for part in parts if part) or None,
        AccountId=account["Id"],
        IsPersonAccount=1,
        IsDeleted=account["IsDeleted"],
        CreatedDate=account["CreatedDate"],
        CreatedById=account["CreatedById"],
        LastModifiedDate=account["LastModifiedDate"],
        LastModifiedById=account["LastModifiedById"],
        SystemModstamp=account["SystemModstamp"],
    )
    return row

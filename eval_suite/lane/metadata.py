"""``crmarena org metadata``: the Salesforce DX project that readies a real org for the CRMArena data.

Generated from the dump layout (mock_org/crmarena_schema.json): every custom object (``…__c``) and
every custom field a fresh org lacks, a permission set (``CRMArena_Lane``) that grants access to them
and the permissions a push needs, and the org settings the data needs. Two source folders, deployed
in this order, because a permission set may grant "Set Audit Fields upon Record Creation" only once
the org allows it (SecuritySettings.enableAuditFieldsInactiveOwner):

- ``org-settings/``: Security (audit fields), Knowledge (Lightning Knowledge), Live Agent (Chat);
- ``force-app/``: the objects, fields and the permission set.

The XML follows the Metadata API Developer Guide (CustomObject, CustomField, PermissionSet,
SecuritySettings, KnowledgeSettings, LiveAgentSettings). ``config/project-scratch-def.json`` makes a
scratch org with the features already on (Person Accounts cannot be enabled by a deploy).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from ..run.records import write_text_atomic

API_VERSION = "59.0"
NAMESPACE = "http://soap.sforce.com/2006/04/metadata"
PERMISSION_SET = "CRMArena_Lane"
# What each schema type becomes (Metadata API FieldType); text areas longer than 255 are long text areas.
FIELD_TYPES = {
    "string": "Text",
    "textarea": "TextArea",
    "reference": "Lookup",
    "picklist": "Picklist",
    "multipicklist": "MultiselectPicklist",
    "boolean": "Checkbox",
    "double": "Number",
    "int": "Number",
    "currency": "Currency",
    "percent": "Percent",
    "date": "Date",
    "datetime": "DateTime",
    "email": "Email",
    "phone": "Phone",
    "url": "Url",
}
LONG_TEXT = 255
# A custom object's auto-number name field: the format our dumps use (CH-0000001 …).
AUTO_NUMBER_FORMATS = {"CaseHistory__c": "CH-{0000000}", "VoiceCallTranscript__c": "VCT-{0000000}"}
# The org settings each object needs, by the object that needs it: (settings file, root element, fields),
# the scratch definition's features and settings key (Metadata API: KnowledgeSettings, LiveAgentSettings,
# QuoteSettings, Territory2Settings; Quotes and Sales Territories are off in a new org).
FEATURE_SETTINGS: dict[str, tuple[str, str, dict[str, bool], tuple[str, ...]]] = {
    "Knowledge__kav": (
        "Knowledge",
        "KnowledgeSettings",
        {"enableKnowledge": True, "enableLightningKnowledge": True},
        ("Knowledge",),
    ),
    "LiveChatTranscript": ("LiveAgent", "LiveAgentSettings", {"enableLiveAgent": True}, ("LiveAgent",)),
    "Quote": ("Quote", "QuoteSettings", {"enableQuote": True}, ()),
    "Territory2": ("Territory2", "Territory2Settings", {"enableTerritoryManagement2": True}, ()),
}
# User permissions a push needs, by the object that needs them: setting audit fields always; making the
# territory model's records needs Manage Territories, converting leads needs Convert Leads.
USER_PERMISSIONS = {
    "": ("CreateAuditFields", "UpdateWithInactiveOwner"),
    "Territory2": ("ManageTerritories",),
    "Lead": ("ConvertLeads",),
}


def custom_fields(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(object, field) for every custom field of the schema (``__c``), in schema order."""
    return [
        (sobject["name"], field)
        for sobject in schema["objects"]
        for field in sobject["fields"]
        if field["name"].endswith("__c")
    ]


def custom_objects(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [sobject for sobject in schema["objects"] if sobject["name"].endswith("__c")]


def _element(tag: str, *children: ET.Element, text: Any = None) -> ET.Element:
    node = ET.Element(tag)
    if text is not None:
        node.text = str(text).lower() if isinstance(text, bool) else str(text)
    node.extend(children)
    return node


def _leaf(parent: ET.Element, tag: str, value: Any) -> None:
    if value is not None:
        parent.append(_element(tag, text=value))


def _document(root: str) -> ET.Element:
    return ET.Element(root, xmlns=NAMESPACE)


def _xml(root: ET.Element) -> str:
    """The document as Salesforce's own retrieve writes it: children in alphabetical order, fullName first
    (a stable sort, so picklist values keep their order)."""
    _sort(root)
    ET.indent(root, space="    ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _sort(node: ET.Element) -> None:
    children = sorted(node, key=lambda child: (child.tag != "fullName", child.tag))
    for child in list(node):
        node.remove(child)
    node.extend(children)
    for child in children:
        _sort(child)


def field_xml(field: dict[str, Any], owner_plural: str) -> str:
    """A CustomField (``.field-meta.xml``) for a schema field of the object labelled ``owner_plural``."""
    kind = field["type"]
    root = _document("CustomField")
    _leaf(root, "fullName", field["name"])
    _leaf(root, "label", field["label"])
    _leaf(root, "description", field.get("description"))
    if kind == "textarea" and (field.get("length") or 0) > LONG_TEXT:
        _leaf(root, "type", "LongTextArea")
        _leaf(root, "length", field["length"])
        _leaf(root, "visibleLines", 10)
    elif kind == "reference":
        _leaf(root, "type", "Lookup")
        _leaf(root, "referenceTo", field["referenceTo"][0])
        child = (field.get("childRelationshipName") or field["name"].removesuffix("__c") + "s").removesuffix("__r")
        _leaf(root, "relationshipName", child)
        _leaf(root, "relationshipLabel", owner_plural)  # the related list's label on the parent
        _leaf(root, "deleteConstraint", "SetNull")
    else:
        _leaf(root, "type", FIELD_TYPES[kind])
        if kind == "string":
            _leaf(root, "length", field.get("length") or LONG_TEXT)
        if kind in ("double", "int", "currency", "percent"):
            _leaf(root, "precision", field.get("precision") or 18)
            _leaf(root, "scale", 0 if kind == "int" else field.get("scale") or 2)
        if kind == "boolean":
            _leaf(root, "defaultValue", bool(field.get("defaultValue")))
        if kind in ("picklist", "multipicklist"):
            values = [
                _element(
                    "value",
                    _element("fullName", text=entry["value"]),
                    _element("default", text=bool(entry.get("defaultValue"))),
                    _element("label", text=entry.get("label") or entry["value"]),
                )
                for entry in field.get("picklistValues") or []
            ]
            definition = _element("valueSetDefinition", _element("sorted", text=False), *values)
            root.append(
                _element("valueSet", _element("restricted", text=bool(field.get("restrictedPicklist"))), definition)
            )
            if kind == "multipicklist":
                _leaf(root, "visibleLines", 4)
    if field.get("externalId"):
        _leaf(root, "externalId", True)
    if field.get("unique"):
        _leaf(root, "unique", True)
        _leaf(root, "caseSensitive", False)
    if not field.get("nillable", True) and kind not in ("boolean", "reference"):
        _leaf(root, "required", True)
    return _xml(root)


def object_xml(sobject: dict[str, Any]) -> str:
    """A CustomObject (``.object-meta.xml``): labels, the name field, sharing and search."""
    root = _document("CustomObject")
    _leaf(root, "label", sobject["label"])
    _leaf(root, "pluralLabel", sobject["labelPlural"])
    _leaf(root, "description", sobject.get("description"))
    name = next(field for field in sobject["fields"] if field["name"] == "Name")
    name_field = _element("nameField", _element("label", text=name["label"]))
    if name.get("autoNumber"):
        name_field.append(_element("displayFormat", text=AUTO_NUMBER_FORMATS.get(sobject["name"], "{00000000}")))
        name_field.append(_element("startingNumber", text=1))
        name_field.append(_element("type", text="AutoNumber"))
    else:
        name_field.append(_element("type", text="Text"))
    root.append(name_field)
    _leaf(root, "deploymentStatus", "Deployed")
    _leaf(root, "sharingModel", "ReadWrite")
    _leaf(root, "enableSearch", bool(sobject.get("searchable", True)))
    _leaf(root, "enableReports", True)
    return _xml(root)


def permission_set_xml(schema: dict[str, Any]) -> str:
    """Field access to every custom field, full access to the custom objects, and the push's permissions."""
    root = _document("PermissionSet")
    _leaf(root, "label", "CRMArena Lane")
    _leaf(
        root,
        "description",
        "Access to the CRMArena custom objects and fields, and the audit-field permission "
        "a push needs (crmarena org push).",
    )
    for sobject, field in custom_fields(schema):
        if not field.get("nillable", True) and field["type"] != "boolean":
            continue  # a required field is always readable and editable: it may not appear here
        access = _element(
            "fieldPermissions",
            _element("editable", text=bool(field.get("updateable", True))),
            _element("field", text=f"{sobject}.{field['name']}"),
            _element("readable", text=True),
        )
        root.append(access)
    _leaf(root, "hasActivationRequired", False)
    for custom in custom_objects(schema):
        # The elements in the order the Metadata API lists them.
        allowed = [
            _element(name, text=True)
            for name in ("allowCreate", "allowDelete", "allowEdit", "allowRead", "modifyAllRecords")
        ]
        permissions = _element(
            "objectPermissions",
            *allowed,
            _element("object", text=custom["name"]),
            _element("viewAllRecords", text=True),
        )
        root.append(permissions)
    names = {sobject["name"] for sobject in schema["objects"]}
    wanted = [p for needer, granted in USER_PERMISSIONS.items() if not needer or needer in names for p in granted]
    for permission in sorted(wanted):
        root.append(_element("userPermissions", _element("enabled", text=True), _element("name", text=permission)))
    return _xml(root)


def _settings(root_name: str, **values: bool) -> str:
    root = _document(root_name)
    for name, value in values.items():
        _leaf(root, name, value)
    return _xml(root)


def scratch_definition(schema: dict[str, Any]) -> dict[str, Any]:
    """A scratch org with every feature the schema's objects need already on."""
    features = ["PersonAccounts", "ServiceCloud"]
    settings: dict[str, Any] = {"securitySettings": {"enableAuditFieldsInactiveOwner": True}}
    for _, root, values, needed in _feature_settings(schema):
        features += needed
        settings[root[0].lower() + root[1:]] = values
    return {"orgName": "CRMArena", "edition": "Enterprise", "features": features, "settings": settings}


def _feature_settings(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, bool], tuple[str, ...]]]:
    names = {sobject["name"] for sobject in schema["objects"]}
    return [setting for needer, setting in FEATURE_SETTINGS.items() if needer in names]


SFDX_PROJECT = {
    "packageDirectories": [{"path": "org-settings", "default": False}, {"path": "force-app", "default": True}],
    "name": "crmarena-lane",
    "namespace": "",
    "sourceApiVersion": API_VERSION,
}


def project_files(schema: dict[str, Any]) -> dict[str, str]:
    """Relative path → content of every file of the project."""
    settings = "org-settings/main/default/settings"
    files: dict[str, str] = {
        "sfdx-project.json": json.dumps(SFDX_PROJECT, indent=2) + "\n",
        "config/project-scratch-def.json": json.dumps(scratch_definition(schema), indent=2) + "\n",
        f"{settings}/Security.settings-meta.xml": _settings("SecuritySettings", enableAuditFieldsInactiveOwner=True),
    }
    for name, root, values, _ in _feature_settings(schema):
        files[f"{settings}/{name}.settings-meta.xml"] = _settings(root, **values)
    objects = "force-app/main/default/objects"
    for custom in custom_objects(schema):
        files[f"{objects}/{custom['name']}/{custom['name']}.object-meta.xml"] = object_xml(custom)
    plurals = {sobject["name"]: sobject["labelPlural"] for sobject in schema["objects"]}
    for sobject, field in custom_fields(schema):
        files[f"{objects}/{sobject}/fields/{field['name']}.field-meta.xml"] = field_xml(field, plurals[sobject])
    files[f"force-app/main/default/permissionsets/{PERMISSION_SET}.permissionset-meta.xml"] = permission_set_xml(schema)
    return files


def write_project(schema: dict[str, Any], out: Path) -> list[Path]:
    """Write the project for a schema document (the dump layout) under ``out``, each file atomically; the
    paths written."""
    written = []
    for relative, content in project_files(schema).items():
        path = Path(out) / relative
        write_text_atomic(path, content)
        written.append(path)
    return written

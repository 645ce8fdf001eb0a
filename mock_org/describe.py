"""describeGlobal, sObject describe and metadata, built from the schema in the REST API's shapes.

The field attributes and their names are those of Salesforce's DescribeFieldResult and
DescribeSObjectResult (REST API Developer Guide, "sObject Describe"); attributes the org has no use
for are present with the values a real org gives a plain field, because clients read them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .schema import ChildRelationship, Field, SObject

_SOAP_TYPES = {
    "id": "tns:ID",
    "reference": "tns:ID",
    "boolean": "xsd:boolean",
    "int": "xsd:int",
    "double": "xsd:double",
    "currency": "xsd:double",
    "percent": "xsd:double",
    "date": "xsd:date",
    "datetime": "xsd:dateTime",
    "time": "xsd:time",
}
_JSON_TYPES = {
    "boolean": "boolean",
    "int": "int",
    "double": "double",
    "currency": "double",
    "percent": "double",
    "date": "date",
    "datetime": "dateTime",
    "time": "time",
    "id": "id",
    "reference": "id",
}
_API_TYPES = {"datetime": "datetime", "multipicklist": "multipicklist"}


def sobject_urls(sobject: SObject, version: str) -> dict[str, str]:
    base = f"/services/data/v{version}/sobjects/{sobject.name}"
    return {
        "compactLayouts": f"{base}/describe/compactLayouts",
        "rowTemplate": f"{base}/{{ID}}",
        "approvalLayouts": f"{base}/describe/approvalLayouts",
        "defaultValues": f"{base}/defaultValues?recordTypeId&fields",
        "listviews": f"{base}/listviews",
        "describe": f"{base}/describe",
        "quickActions": f"{base}/quickActions",
        "layouts": f"{base}/describe/layouts",
        "sobject": base,
    }


def global_entry(sobject: SObject, version: str) -> dict[str, Any]:
    """One object of describeGlobal (and the ``objectDescribe`` of its metadata)."""
    flags = sobject.flags
    return {
        "activateable": False,
        "associateEntityType": None,
        "associateParentEntity": None,
        "createable": flags.get("createable", True),
        "custom": sobject.custom,
        "customSetting": False,
        "deepCloneable": False,
        "deletable": flags.get("deletable", True),
        "deprecatedAndHidden": False,
        "feedEnabled": False,
        "hasSubtypes": False,
        "isInterface": False,
        "isSubtype": False,
        "keyPrefix": sobject.key_prefix,
        "label": sobject.label,
        "labelPlural": sobject.label_plural,
        "layoutable": not sobject.supporting,
        "mergeable": sobject.name in ("Account", "Contact", "Case"),
        "mruEnabled": not sobject.supporting,
        "name": sobject.name,
        "queryable": flags.get("queryable", True),
        "replicateable": True,
        "retrieveable": True,
        "searchable": sobject.searchable,
        "triggerable": not sobject.supporting,
        "undeletable": flags.get("deletable", True),
        "updateable": flags.get("updateable", True),
        "urls": sobject_urls(sobject, version),
    }


def describe_global(objects: Iterable[SObject], version: str) -> dict[str, Any]:
    return {
        "encoding": "UTF-8",
        "maxBatchSize": 200,
        "sobjects": [global_entry(sobject, version) for sobject in objects],
    }


def _field(field: Field) -> dict[str, Any]:
    text = field.is_text
    return {
        "aggregatable": field.type not in ("textarea", "multipicklist") or (field.length or 0) <= 255,
        "autoNumber": field.auto_number,
        "byteLength": (field.length or 0) * 3 if text else 0,
        "calculated": field.calculated,
        "cascadeDelete": field.cascade_delete,
        "caseSensitive": False,
        "createable": field.createable,
        "custom": field.custom,
        "defaultValue": field.default_value if field.type != "boolean" else bool(field.default_value),
        "defaultedOnCreate": field.type == "boolean" or field.name in ("OwnerId", "CreatedDate", "CreatedById"),
        "dependentPicklist": False,
        "deprecatedAndHidden": False,
        "digits": field.digits or 0,
        "externalId": field.external_id,
        "filterable": field.filterable,
        "groupable": field.groupable,
        "htmlFormatted": field.name == "FAQ_Answer__c",
        "idLookup": field.name == "Id" or field.external_id or field.unique,
        "inlineHelpText": None,
        "label": field.label,
        "length": field.length or 0 if text else 0,
        "name": field.name,
        "nameField": field.name_field,
        "namePointing": field.polymorphic,
        "nillable": field.nillable,
        "permissionable": field.nillable and field.createable,
        "picklistValues": [
            {
                "active": entry.active,
                "defaultValue": entry.default_value,
                "label": entry.label,
                "validFor": None,
                "value": entry.value,
            }
            for entry in field.picklist_values
        ],
        "polymorphicForeignKey": field.polymorphic,
        "precision": field.precision or 0,
        "referenceTo": list(field.reference_to),
        "relationshipName": field.relationship_name,
        "relationshipOrder": None,
        "restrictedPicklist": field.restricted_picklist,
        "scale": field.scale or 0,
        "soapType": _SOAP_TYPES.get(field.type, "xsd:string"),
        "sortable": field.sortable,
        "type": field.type,
        "unique": field.unique,
        "updateable": field.updateable,
        "writeRequiresMasterRead": False,
    }


def _child(relationship: ChildRelationship) -> dict[str, Any]:
    return {
        "cascadeDelete": relationship.cascade_delete,
        "childSObject": relationship.child_sobject,
        "deprecatedAndHidden": False,
        "field": relationship.field,
        "junctionIdListNames": [],
        "junctionReferenceTo": [],
        "relationshipName": relationship.name,
        "restrictedDelete": False,
    }


def describe_sobject(sobject: SObject, version: str) -> dict[str, Any]:
    """The full describe of one object."""
    body = global_entry(sobject, version)
    body.update(
        {
            "actionOverrides": [],
            "childRelationships": [_child(child) for child in sobject.child_relationships.values()],
            "compactLayoutable": not sobject.supporting,
            "defaultImplementation": None,
            "extendedBy": None,
            "extendsInterfaces": None,
            "fields": [_field(field) for field in sobject.field_list()],
            "implementedBy": None,
            "implementsInterfaces": None,
            "listviewable": None,
            "lookupLayoutable": None,
            "namedLayoutInfos": [],
            "networkScopeFieldName": None,
            "recordTypeInfos": [],
            "searchLayoutable": not sobject.supporting,
            "sobjectDescribeOption": "FULL",
            "supportedScopes": [{"label": "All " + sobject.label_plural.lower(), "name": "everything"}],
        }
    )
    return dict(sorted(body.items()))


def sobject_metadata(sobject: SObject, version: str, recent_items: list[dict[str, Any]]) -> dict[str, Any]:
    """``GET /sobjects/{Object}``: the object's describeGlobal entry and its recently viewed records."""
    return {"objectDescribe": global_entry(sobject, version), "recentItems": recent_items}

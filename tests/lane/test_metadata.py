"""The SFDX project: valid Metadata API XML with every custom object and field of the dump layout."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from eval_suite.commands.cli import main
from eval_suite.lane.source import DEFAULT_SCHEMA

NS = {"md": "http://soap.sforce.com/2006/04/metadata"}
# Our schema's type → the Metadata API's FieldType (and for text, which kinds of text).
EXPECTED_TYPES = {"reference": "Lookup", "picklist": "Picklist", "string": "Text", "boolean": "Checkbox"}


def _project(tmp_path: Path) -> Path:
    assert main(["org", "metadata", "--out", str(tmp_path / "project")]) == 0
    return tmp_path / "project"


def _text(root: ET.Element, tag: str) -> str | None:
    node = root.find(f"md:{tag}", NS)
    return None if node is None else node.text


def test_every_custom_field_of_the_schema_is_there_with_its_type(tmp_path: Path) -> None:
    project = _project(tmp_path)
    schema = json.loads(DEFAULT_SCHEMA.read_text())
    custom = [(o["name"], f) for o in schema["objects"] for f in o["fields"] if f["name"].endswith("__c")]
    assert {(name, f["name"]) for name, f in custom} >= {
        ("Case", "OrderItemId__c"),
        ("Case", "IssueId__c"),
        ("Knowledge__kav", "FAQ_Answer__c"),
        ("Product2", "External_ID__c"),
        ("CaseHistory__c", "CaseId__c"),
        ("Issue__c", "Description__c"),
    }
    objects = project / "force-app/main/default/objects"
    for name, field in custom:
        root = ET.parse(objects / name / "fields" / f"{field['name']}.field-meta.xml").getroot()
        assert root.tag == f"{{{NS['md']}}}CustomField"
        assert _text(root, "fullName") == field["name"]
        assert _text(root, "label") == field["label"]
        kind = _text(root, "type")
        if field["type"] == "textarea":
            assert kind == ("LongTextArea" if field["length"] > 255 else "TextArea")
            assert int(_text(root, "length") or 0) == field["length"]
        else:
            assert kind == EXPECTED_TYPES[field["type"]], (name, field["name"])
        if field["type"] == "reference":
            assert _text(root, "referenceTo") == field["referenceTo"][0]
            assert _text(root, "relationshipName") == field["childRelationshipName"].removesuffix("__r")
            assert _text(root, "deleteConstraint") == "SetNull"
        if field["type"] == "string":
            assert int(_text(root, "length") or 0) == field["length"]
        if field["type"] == "picklist":
            values = [v.text for v in root.findall("md:valueSet/md:valueSetDefinition/md:value/md:fullName", NS)]
            assert values == [entry["value"] for entry in field["picklistValues"]]
        assert (_text(root, "externalId") == "true") == bool(field.get("externalId"))
        assert (_text(root, "unique") == "true") == bool(field.get("unique"))


def test_custom_objects_and_the_permission_set(tmp_path: Path) -> None:
    project = _project(tmp_path)
    schema = json.loads(DEFAULT_SCHEMA.read_text())
    customs = [o for o in schema["objects"] if o["name"].endswith("__c")]
    assert {o["name"] for o in customs} == {"Issue__c", "CaseHistory__c"}
    for sobject in customs:
        path = project / "force-app/main/default/objects" / sobject["name"] / f"{sobject['name']}.object-meta.xml"
        root = ET.parse(path).getroot()
        assert _text(root, "label") == sobject["label"] and _text(root, "pluralLabel") == sobject["labelPlural"]
        name = next(f for f in sobject["fields"] if f["name"] == "Name")
        assert root.find("md:nameField/md:type", NS).text == ("AutoNumber" if name["autoNumber"] else "Text")
        assert _text(root, "deploymentStatus") == "Deployed"
    permission_set = ET.parse(
        project / "force-app/main/default/permissionsets/CRMArena_Lane.permissionset-meta.xml"
    ).getroot()
    granted = {node.text for node in permission_set.findall("md:fieldPermissions/md:field", NS)}
    optional = {
        f"{o['name']}.{f['name']}"
        for o in schema["objects"]
        for f in o["fields"]
        if f["name"].endswith("__c") and f.get("nillable", True)
    }
    assert granted == optional
    assert {n.text for n in permission_set.findall("md:objectPermissions/md:object", NS)} == {
        o["name"] for o in customs
    }
    permissions = {n.text for n in permission_set.findall("md:userPermissions/md:name", NS)}
    assert permissions == {"CreateAuditFields", "UpdateWithInactiveOwner"}


def test_the_project_deploys_settings_first(tmp_path: Path) -> None:
    project = _project(tmp_path)
    sfdx = json.loads((project / "sfdx-project.json").read_text())
    assert [d["path"] for d in sfdx["packageDirectories"]] == ["org-settings", "force-app"]
    security = ET.parse(project / "org-settings/main/default/settings/Security.settings-meta.xml").getroot()
    assert security.tag.endswith("SecuritySettings") and _text(security, "enableAuditFieldsInactiveOwner") == "true"
    for path in project.rglob("*-meta.xml"):
        assert ET.parse(path).getroot().tag.startswith(f"{{{NS['md']}}}"), path
    scratch = json.loads((project / "config/project-scratch-def.json").read_text())
    assert {"PersonAccounts", "Knowledge", "LiveAgent"} <= set(scratch["features"])

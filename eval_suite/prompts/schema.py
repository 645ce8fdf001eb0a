"""The org's schema as an agent reads it, rendered from mock_org/crmarena_schema.json (a sales org's: that
file with the sales objects, ``mock_org.schema.schema_document``): every benchmark object with its
description, then each field with its type, what a reference points at, and its description."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from mock_org.schema import schema_document


@cache
def render_schema(org: str = "service") -> str:
    """The schema of an org type (mock_org.schema.ORG_TYPES) as the agent's prompt shows it."""
    if org == "service":
        schema = json.loads(resources.files("mock_org").joinpath("crmarena_schema.json").read_text(encoding="utf-8"))
    else:
        schema = schema_document(org)
    objects = [sobject for sobject in schema["objects"] if not sobject.get("supporting")]
    lines = ["The objects of the org: " + ", ".join(sobject["name"] for sobject in objects) + "."]
    for sobject in objects:
        lines += ["", f"## {sobject['name']}: {sobject.get('description', '').strip()}"]
        lines += [
            f"  - {field['name']} ({_type(field)}): {field.get('description', '').strip()}"
            for field in sobject["fields"]
        ]
    return "\n".join(lines)


def _type(field: dict[str, Any]) -> str:
    kind = field["type"]
    if kind == "reference" and field.get("referenceTo"):
        return f"reference to {' or '.join(field['referenceTo'])}"
    if kind == "picklist" and field.get("picklistValues"):
        values = [entry["value"] if isinstance(entry, dict) else str(entry) for entry in field["picklistValues"]]
        return "picklist: " + ", ".join(values)
    return kind

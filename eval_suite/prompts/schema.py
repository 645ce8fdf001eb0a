"""The org's schema as an agent reads it, rendered from mock_org/crmarena_schema.json: every
benchmark object with its description, then each field with its type, what a reference points at,
and its description."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def render_schema() -> str:
    schema = json.loads(resources.files("mock_org").joinpath("crmarena_schema.json").read_text(encoding="utf-8"))
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

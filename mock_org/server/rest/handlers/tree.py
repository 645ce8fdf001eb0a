"""``/composite/tree/{Object}``: record trees (a root record and its children, up to five levels deep)
created in one all-or-nothing call, as ``sf data import tree`` sends them.

Every record names its ``attributes.type`` and a ``referenceId`` unique in the request; children sit
under their parent in a child relationship (``"Contacts": {"records": [...]}``) and get the parent's
new Id in that relationship's field. Records are created level by level (every root, then every
second-level record, ...) in request order within a level, the order a real org reports them in. If
any record fails nothing is saved, and the 400 answer lists only the failed records (REST API
Developer Guide, "sObject Tree" and "sObject Tree Response Body").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import Response

from ....errors import InvalidOperation, JsonParserError, SalesforceError
from ....schema import SObject
from ..body import read_object
from ..state import org, user_id
from ..wire import json_response
from .composite import RollBack, check_record_count

MAX_DEPTH = 5
MAX_TYPES = 5


@dataclass
class _Node:
    """One record of a tree, with where it hangs."""

    reference: str
    sobject: SObject | None  # None when its type is wrong; the record then fails with ``problem``
    data: dict[str, Any]
    depth: int
    parent: _Node | None = None
    parent_field: str | None = None
    problem: str | None = None
    record_id: str | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)


def tree(version: str, sobject: str) -> Response:
    root_type = org().sobject(sobject)
    nodes = _flatten(root_type, read_object())
    failed: list[_Node] = []
    try:
        with org().transaction() as connection:
            me = user_id()
            for depth in range(1, MAX_DEPTH + 1):
                for node in (node for node in nodes if node.depth == depth):
                    _create(node, connection, me)
            failed = [node for node in nodes if node.errors]
            if failed:
                raise RollBack
    except RollBack:
        results: list[dict[str, Any]] = [{"referenceId": node.reference, "errors": node.errors} for node in failed]
        return json_response({"hasErrors": True, "results": results}, 400)
    ordered = sorted(nodes, key=lambda node: node.depth)  # stable: request order within a level
    results = [{"referenceId": node.reference, "id": node.record_id} for node in ordered]
    return json_response({"hasErrors": False, "results": results}, 201)


def _create(node: _Node, connection: Any, me: str) -> None:
    if node.parent is not None and node.parent.record_id is None:
        return  # its parent failed, and with it the whole request
    if node.problem is not None or node.sobject is None:
        node.errors.append({"statusCode": "INVALID_INPUT", "message": node.problem, "fields": []})
        return
    data = dict(node.data)
    if node.parent is not None and node.parent_field is not None:
        data[node.parent_field] = node.parent.record_id
    try:
        node.record_id = org().writer.create(connection, node.sobject, data, me)
    except SalesforceError as error:
        node.errors.append({"statusCode": error.error_code, "message": error.message, "fields": error.fields or []})


def _flatten(root_type: SObject, spec: dict[str, Any]) -> list[_Node]:
    """Every record of every tree, in request order, checked for what makes the whole request invalid."""
    nodes: list[_Node] = []
    pending: list[tuple[dict[str, Any], SObject, int, _Node | None, str | None]] = [
        (record, root_type, 1, None, None) for record in _records(spec, "records")
    ]
    while pending:
        record, expected, depth, parent, parent_field = pending.pop(0)
        if depth > MAX_DEPTH:
            raise InvalidOperation(f"An sObject tree can be at most {MAX_DEPTH} levels deep")
        node = _node(record, expected, depth, parent, parent_field)
        nodes.append(node)
        check_record_count(len(nodes))
        for name, value in record.items():
            relationship = expected.child_relationships.get(name.lower()) if isinstance(value, dict) else None
            if relationship is None:
                continue
            child_type = org().sobject(relationship.child_sobject)
            pending += [(child, child_type, depth + 1, node, relationship.field) for child in _records(value, name)]
    types = {node.sobject.name for node in nodes if node.sobject is not None}
    if len(types) > MAX_TYPES:
        raise InvalidOperation(f"An sObject tree request can create records of at most {MAX_TYPES} types")
    _mark_duplicates(nodes)
    return nodes


def _node(
    record: dict[str, Any], expected: SObject, depth: int, parent: _Node | None, parent_field: str | None
) -> _Node:
    attributes = record.get("attributes")
    if not isinstance(attributes, dict) or not isinstance(attributes.get("referenceId"), str):
        raise InvalidOperation("Include a referenceId in the attributes of every record")
    reference, kind = attributes["referenceId"], attributes.get("type")
    data = {
        name: value
        for name, value in record.items()
        if name != "attributes" and not (isinstance(value, dict) and name.lower() in expected.child_relationships)
    }
    node = _Node(reference, expected, data, depth, parent, parent_field)
    if not isinstance(kind, str) or kind.lower() != expected.name.lower():
        node.sobject = None
        node.problem = f"The record's type must be {expected.name}, not {kind!r}, where it stands in the tree"
    return node


def _mark_duplicates(nodes: list[_Node]) -> None:
    """A referenceId used twice fails every record that uses it."""
    seen: dict[str, int] = {}
    for node in nodes:
        seen[node.reference] = seen.get(node.reference, 0) + 1
    for node in nodes:
        if seen[node.reference] > 1:
            node.problem = f"Duplicate ReferenceId provided in the request: {node.reference}"


def _records(container: Any, where: str) -> list[dict[str, Any]]:
    records = container.get("records") if isinstance(container, dict) else None
    if not isinstance(records, list) or not all(isinstance(record, dict) for record in records):
        raise JsonParserError(f"{where}: expected an object with a records array of sObjects")
    return records

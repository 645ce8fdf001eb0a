"""The reference solution of a task instance, executed step by step.

A reference is a list of steps. ``{"tool": NAME, "args": {...}}`` calls a tool of the registry
through the client; ``{"derive": NAME, "args": {...}}`` runs a pure derive operation
(`eval_suite.reference.derive`). Inside ``args``, at any depth, ``{"$ref": i}`` stands for the output of step i
(0-based, an earlier step) and ``{"$ref": i, "path": [k, …]}`` for a part of it (dict keys, list
indexes). The last step is ``{"tool": "respond", "args": {"content": …}}``: its resolved content is
the answer (a string, or null for None).

``run_reference`` executes a reference directly on an org client: the task tests, the benchmarks and the
real-org lane's conformance replay use it. The oracle agent does not: it follows a reference through the
agents' Toolbox (eval_suite.agents.oracle), with only ``resolve`` from here.
"""

from __future__ import annotations

from typing import Any

from simple_salesforce import Salesforce

from eval_suite.reference.derive import OPERATIONS
from eval_suite.tools import registry


class ReferenceError(ValueError):
    """A reference that cannot run: a bad step, a reference to a later step, a missing key."""


def resolve(value: Any, outputs: list[Any]) -> Any:
    """``value`` with every {"$ref": …} replaced by the earlier output it names."""
    if isinstance(value, dict):
        if "$ref" in value:
            index = value["$ref"]
            if not isinstance(index, int) or not 0 <= index < len(outputs) or set(value) - {"$ref", "path"}:
                raise ReferenceError(f"bad reference {value!r} with {len(outputs)} earlier step(s)")
            found = outputs[index]
            for key in value.get("path", []):
                try:
                    found = found[key]
                except (KeyError, IndexError, TypeError):
                    raise ReferenceError(f"{value!r}: no {key!r} in step {index}'s output") from None
            return found
        return {key: resolve(item, outputs) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, outputs) for item in value]
    return value


def run_step(sf: Salesforce, step: dict[str, Any], outputs: list[Any]) -> Any:
    """One step's output, given the outputs of the steps before it."""
    args = resolve(step.get("args", {}), outputs)
    if "derive" in step:
        operation = OPERATIONS.get(step["derive"])
        if operation is None:
            raise ReferenceError(f"unknown derive operation {step['derive']!r}")
        return operation(**args)
    if step.get("tool") == "respond":
        return args.get("content")
    return registry.call(sf, step.get("tool", ""), args)


def run_reference(sf: Salesforce, reference: list[dict[str, Any]]) -> Any:
    """The answer the reference solution reaches on the org behind ``sf``."""
    if not reference or reference[-1].get("tool") != "respond":
        raise ReferenceError("a reference ends with a respond step")
    outputs: list[Any] = []
    for step in reference:
        outputs.append(run_step(sf, step, outputs))
    return outputs[-1]

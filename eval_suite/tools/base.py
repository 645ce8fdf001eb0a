"""A tool: a function of ``(sf, **args)`` with its OpenAI function schema and a category label.

Each tool module defines its functions and, right after each one, the `Tool` that describes it
(built with `define`); `eval_suite.tools.registry` gathers them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DATES = "date helpers"
CASES = "case and agent lookups"
PRODUCTS = "product and order lookups"
KNOWLEDGE = "knowledge search"
CALCULATIONS = "calculation helpers"
RAW = "raw SOQL/SOSL"


@dataclass(frozen=True)
class Tool:
    """``function(sf, **arguments)``, its OpenAI function schema and its category (re-exported by the registry,
    where the harness imports it from)."""

    name: str
    function: Callable[..., Any]
    schema: dict[str, Any]  # the OpenAI function: {"name", "description", "parameters"}
    category: str

    @property
    def openai_tool(self) -> dict[str, Any]:
        """The entry of OpenAI's ``tools`` list."""
        return {"type": "function", "function": self.schema}

    @property
    def properties(self) -> dict[str, Any]:
        return self.schema["parameters"]["properties"]

    @property
    def required(self) -> list[str]:
        return self.schema["parameters"]["required"]


def function_schema(
    name: str, description: str, properties: dict[str, Any] | None = None, required: tuple[str, ...] = ()
) -> dict[str, Any]:
    parameters = {"type": "object", "properties": properties or {}, "required": list(required)}
    return {"name": name, "description": description, "parameters": parameters}


def define(
    function: Callable[..., Any],
    category: str,
    description: str,
    properties: dict[str, Any] | None = None,
    required: tuple[str, ...] = (),
) -> Tool:
    """The Tool of ``function``, named after it."""
    return Tool(
        function.__name__, function, function_schema(function.__name__, description, properties, required), category
    )


def string(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def integer(description: str) -> dict[str, Any]:
    return {"type": "integer", "description": description}


def string_list(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


def record_list(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "object"}, "description": description}


def mapping(description: str) -> dict[str, Any]:
    return {"type": "object", "description": description, "additionalProperties": {"type": "number"}}

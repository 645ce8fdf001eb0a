"""A tool: a function of ``(sf, **args)`` with its OpenAI function schema and a category label.

Each tool module defines its functions and, right after each one, the `Tool` that describes it;
`eval_suite.tools.registry` gathers them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DATES = "date helpers"
CASES = "case and agent lookups"
PRODUCTS = "product and order lookups"
KNOWLEDGE = "knowledge search"
CALCULATIONS = "calculation helpers"
RAW = "raw SOQL/SOSL"
ANSWER = "final answer"


@dataclass(frozen=True, slots=True)
class Tool:
    function: Callable[..., Any] | None  # None for respond, which agents handle themselves
    category: str
    description: str
    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            assert self.function is not None, "a tool without a function needs a name"
            object.__setattr__(self, "name", self.function.__name__)

    @property
    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema (``tools=[…]`` entry)."""
        parameters = {"type": "object", "properties": self.properties, "required": list(self.required)}
        function = {"name": self.name, "description": self.description, "parameters": parameters}
        return {"type": "function", "function": function}


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

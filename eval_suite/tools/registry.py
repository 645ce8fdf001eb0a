"""Every tool by name: the 24 CRMArena tools an agent calls and the two raw query tools. `respond`,
the 25th CRMArena tool, only has a schema here: it ends the episode, so the agent loop handles it."""

from __future__ import annotations

from typing import Any

from simple_salesforce import Salesforce

from . import calculations, cases, dates, knowledge, products, raw
from .base import Tool, function_schema, string
from .soql import ToolError

__all__ = ["CRMARENA_TOOLS", "RAW_TOOLS", "RESPOND_SCHEMA", "TOOLS", "Tool", "call", "schemas"]

RESPOND_SCHEMA = function_schema(  # the OpenAI function, as Tool.schema
    "respond",
    "Give the final answer and end the task. Answer with only what the question asks for (an Id, a month name, "
    "a state code, a short phrase), or None when the policy says there is no answer.",
    {"content": string("The final answer.")},
    ("content",),
)
CRMARENA_TOOLS: tuple[Tool, ...] = (*dates.TOOLS, *cases.TOOLS, *products.TOOLS, *knowledge.TOOLS, *calculations.TOOLS)
RAW_TOOLS: tuple[Tool, ...] = raw.TOOLS
TOOLS: dict[str, Tool] = {tool.name: tool for tool in (*CRMARENA_TOOLS, *RAW_TOOLS)}


def schemas(include_raw: bool = True) -> list[dict[str, Any]]:
    """The OpenAI ``tools`` list: the 25 CRMArena tools (respond last), with the raw SOQL/SOSL tools before it."""
    chosen = [*CRMARENA_TOOLS, *(RAW_TOOLS if include_raw else ())]
    return [*(tool.openai_tool for tool in chosen), {"type": "function", "function": RESPOND_SCHEMA}]


def call(sf: Salesforce, name: str, arguments: dict[str, Any]) -> Any:
    """Run one tool call; an unknown tool, respond, or arguments the tool does not take are a ToolError."""
    tool = TOOLS.get(name)
    if tool is None:
        raise ToolError(f"unknown tool {name!r}" if name != "respond" else "respond is answered by the agent loop")
    if not isinstance(arguments, dict):
        raise ToolError("tool arguments must be a JSON object")
    unknown = sorted(set(arguments) - set(tool.properties))
    missing = [parameter for parameter in tool.required if parameter not in arguments]
    if unknown or missing:
        parts = ([f"unknown argument(s) {', '.join(unknown)}"] if unknown else []) + (
            [f"missing argument(s) {', '.join(missing)}"] if missing else []
        )
        raise ToolError(f"{name}: {'; '.join(parts)}")
    return tool.function(sf, **arguments)

"""Every tool by name: the 24 CRMArena tools an agent calls, the two raw query tools, and `respond`,
whose schema agents are given but which the agent loop handles itself (it ends the episode)."""

from __future__ import annotations

from typing import Any

from simple_salesforce import Salesforce

from . import calculations, cases, dates, knowledge, products, raw
from .base import ANSWER, Tool, string
from .soql import ToolError

RESPOND = Tool(
    None,
    ANSWER,
    "Give the final answer and end the task. Answer with only what the question asks for (an Id, a month name, "
    "a state code, a short phrase), or None when the policy says there is no answer.",
    {"content": string("The final answer.")},
    ("content",),
    name="respond",
)

CRMARENA_TOOLS: tuple[Tool, ...] = (
    *dates.TOOLS,
    *cases.TOOLS,
    *products.TOOLS,
    *knowledge.TOOLS,
    *calculations.TOOLS,
    RESPOND,
)
TOOLS: dict[str, Tool] = {tool.name: tool for tool in (*CRMARENA_TOOLS, *raw.TOOLS)}


def schemas(include_raw: bool = True) -> list[dict[str, Any]]:
    """The OpenAI ``tools`` list: the 25 CRMArena tools (respond included), plus the raw SOQL/SOSL tools."""
    chosen = [*CRMARENA_TOOLS, *(raw.TOOLS if include_raw else ())]
    return [tool.schema for tool in chosen]


def call(sf: Salesforce, name: str, arguments: dict[str, Any]) -> Any:
    """Run one tool call. Unknown tools, respond and arguments the tool does not take are a ToolError."""
    tool = TOOLS.get(name)
    if tool is None:
        raise ToolError(f"unknown tool {name!r}")
    if tool.function is None:
        raise ToolError(f"{name} is answered by the agent loop, not executed")
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

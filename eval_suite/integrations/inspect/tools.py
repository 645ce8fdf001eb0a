"""The CRMArena tools as inspect tools, each call going the agents' way: through the sample's Toolbox
(eval_suite/tools/toolbox.py), with its argument handling, its error shaping and its line between an agent's
mistake and an org failure. A mistake (a query the org refuses, arguments a tool cannot take) comes back to the
model as a tool error carrying the observation our agents read; an org failure is an InfraError, which inspect
does not catch: the sample ends as an error, never as a wrong answer. Results are never truncated, as in
`crmarena eval`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import anyio
from inspect_ai.model import ChatMessage, ChatMessageTool
from inspect_ai.tool import ToolDef, ToolError, ToolParams

from ...errors import InfraError
from ...tools.registry import RESPOND_SCHEMA, Tool
from ...tools.toolbox import RESPOND, Toolbox
from .org import Session

ERROR_PREFIX = "Error: "  # inspect shows a tool error to the model as "Error: <message>"


def crmarena_tools(session: Session, tools: Iterable[Tool]) -> list[ToolDef]:
    """``tools`` on a Toolbox of the sample's session, then ``respond``."""
    toolbox = Toolbox(session.sf, tools)
    return [_tool(toolbox, session, tool) for tool in toolbox.tools.values()] + [respond_tool()]


def _tool(toolbox: Toolbox, session: Session, tool: Tool) -> ToolDef:
    async def execute(**arguments: Any) -> str:
        try:
            observation = await anyio.to_thread.run_sync(toolbox.call, tool.name, arguments)
        except InfraError:
            session.broken = True  # no later sample gets this session
            raise
        if observation.error:
            raise ToolError(observation.text.removeprefix(ERROR_PREFIX))
        return observation.text

    return _definition(execute, tool.schema)


def respond_tool() -> ToolDef:
    """``respond``: the answer, which ends the task (the function-calling solver's submit tool)."""

    async def execute(content: str) -> str:
        return content

    return _definition(execute, RESPOND_SCHEMA)


def _definition(execute: Any, schema: dict[str, Any]) -> ToolDef:
    return ToolDef(
        execute,
        name=schema["name"],
        description=schema["description"],
        parameters=ToolParams.model_validate(schema["parameters"]),
        max_output=0,
    )


def responded(messages: Sequence[ChatMessage]) -> str | None:
    """The answer of a conversation: the content of its last ``respond`` call that went through (None: it never
    answered, as when it ran out of turns)."""
    for message in reversed(messages):
        if isinstance(message, ChatMessageTool) and message.function == RESPOND and message.error is None:
            return message.text
    return None

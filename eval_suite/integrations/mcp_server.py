"""The org's tools as an MCP server (``crmarena mcp``), so that any agent that speaks the Model Context Protocol can
be developed or evaluated against the mock org or a real one.

The tools are the registry's (the CRMArena tools and raw SOQL/SOSL), each with its catalog schema as the MCP
input schema, and every call runs through ``Toolbox.call``: the same argument handling, observation text and
line between a caller's mistake and an org failure as a model agent of ``crmarena eval`` gets. A mistake (a
refused query, bad arguments, an unknown tool) is an MCP tool error carrying the org's ``ERRORCODE: message``;
an org that fails is a tool error too, saying so, and the session it happened on is dropped so that the next
call logs in anew. Needs the ``mcp`` extra (``pip install 'crmarena-selfhosted[mcp]'``).
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
import uvicorn
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

from ..errors import InfraError
from ..tools.registry import Tool
from ..tools.toolbox import Observation, Toolbox

SERVER_NAME = "crmarena"
HTTP_PATH = "/mcp"  # where the streamable HTTP endpoint answers


class ToolSessions:
    """Toolboxes on org sessions, one per tool call in flight (a simple-salesforce client is not shared between
    threads): a finished call gives its session back, a call the org failed drops it."""

    def __init__(self, tools: Sequence[Tool], connect: Callable[[], Toolbox]) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self._connect = connect
        self._idle: list[Toolbox] = []
        self._lock = threading.Lock()

    def call(self, name: str, arguments: Mapping[str, Any]) -> Observation:
        """The observation of one tool call; raises InfraError when the org fails."""
        if name not in self.tools:
            return Observation(
                f"Error: there is no tool named {name!r}. The tools are: {', '.join(self.tools)}.", error=True
            )
        with self._lock:
            toolbox = self._idle.pop() if self._idle else None
        toolbox = toolbox or self._connect()
        observation = toolbox.call(name, arguments)  # an InfraError leaves the session out of the pool
        with self._lock:
            self._idle.append(toolbox)
        return observation


def mcp_tool(tool: Tool) -> types.Tool:
    """The MCP description of a registry tool: its name, description and parameters as the input schema."""
    return types.Tool(name=tool.name, description=tool.schema["description"], input_schema=tool.schema["parameters"])


def build_server(sessions: ToolSessions, instructions: str) -> Server[Any]:
    listing = types.ListToolsResult(tools=[mcp_tool(tool) for tool in sessions.tools.values()])

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def call_tool(_ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        try:
            # The org client blocks: the call runs in a worker thread, the event loop keeps serving.
            observation = await anyio.to_thread.run_sync(sessions.call, params.name, arguments)
        except InfraError as error:
            print(f"crmarena mcp: {params.name}: {error}", file=sys.stderr, flush=True)
            observation = Observation(
                f"Error: the org is unavailable (an infrastructure failure, not a mistake in the call): {error}",
                error=True,
            )
        return types.CallToolResult(content=[types.TextContent(text=observation.text)], is_error=observation.error)

    return Server(
        SERVER_NAME,
        version=_version(),
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve_stdio(server: Server[Any]) -> None:
    """Serve one client on standard input and output until it closes them (stdout carries only the protocol)."""

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)


def serve_http(server: Server[Any], listening: socket.socket) -> None:
    """Serve streamable HTTP at ``HTTP_PATH`` on a bound socket until SIGINT or SIGTERM."""
    host = listening.getsockname()[0]
    # On a loopback address the SDK checks Host and Origin, so a web page cannot reach the server by DNS rebinding.
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[listening])


def _version() -> str:
    try:
        return metadata.version("crmarena-selfhosted")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "unknown"

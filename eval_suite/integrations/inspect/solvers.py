"""The solvers: the sample's session (the task's setup, kept when ``--solver`` replaces the main solver), the
function-calling agent, and the oracle.

``function_calling`` is inspect's react agent with our tools and none of its own prompts: the sample's input is
already the opening our function-calling agent is given, a reply without a tool call is answered with the same
reminder, and ``respond`` is its submit tool, so the answer is what the model responds. ``oracle`` makes each
instance's reference tool calls (eval_suite/agents/oracle.py's ``reference_calls``) through inspect's own tool
execution, knowing only what the tools return: 100% on any instances proves that path answers them."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
from inspect_ai.agent import AgentState, AgentSubmit, react
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ModelOutput, execute_tools
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCall, ToolDef
from inspect_ai.util import span

from ... import prompts
from ...agents.oracle import OracleError, reference_calls
from ...run.target import TargetSettings
from ...tools.catalog import agent_tools
from ...tools.toolbox import RESPOND
from .dataset import instance_of
from .naming import registered, unprefixed
from .org import close_session, open_session, session_of
from .tools import crmarena_tools, respond_tool

TOOL_CATEGORIES = "crmarena:tool_categories"  # the store key of the tool categories the session was given


@solver(name=registered("org_session"))
@unprefixed
def org_session(sql: bool = False, tools: list[str] | None = None, db: str | None = None) -> Solver:
    """Log the sample in to the org and give it the tools: those of the ``fc`` agent (``fc-sql`` with ``sql``),
    only the named categories when ``tools`` names some, then ``respond``. The org is the one CRMARENA_TARGET
    chooses, or a mock serving the dump ``db``."""
    settings = TargetSettings.from_env(db=Path(db) if db else None)
    chosen = agent_tools("fc-sql" if sql else "fc", tools)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        today = instance_of(state.metadata).today
        session = await anyio.to_thread.run_sync(open_session, state.uuid, settings, today)
        state.tools = crmarena_tools(session, chosen)
        state.store.set(TOOL_CATEGORIES, tools)  # the oracle takes the same ablation
        return state

    return solve


async def end_session(state: TaskState) -> None:
    """The task's cleanup, however the sample ended: its session is freed for the next sample."""
    close_session(state.uuid)


@solver(name=registered("function_calling"))
@unprefixed
def function_calling() -> Solver:
    """The model calls the CRMArena tools until it calls ``respond`` (or runs out of turns: no answer)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        tools = [tool for tool in state.tools if ToolDef(tool).name != RESPOND]
        agent = react(
            prompt=None,
            tools=tools,
            submit=AgentSubmit(tool=respond_tool(), answer_only=True, keep_in_messages=True),
            on_continue=prompts.text("reminder_tools"),
        )
        agent_state = AgentState(messages=state.messages)
        try:
            async with span(name="function_calling", type="agent"):
                agent_state = await agent(agent_state)
        finally:  # a limit ends the agent: its conversation so far is the sample's, and is scored
            state.messages = agent_state.messages
            if agent_state.output:
                state.output = agent_state.output
        return state

    return solve


@solver(name=registered("oracle"))
@unprefixed
def oracle() -> Solver:
    """The reference solution's tool calls, each run by inspect as a model's would be; its answer is ``respond``'s.
    Like `crmarena eval`'s oracle it has every tool of the session's categories, raw SOQL and SOSL included."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        instance = instance_of(state.metadata)
        chosen = agent_tools("oracle", state.store.get(TOOL_CATEGORIES))
        state.tools = crmarena_tools(session_of(state.uuid), chosen)
        calls = reference_calls(instance)
        call = next(calls)
        while True:
            arguments = json.loads(json.dumps(call.arguments))  # a tool call's arguments are JSON
            tool_call = ToolCall(id=f"call_{call.step}", function=call.name, arguments=arguments)
            state.messages.append(ChatMessageAssistant(content=call.reasoning, tool_calls=[tool_call], model="oracle"))
            executed = await execute_tools(state.messages, state.tools)
            state.messages.extend(executed.messages)
            result = executed.messages[-1]
            if not isinstance(result, ChatMessageTool) or result.error is not None:
                shown = result.error.message if isinstance(result, ChatMessageTool) and result.error else result.text
                raise OracleError(f"instance {instance.idx}, step {call.step} ({call.name}): {shown}")
            if call.name == RESPOND:
                state.output = ModelOutput.from_content(model="oracle", content=result.text)
                return state
            call = calls.send(result.text)

    return solve

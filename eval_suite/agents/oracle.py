"""The oracle: solves each instance from its reference solution the way a model agent would, so that
scoring 100% proves the agents' own tool path answers every task.

Every tool step is a tool call — a name and JSON arguments — through the episode's Toolbox, the
same ``Toolbox.call`` the function-calling agents use (the tool registry, argument handling, error
shaping, org-failure classification). What the oracle knows of a result is only what a model is
shown: the observation text, read back as a Python literal. The few derive steps
(eval_suite.reference.derive) it works out itself from those readings, as a model reasons between calls, and
the answer goes out as a ``respond`` call. Its trajectory is a function-calling conversation. The calls
themselves come from ``reference_calls``, which the inspect_ai oracle solver (eval_suite/integrations/inspect)
runs through inspect's own tool execution.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from fixtures.tasks.model import Instance

from ..errors import InfraError
from ..reference import ReferenceError, resolve
from ..reference.derive import OPERATIONS
from ..tools.toolbox import RESPOND
from .base import Episode, EpisodeContext
from .literals import literal


class OracleError(RuntimeError):
    """A reference solution the agents' tool path cannot follow: a bug of ours, never a score."""


def read_observation(text: str) -> Any:
    """A tool result as a model reads it: the Python literal the observation spells, else the text itself."""
    try:
        return literal(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


@dataclass(frozen=True)
class OracleCall:
    """One tool call of a reference solution: ``step`` its index in the reference, ``reasoning`` the derive
    steps worked out since the call before it (the text of the message that makes the call)."""

    step: int
    name: str
    arguments: dict[str, Any]
    reasoning: str


def reference_calls(instance: Instance) -> Generator[OracleCall, str, None]:
    """The reference solution of ``instance`` as the tool calls a model makes, ``respond`` last. Each call is
    answered by sending back its observation text, all a model is shown; whoever runs the calls (this
    module's Oracle, or the inspect_ai solver) raises OracleError when a call fails."""
    readings: list[Any] = []  # what the oracle knows after each reference step, by step index
    worked_out: list[str] = []  # derive steps since the last call: the reasoning of the next message
    for index, step in enumerate(instance.reference):
        try:
            arguments = resolve(step.get("args", {}), readings)
        except ReferenceError as error:
            raise OracleError(f"instance {instance.idx}, step {index}: {error}") from None
        if "derive" in step:
            readings.append(_derive(instance, index, step["derive"], arguments))
            worked_out.append(f"{step['derive']}({_arguments_text(arguments)}) = {_short(readings[-1])}")
            continue
        name = step.get("tool", "")
        if name == RESPOND:  # a model's answer is text; None is written as the respond schema asks
            content = arguments.get("content")
            arguments = {"content": content if isinstance(content, str) else str(content)}
        observation = yield OracleCall(index, name, arguments, "\n".join(worked_out))
        worked_out = []
        if name == RESPOND:
            return
        readings.append(read_observation(observation))
    raise OracleError(f"instance {instance.idx}: the reference ends without a respond step")


class Oracle:
    name = "oracle"

    def run(self, context: EpisodeContext) -> Episode:
        episode = Episode(messages=[{"role": "user", "content": context.instance.query}])
        try:
            self.solve(context, episode)
        except (InfraError, OracleError) as error:
            error.episode = episode  # type: ignore[union-attr]  # the record keeps the partial conversation
            raise
        return episode

    @staticmethod
    def solve(context: EpisodeContext, episode: Episode) -> None:
        """Run the reference solution as tool calls on ``episode``, ending with its answer."""
        calls = reference_calls(context.instance)
        call = next(calls)
        while True:
            call_id, arguments_text = _ask(episode, call.step, call.name, call.arguments, call.reasoning)
            if call.name == RESPOND:  # read back as the function-calling agent reads its final call
                episode.answer = json.loads(arguments_text)["content"]
                episode.end_reason = {"source": "oracle", "message": "responded", "content": episode.answer}
                return
            observation = context.toolbox.call(call.name, json.loads(arguments_text))
            episode.observation_sizes.append(len(observation.text))
            episode.messages.append({"role": "tool", "tool_call_id": call_id, "content": observation.text})
            if observation.error:
                raise OracleError(
                    f"instance {context.instance.idx}, step {call.step} ({call.name}): {observation.text}"
                )
            call = calls.send(observation.text)


def _derive(instance: Instance, index: int, name: str, arguments: dict[str, Any]) -> Any:
    operation = OPERATIONS.get(name)
    if operation is None:
        raise OracleError(f"instance {instance.idx}, step {index}: unknown derive operation {name!r}")
    try:
        return operation(**arguments)
    except Exception as error:  # a derive that fails on what the tools showed is a reference the path cannot follow
        raise OracleError(f"instance {instance.idx}, step {index} ({name}): {error}") from error


def _ask(episode: Episode, index: int, name: str, arguments: dict[str, Any], reasoning: str) -> tuple[str, str]:
    """Append the assistant turn calling ``name``, as a model writes it; its call id and JSON arguments."""
    call_id, arguments_text = f"call_{index}", json.dumps(arguments, ensure_ascii=False)
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments_text}}
    episode.messages.append({"role": "assistant", "content": reasoning or None, "tool_calls": [call]})
    episode.turns += 1
    return call_id, arguments_text


def _arguments_text(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{key}={_short(value)}" for key, value in arguments.items())


def _short(value: Any, limit: int = 120) -> str:
    """A value as a trajectory shows a derive step's inputs and result: its repr, long ones elided."""
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."

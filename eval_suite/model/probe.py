"""The capability probe: three small requests at the start of a run find out what the endpoint
really does — native tool calls, ``tool_choice="required"``, several calls in one message, and
``usage`` — so that the run records it and chooses the tool protocol when asked for ``auto``.
Local OpenAI-compatible servers differ exactly here (vLLM without its tool parser, Ollama ignoring
``tool_choice``, llama.cpp without ``--jinja``), and a silent downgrade would skew the results.

``check_endpoint`` runs it (or, for agents without tools, one short request) before any attempt,
with few retries and none after a timeout, so that an endpoint that is down, failing or silent stops
the run within about one ``--timeout`` as an unavailable endpoint (exit 5), never as a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ..errors import AgentError, InfraError
from ..prompts import ENDPOINT_CHECK
from .llm import LLM

START_RETRIES = 2  # retries of the start-of-run check (429, 5xx, a refused connection); never of a timeout

_WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
_SYSTEM = {"role": "system", "content": "You are a test of tool calling. Use the tools you are given."}


@dataclass
class Capabilities:
    native_tools: bool = False
    tool_choice_required: bool = False
    parallel_calls: bool = False
    usage: bool = False
    served_model: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def probe(llm: LLM) -> Capabilities:
    """Ask the three questions; an endpoint that cannot be reached at all raises InfraError."""
    found = Capabilities()

    def ask(prompt: str, tool_choice: str | None) -> list[dict[str, str]] | None:
        messages = [_SYSTEM, {"role": "user", "content": prompt}]
        try:
            completion = llm.complete(messages, tools=[_WEATHER_TOOL], tool_choice=tool_choice, scope="probe")
        except InfraError as error:
            if error.fatal or "refused the request" not in str(error):
                raise
            found.notes.append(f"{tool_choice or 'tools'}: {error}")
            return None
        found.usage = found.usage or completion.usage is not None
        found.served_model = found.served_model or completion.served_model
        return completion.tool_calls

    calls = ask("What is the weather in Paris? Call get_weather.", None)
    found.native_tools = bool(calls)
    if found.native_tools:
        forced = ask("Say hello.", "required")
        found.tool_choice_required = bool(forced)
        several = ask(
            "What is the weather in Paris and in Rome? Call get_weather once for each city, both at once.", None
        )
        found.parallel_calls = several is not None and len(several) >= 2
    return found


class EndpointUnavailable(Exception):
    """The model endpoint cannot be used at all: the run stops before any attempt."""


def check_endpoint(llm: LLM, *, tools: bool, on_retry: Callable[[str], None] | None = None) -> Capabilities | None:
    """The endpoint answers, in time, for this model: the capability probe when the agent calls tools,
    else one short request (skipped when a replay cache stands in for the endpoint). EndpointUnavailable
    says why not."""
    config = replace(llm.config, retries=min(llm.config.retries, START_RETRIES), retry_timeouts=False)
    checker = LLM(config, cache=llm.cache, prices=llm.prices, on_retry=on_retry)
    try:
        if tools:
            return probe(checker)
        if llm.cache is None or llm.cache.mode != "replay":
            LLM(config, prices=llm.prices, on_retry=on_retry).complete([{"role": "user", "content": ENDPOINT_CHECK}])
        return None
    except (InfraError, AgentError) as error:
        raise EndpointUnavailable(
            f"the model endpoint cannot be used for model {llm.config.model!r}: {error}"
        ) from None

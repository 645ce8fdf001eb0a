"""The capability probe: three small requests at the start of a run find out what the endpoint
really does — native tool calls, ``tool_choice="required"``, several calls in one message, and
``usage`` — so that the run records it and chooses the tool protocol when asked for ``auto``.
Local OpenAI-compatible servers differ exactly here (vLLM without its tool parser, Ollama ignoring
``tool_choice``, llama.cpp without ``--jinja``), and a silent downgrade would skew the results.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import InfraError
from .llm import LLM

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
        several = ask("What is the weather in Paris and in Rome? Call get_weather once for each city, both at once.",
                      None)  # fmt: skip
        found.parallel_calls = several is not None and len(several) >= 2
    return found

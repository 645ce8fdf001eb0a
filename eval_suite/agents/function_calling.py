"""Function calling: the model calls the CRMArena tools (``fc``: the 25 task tools; ``fc-sql``: the
25 plus raw SOQL and SOSL, with the org's schema in the prompt) and ends with ``respond``.

Two protocols: ``native`` (the endpoint's tool calls) and ``text`` (for models served without tool
calling: a <tool_call>{json}</tool_call> block in the reply). Arguments that are not valid JSON, an
unknown tool, or a reply without a call come back to the model as an observation or reminder, never
as a crash. With several calls in one message, ``first`` (the original's behaviour) runs the first
and tells the model the others were not run; ``all`` runs them in order.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .. import prompts
from ..model.llm import Completion
from ..prompts.schema import render_schema
from ..tools.toolbox import RESPOND
from .base import Episode, EpisodeContext, TurnLoop, visible_text

PROTOCOLS = ("native", "text")
PARALLEL_POLICIES = ("first", "all")
_TEXT_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL | re.IGNORECASE)
DELIVERED = "Sent to the user."
NOT_RUN = "Not run: only the first tool call of a message is run. Call it again on its own."


class FunctionCalling(TurnLoop):
    def __init__(self, *, sql: bool, protocol: str = "native", parallel: str = "first") -> None:
        if protocol not in PROTOCOLS or parallel not in PARALLEL_POLICIES:
            raise ValueError(f"unknown protocol {protocol!r} or parallel-call policy {parallel!r}")
        self.sql, self.protocol, self.parallel = sql, protocol, parallel
        self.name = "fc-sql" if sql else "fc"

    def opening(self, context: EpisodeContext) -> list[dict[str, Any]]:
        parts = [prompts.text("function_calling")]
        if self.sql:
            parts.append(prompts.text("function_calling_sql"))
        if self.protocol == "text":
            listing = "\n".join(
                json.dumps(tool["function"], ensure_ascii=False) for tool in context.toolbox.openai_tools()
            )
            parts.append(prompts.render("text_tools", tools=listing))
        instance = context.instance
        parts.append(
            prompts.context_block(
                render_schema(context.org) if self.sql else None,
                instance.required,
                instance.optional if context.aided else None,
                context.privacy_aware,
            )
        )
        return [{"role": "system", "content": "\n\n".join(parts)}, {"role": "user", "content": instance.query}]

    def tools(self, context: EpisodeContext) -> list[dict[str, Any]] | None:
        return context.toolbox.openai_tools() if self.protocol == "native" else None

    def act(self, context: EpisodeContext, episode: Episode, completion: Completion) -> None:
        if self.protocol == "native":
            self._act_native(context, episode, completion)
        else:
            self._act_text(context, episode, completion)

    def _act_native(self, context: EpisodeContext, episode: Episode, completion: Completion) -> None:
        episode.messages.append(completion.message())
        if not completion.tool_calls:
            episode.malformed_turns += 1
            episode.messages.append({"role": "user", "content": prompts.text("reminder_tools")})
            return
        for position, call in enumerate(completion.tool_calls):
            if position and self.parallel == "first":
                result = NOT_RUN
            else:
                result = self._run(context, episode, call["name"], call["arguments"])
                if episode.end_reason:
                    return
            episode.messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})

    def _act_text(self, context: EpisodeContext, episode: Episode, completion: Completion) -> None:
        episode.messages.append({"role": "assistant", "content": completion.content or ""})
        found = _TEXT_CALL.search(visible_text(completion.content))
        if not found:
            episode.malformed_turns += 1
            episode.messages.append({"role": "user", "content": prompts.text("reminder_tools")})
            return
        try:
            call = json.loads(found.group(1))
        except json.JSONDecodeError as error:
            call = None
            result = f"Error: the tool call is not valid JSON ({error.msg} at character {error.pos})."
        if call is not None:
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                result = 'Error: a tool call is a JSON object {"name": ..., "arguments": {...}}.'
            else:
                arguments = call.get("arguments", {})
                result = self._run(
                    context, episode, call["name"], arguments if isinstance(arguments, str) else json.dumps(arguments)
                )
                if episode.end_reason:
                    return
                result = f"Result of {call['name']}:\n{result}"
        episode.messages.append({"role": "user", "content": result})

    def hear(self, episode: Episode, text: str) -> None:
        """Close the calls of the message that ended the turn (a request needs a result for each), then the
        user's message."""
        last = episode.messages[-1] if episode.messages else {}
        if self.protocol == "native" and last.get("role") == "assistant":
            for call in last.get("tool_calls") or []:
                done = call["function"]["name"] == RESPOND
                result = DELIVERED if done else NOT_RUN
                episode.messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        super().hear(episode, text)

    def _run(self, context: EpisodeContext, episode: Episode, name: str, arguments_text: str) -> str:
        """Run one call: the observation text, or end the episode when it is ``respond``."""
        try:
            arguments = json.loads(arguments_text) if arguments_text.strip() else {}
        except json.JSONDecodeError as error:
            episode.malformed_turns += 1
            return (
                f"Error: the arguments of {name} are not valid JSON ({error.msg} at character {error.pos}). "
                "Call it again with a JSON object."
            )
        if not isinstance(arguments, dict):
            episode.malformed_turns += 1
            return f"Error: the arguments of {name} must be a JSON object."
        if name == RESPOND:
            content = arguments.get("content")
            episode.answer = content if isinstance(content, str) else json.dumps(content)
            episode.end_reason = {"source": "agent", "message": "responded", "content": episode.answer}
            return ""
        return self.observe(episode, context.toolbox.call(name, arguments).text)

"""ReAct: each reply holds a <thought> and one action, <execute> (a SOQL query or SOSL search the
org answers) or <respond> (the final answer). A reply without a readable action gets a reminder of
the format and still counts as a turn, as in the original."""

from __future__ import annotations

import re
from typing import Any

from .. import prompts
from ..model.llm import Completion
from ..prompts.schema import render_schema
from .base import Episode, EpisodeContext, TurnLoop, visible_text

OBSERVATION_PREFIX = "The org answered:\n"


def _tag(name: str) -> re.Pattern[str]:
    # The closing tag may be missing at the very end of a reply (a stop sequence ate it).
    return re.compile(rf"<{name}>(.*?)(?:</{name}>|\Z)", re.DOTALL | re.IGNORECASE)


EXECUTE, RESPOND = _tag("execute"), _tag("respond")


def system_prompt(strategy: str, context: EpisodeContext) -> str:
    instance = context.instance
    block = prompts.context_block(
        render_schema(context.org),
        instance.required,
        instance.optional if context.aided else None,
        context.privacy_aware,
    )
    return f"{prompts.text(strategy)}\n\n{block}"


class ReAct(TurnLoop):
    name = "react"
    prompt = "react"
    format = "one <thought> ... </thought> followed by one action"

    def opening(self, context: EpisodeContext) -> list[dict[str, Any]]:
        return [
            {"role": "system", "content": system_prompt(self.prompt, context)},
            {"role": "user", "content": context.instance.query},
        ]

    def act(self, context: EpisodeContext, episode: Episode, completion: Completion) -> None:
        episode.messages.append({"role": "assistant", "content": completion.content or ""})
        text = visible_text(completion.content)
        execute = EXECUTE.search(text)
        if execute:  # checked first, as the original does
            observation = context.toolbox.run_query(execute.group(1))
            episode.messages.append(
                {"role": "user", "content": OBSERVATION_PREFIX + self.observe(episode, observation.text)}
            )
            return
        respond = RESPOND.search(text)
        if respond:
            episode.answer = respond.group(1).strip()
            episode.end_reason = {"source": "agent", "message": "responded", "content": episode.answer}
            return
        episode.malformed_turns += 1
        episode.messages.append({"role": "user", "content": prompts.render("reminder_tags", format=self.format)})

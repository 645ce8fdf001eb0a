"""A user simulated by any OpenAI-compatible model (``--user-model``): our own prompt (prompts/user.txt)
gives it a persona and the goal's parts; its calls go through the same LLM client as the agent's (retries,
cache, prices), under a cache scope of their own, and are recorded apart from the agent's."""

from __future__ import annotations

from typing import Any

from .. import prompts
from ..errors import AgentError, InfraError
from ..model.llm import LLM
from .goal import Goal
from .users import STOP, UserTurn, split_stop

OPENING = "(The assistant is listening. Write your first message.)"
DEFAULT_PERSONA = "an employee of the company"


class UserGaveUp(Exception):
    """The user's model could not go on (its context window overflowed): a failure of the user, not the agent."""


def user_prompt(goal: Goal) -> str:
    parts = "\n".join(f"{number}. {part}" for number, part in enumerate(goal.parts, 1))
    return prompts.render("user", persona=goal.persona or DEFAULT_PERSONA, parts=parts, stop=STOP)


class SimulatedUser:
    """The model sees the conversation from the user's side: its own messages as the assistant's, the agent's
    as the user's."""

    def __init__(self, llm: LLM, goal: Goal, *, seed: int | None, scope: str) -> None:
        self.llm, self.seed, self.scope = llm, seed, scope
        self.name = llm.config.model
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": user_prompt(goal)},
            {"role": "user", "content": OPENING},
        ]

    def start(self) -> UserTurn:
        return self._turn()

    def reply(self, agent_text: str) -> UserTurn:
        self.messages.append({"role": "user", "content": agent_text})
        return self._turn()

    def _turn(self) -> UserTurn:
        try:
            completion = self.llm.complete(self.messages, seed=self.seed, scope=self.scope)
        except InfraError as error:
            error.source = "user"
            raise
        except AgentError as error:
            raise UserGaveUp(str(error)) from None
        content = completion.content or ""
        self.messages.append({"role": "assistant", "content": content})
        text, stop = split_stop(content)
        return UserTurn(text, stop=stop, call=completion.call_info(), tool_calls=completion.tool_calls)

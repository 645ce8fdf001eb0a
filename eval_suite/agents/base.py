"""What every agent shares: the episode it produces, the context it runs in, and the turn loop of
the model-driven agents (ask the model, act on its reply, until it answers or runs out of turns)."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from fixtures.tasks.model import Instance

from ..errors import AgentError, Cancelled, InfraError
from ..model.llm import LLM, Completion
from ..tools.toolbox import Toolbox

_THINK = re.compile(r"<think>.*?</think>|^.*?</think>", re.DOTALL)


@dataclass
class Episode:
    """One attempt's conversation and how it ended.

    ``end_reason`` follows the original's ``agent_info.end_reason``: ``source`` is ``agent`` (it
    answered), ``max_turns``, ``context`` (its context window overflowed) or ``oracle``/``baseline``.
    """

    messages: list[dict[str, Any]]
    answer: str | None = None
    end_reason: dict[str, Any] = field(default_factory=dict)
    turns: int = 0
    calls: list[dict[str, Any]] = field(default_factory=list)
    observation_sizes: list[int] = field(default_factory=list)
    malformed_turns: int = 0
    pages: int | None = None  # pages the browser loaded (the UI agents)

    @property
    def answered(self) -> bool:
        return self.end_reason.get("source") in ("agent", "oracle", "baseline")


@dataclass(frozen=True)
class EpisodeContext:
    instance: Instance
    toolbox: Toolbox
    llm: LLM | None
    max_turns: int = 20
    aided: bool = False
    seed: int | None = None
    privacy_aware: bool = False  # --privacy-aware-prompt: the confidentiality notice in the context
    scope: str = ""  # keeps cached responses of different trials apart
    org: str = "service"  # the org type the agent works in: its prompt shows that org's schema
    cancelled: Callable[[], bool] = lambda: False


class Agent(Protocol):
    name: str

    def run(self, context: EpisodeContext) -> Episode: ...


def visible_text(content: str | None) -> str:
    """The reply without a reasoning model's <think> block (kept in the record, not parsed)."""
    return _THINK.sub("", content or "").strip()


class TurnLoop(ABC):
    """The loop of the model-driven agents; subclasses build the opening and act on each reply."""

    name = "turn-loop"

    @abstractmethod
    def opening(self, context: EpisodeContext) -> list[dict[str, Any]]:
        """The system and user messages the episode starts with."""

    def tools(self, context: EpisodeContext) -> list[dict[str, Any]] | None:
        return None

    @abstractmethod
    def act(self, context: EpisodeContext, episode: Episode, completion: Completion) -> None:
        """Append the reply and what it leads to; set ``episode.answer`` and ``end_reason`` to finish."""

    def run(self, context: EpisodeContext) -> Episode:
        return self.advance(context, Episode(messages=self.opening(context)))

    def advance(self, context: EpisodeContext, episode: Episode) -> Episode:
        """Run up to ``max_turns`` model turns on ``episode`` until the model answers (in a conversation, until
        its next message to the user)."""
        if context.llm is None:
            raise ValueError(f"the {self.name} agent needs a model")
        steps = 0
        try:
            while steps < context.max_turns:
                if context.cancelled():
                    raise Cancelled()
                completion = context.llm.complete(
                    episode.messages, tools=self.tools(context), seed=context.seed, scope=context.scope
                )
                episode.turns += 1
                steps += 1
                episode.calls.append(completion.call_info())
                self.act(context, episode, completion)
                if episode.end_reason:
                    return episode
            episode.end_reason = {"source": "max_turns", "message": f"no answer after {context.max_turns} turns"}
        except AgentError as error:
            episode.end_reason = {"source": "context", "message": str(error)}
        except InfraError as error:
            error.episode = episode  # type: ignore[attr-defined]  # the record keeps the partial conversation
            raise
        return episode

    def hear(self, episode: Episode, text: str) -> None:
        """Add the user's next message after the model's last one (a conversation goes on)."""
        episode.messages.append({"role": "user", "content": text})

    @staticmethod
    def observe(episode: Episode, text: str) -> str:
        episode.observation_sizes.append(len(text))
        return text

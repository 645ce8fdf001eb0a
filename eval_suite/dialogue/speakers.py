"""The agent's side of a conversation: the same agents as single-turn runs, each message to the user being
what single-turn calls the answer (the respond tool, a <respond> tag). A model agent's system prompt gains a
short note that the person may give the request in pieces (prompts/interactive.txt); the oracle asks for the
rest of the request until the user has given all of it, then answers with the reference solution."""

from __future__ import annotations

from typing import Protocol

from .. import prompts
from ..agents.base import Episode, EpisodeContext, TurnLoop
from ..agents.oracle import Oracle, OracleError
from ..errors import InfraError
from .goal import Goal, all_given

ASK_FOR_MORE = "Thank you. What else do you need, and in what form should I give the answer?"


class Speaker(Protocol):
    episode: Episode
    source: str  # the end reason's source of an accepted answer: "agent" or "oracle"

    def start(self, first: str) -> None: ...

    def reply(self) -> str | None:
        """The agent's next message to the user; None when it ran out of steps or context without one."""

    def hear(self, text: str) -> None: ...


def interactive_opening(agent: TurnLoop, context: EpisodeContext, first: str) -> Episode:
    """The agent's single-turn opening with the note on conversations, the user's first message in place of
    the query."""
    messages = agent.opening(context)
    system = messages[0]
    messages[0] = {**system, "content": f"{system['content']}\n\n{prompts.text('interactive')}"}
    messages[-1] = {"role": "user", "content": first}
    return Episode(messages=messages)


class ModelSpeaker:
    source = "agent"

    def __init__(self, agent: TurnLoop, context: EpisodeContext) -> None:
        self.agent, self.context = agent, context
        self.episode = Episode(messages=[])

    def start(self, first: str) -> None:
        self.episode = interactive_opening(self.agent, self.context, first)

    def reply(self) -> str | None:
        self.agent.advance(self.context, self.episode)
        if self.episode.end_reason.get("source") != "agent":
            return None
        self.episode.end_reason = {}  # the conversation goes on until the user stops
        return self.episode.answer or ""

    def hear(self, text: str) -> None:
        self.agent.hear(self.episode, text)


class OracleSpeaker:
    source = "oracle"

    def __init__(self, context: EpisodeContext, goal: Goal) -> None:
        self.context, self.goal = context, goal
        self.heard: list[str] = []
        self.episode = Episode(messages=[])

    def start(self, first: str) -> None:
        self.episode = Episode(messages=[{"role": "user", "content": first}])
        self.heard = [first]

    def reply(self) -> str | None:
        if not all_given(self.goal, "\n\n".join(self.heard)):
            self.episode.messages.append({"role": "assistant", "content": ASK_FOR_MORE})
            self.episode.turns += 1
            return ASK_FOR_MORE
        try:
            Oracle.solve(self.context, self.episode)
        except (InfraError, OracleError) as error:
            error.episode = self.episode  # type: ignore[union-attr]
            raise
        self.episode.end_reason = {}
        return self.episode.answer or ""

    def hear(self, text: str) -> None:
        self.heard.append(text)
        self.episode.messages.append({"role": "user", "content": text})


def speaker_for(agent: object, context: EpisodeContext, goal: Goal) -> Speaker:
    if isinstance(agent, TurnLoop):
        return ModelSpeaker(agent, context)
    if isinstance(agent, Oracle):
        return OracleSpeaker(context, goal)
    raise ValueError(f"the {getattr(agent, 'name', agent)} agent cannot hold a conversation")

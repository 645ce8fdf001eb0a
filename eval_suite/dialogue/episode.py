"""One conversation between a simulated user and an agent, and how it ended.

The user speaks first; each agent message (a question or an answer) goes to the user, whose reply goes back
to the agent. The conversation ends when the user stops (the agent's last message is its answer); when the
agent runs out of steps in a turn (``--max-turns``) or of context (no answer: agent_error); or when the user
has spoken ``--max-user-turns`` times without stopping: if the agent's last message was an answer, the user
failed to stop (``never_stopped``), else the agent never answered. A user message that breaks a rule of
checks.py ends it at once as the user's failure. Stop messages do not count as turns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..agents.base import Episode
from ..errors import Cancelled, InfraError
from .checks import BROKE_ROLE, NEVER_STOPPED, UserFailure, check_turn
from .goal import Goal
from .simulated import UserGaveUp
from .speakers import Speaker
from .users import User, UserTurn, is_question

USER_STOPPED, USER_TURNS, AGENT_ENDED, USER_FAILED = "user_stop", "user_turns", "agent", "user_error"


@dataclass
class Dialogue:
    """The conversation as the record keeps it: who said what, the user's model calls, how it ended."""

    user: str
    turns: list[dict[str, Any]] = field(default_factory=list)  # {"speaker": "user"|"agent", "text", "stop"?}
    user_calls: list[dict[str, Any]] = field(default_factory=list)
    end: str = ""
    failure: UserFailure | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)  # earlier conversations a user failure ended
    judge: dict[str, Any] | None = None  # --user-judge's verdict on the user (judge.py)

    @property
    def user_turns(self) -> int:
        return sum(1 for turn in self.turns if turn["speaker"] == "user" and not turn.get("stop"))

    def paid(self) -> list[float | None]:
        """The cost of every model call of the conversation beyond the agent's current ones: the user's calls,
        and the agent's and user's calls of the earlier conversations a user failure ended (None: unpriced)."""
        costs = [call.get("cost") for call in self.user_calls]
        if self.judge is not None:
            costs.append(self.judge["call"].get("cost"))
        for earlier in self.attempts:
            costs += [call.get("cost") for call in earlier["calls"] + earlier["user_calls"]]
        return costs

    def to_json(self) -> dict[str, Any]:
        costs = [call.get("cost") for call in self.user_calls]
        usage = {
            key: sum((call.get("usage") or {}).get(key) or 0 for call in self.user_calls)
            for key in ("prompt_tokens", "completion_tokens", "total_tokens")
        }
        return {
            "mode": "multi",
            "user": self.user,
            "end": self.end,
            "user_turns": self.user_turns,
            "turns": self.turns,
            "user_error": self.failure.to_json() if self.failure else None,
            "user_calls": self.user_calls,
            "user_usage": usage if self.user_calls else None,
            "user_cost": None if any(cost is None for cost in costs) else sum(costs),
            "earlier": self.attempts,
            "judge": self.judge,
            "extra_costs": self.paid(),
        }


def converse(
    speaker: Speaker, user: User, goal: Goal, max_user_turns: int, cancelled: Callable[[], bool]
) -> tuple[Episode, Dialogue]:
    """Run the conversation; the agent's episode (its answer set when the user accepted one) and the dialogue.
    An InfraError (agent, org or user endpoint) carries both as ``episode`` and ``dialogue``."""
    dialogue = Dialogue(user=user.name)
    try:
        _run(speaker, user, goal, max_user_turns, cancelled, dialogue)
    except InfraError as error:
        error.episode = speaker.episode  # type: ignore[attr-defined]
        error.dialogue = dialogue  # type: ignore[attr-defined]
        raise
    return speaker.episode, dialogue


def _run(
    speaker: Speaker,
    user: User,
    goal: Goal,
    max_user_turns: int,
    cancelled: Callable[[], bool],
    dialogue: Dialogue,
) -> None:
    episode_of = lambda: speaker.episode  # noqa: E731  # the speaker replaces its episode on start
    turn = _hear(user.start, (), dialogue, goal, "")
    if turn is None:
        return _fail(episode_of(), dialogue)
    if turn.stop:
        dialogue.failure = UserFailure(BROKE_ROLE, "the user stopped before saying what it wanted")
        return _fail(episode_of(), dialogue)
    speaker.start(turn.text)
    agent_said: list[str] = []
    while True:
        if cancelled():
            raise Cancelled()
        text = speaker.reply()
        episode = episode_of()
        if text is None:  # out of steps or context: the episode keeps the agent's end reason
            episode.answer = None
            dialogue.end = AGENT_ENDED
            return None
        dialogue.turns.append({"speaker": "agent", "text": text})
        agent_said.append(text)
        turn = _hear(user.reply, (text,), dialogue, goal, "\n".join(agent_said))
        if turn is None:
            return _fail(episode, dialogue)
        if turn.stop:
            episode.answer = text
            episode.end_reason = {"source": speaker.source, "message": "answered; the user stopped", "content": text}
            dialogue.end = USER_STOPPED
            return None
        if dialogue.user_turns > max_user_turns:
            dialogue.turns[-1]["over_limit"] = True
            if not is_question(text):
                dialogue.failure = UserFailure(
                    NEVER_STOPPED, f"the user did not stop after {max_user_turns} turns though the agent answered"
                )
                return _fail(episode, dialogue)
            episode.answer = None
            episode.end_reason = {
                "source": "user_turns",
                "message": f"no answer within {max_user_turns} user turns (--max-user-turns)",
            }
            dialogue.end = USER_TURNS
            return None
        speaker.hear(turn.text)


def _hear(
    say: Callable[..., UserTurn], arguments: tuple[str, ...], dialogue: Dialogue, goal: Goal, agent_said: str
) -> UserTurn | None:
    """The user's next turn, recorded; None when it breaks a rule (``dialogue.failure`` says which)."""
    try:
        turn = say(*arguments)
    except UserGaveUp as error:
        dialogue.failure = UserFailure(BROKE_ROLE, f"the user's model could not go on: {error}")
        return None
    if turn.call is not None:
        dialogue.user_calls.append(turn.call)
    dialogue.turns.append({"speaker": "user", "text": turn.text, "stop": turn.stop})
    dialogue.failure = check_turn(turn, goal, agent_said)
    return None if dialogue.failure else turn


def _fail(episode: Episode, dialogue: Dialogue) -> None:
    assert dialogue.failure is not None
    episode.answer = None
    episode.end_reason = {"source": "user", "message": dialogue.failure.message}
    dialogue.end = USER_FAILED

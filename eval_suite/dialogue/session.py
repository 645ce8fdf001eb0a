"""An attempt's conversation as the run sets it up: the goal from the instance, the user (scripted or a
model), the agent's side, and — with ``--user-retries`` — a fresh user seed after a user failure, the failed
conversations kept in the record."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..agents.base import Episode, EpisodeContext
from ..model.llm import LLM
from .episode import Dialogue, converse
from .goal import goal_of
from .judge import judge_user
from .scripted import ScriptedUser
from .simulated import SimulatedUser
from .speakers import speaker_for
from .users import User

SCRIPTED = "scripted"


@dataclass(frozen=True)
class DialogueSettings:
    user: str  # "scripted", or the user model's name
    user_llm: LLM | None  # None: the scripted user
    max_user_turns: int = 10
    user_retries: int = 0
    user_judge: LLM | None = None  # --user-judge: a model's verdict on the user, kept beside the rules


def user_seed(seed: int | None, retry: int) -> int | None:
    """The user model's seed for a retry: the attempt's seed the first time, a derived one after a failure."""
    if seed is None or retry == 0:
        return seed
    return int.from_bytes(hashlib.sha256(f"{seed}:user:{retry}".encode()).digest()[:4], "big")


def run_dialogue(settings: DialogueSettings, agent: object, context: EpisodeContext) -> tuple[Episode, Dialogue]:
    goal = goal_of(context.instance)
    earlier = []
    for retry in range(settings.user_retries + 1):
        user: User
        if settings.user_llm is None:
            user = ScriptedUser(goal)
        else:
            scope = f"{context.scope}:user" + (f":{retry}" if retry else "")
            user = SimulatedUser(settings.user_llm, goal, seed=user_seed(context.seed, retry), scope=scope)
        episode, dialogue = converse(
            speaker_for(agent, context, goal), user, goal, settings.max_user_turns, context.cancelled
        )
        if dialogue.failure is None or retry == settings.user_retries:
            break
        earlier.append({**dialogue.to_json(), "traj": episode.messages, "calls": episode.calls})
    dialogue.attempts = earlier
    if settings.user_judge is not None and dialogue.failure is None:
        dialogue.judge = judge_user(settings.user_judge, goal, dialogue.turns, context.scope)
    return episode, dialogue

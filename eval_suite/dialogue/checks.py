"""Rules that catch a simulated user failing at its role, so that its failure is never scored against the
agent (status ``user_error``). Each rule looks at one user message against the goal and what the agent has
said so far; a user that never stops is caught by the episode loop (episode.py).

- ``broke_role``: the user acts as the assistant (tool calls, query or action tags, offers of help) or talks
  about being a model or a simulation; or sends nothing.
- ``leaked_answer``: the user says the gold answer before the agent has said it (answers of one or two
  characters, such as a state code, are too short to tell from ordinary words and are not checked).
- ``contradicted_goal``: the user states a record Id or a date that neither the goal nor the agent gave.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .goal import Goal
from .users import UserTurn

NEVER_STOPPED, BROKE_ROLE, LEAKED_ANSWER, CONTRADICTED_GOAL = (
    "never_stopped",
    "broke_role",
    "leaked_answer",
    "contradicted_goal",
)
_ROLE_BREAKS = (
    re.compile(r"\bas an ai\b", re.IGNORECASE),
    re.compile(r"\b(?:i am|i'm) (?:just )?(?:an? )?(?:ai|language model|chatbot|bot|virtual assistant)\b", re.I),
    re.compile(r"\blanguage model\b", re.IGNORECASE),
    re.compile(r"\b(?:this|the) (?:simulation|role[- ]?play)\b", re.IGNORECASE),
    re.compile(r"\bhow (?:can|may) i (?:help|assist)\b", re.IGNORECASE),
    re.compile(r"<(?:execute|respond|tool_call|thought)>", re.IGNORECASE),
    re.compile(r"\bSELECT\b[\s\S]+\bFROM\b"),
    re.compile(r"\bFIND\s*\{"),
)
_RECORD_ID = re.compile(r"\b(?=[A-Za-z0-9]*\d[A-Za-z0-9]*\d[A-Za-z0-9]*\d)[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?\b")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


@dataclass(frozen=True)
class UserFailure:
    rule: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "message": self.message}


def check_turn(turn: UserTurn, goal: Goal, agent_said: str) -> UserFailure | None:
    """The first rule this user message breaks, if any."""
    if turn.tool_calls:
        return UserFailure(BROKE_ROLE, f"the user called a tool ({turn.tool_calls[0].get('name')})")
    if not turn.text.strip() and not turn.stop:
        return UserFailure(BROKE_ROLE, "the user sent an empty message")
    for pattern in _ROLE_BREAKS:
        found = pattern.search(turn.text)
        if found:
            return UserFailure(BROKE_ROLE, f"the user spoke as an assistant or a model: {found.group(0)[:80]!r}")
    if leaked(turn.text, goal, agent_said):
        return UserFailure(LEAKED_ANSWER, f"the user said the answer {goal.answer!r} before the agent did")
    known = " ".join([goal.text, agent_said, *(str(value) for value in goal.facts.values())])
    for pattern, what in ((_RECORD_ID, "record Id"), (_DATE, "date")):
        for found in pattern.finditer(turn.text):
            if found.group(0) not in known:
                message = f"the user gave a {what} its goal does not hold: {found.group(0)}"
                return UserFailure(CONTRADICTED_GOAL, message)
    return None


def leaked(text: str, goal: Goal, agent_said: str) -> bool:
    answer = (goal.answer or "").strip()
    if len(answer) < 3 or answer == "None":
        return False
    pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(answer)}(?![A-Za-z0-9])", re.IGNORECASE)
    return bool(pattern.search(text)) and not pattern.search(goal.text) and not pattern.search(agent_said)

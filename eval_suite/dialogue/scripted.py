"""The scripted user (``--user scripted``, the default): deterministic, for CI and debugging. It gives the
goal's parts in order, one a turn, whatever the agent says in between; once all are given, it answers a
question from the goal's facts and takes anything else as the answer, and stops."""

from __future__ import annotations

import re

from .goal import Goal
from .users import UserTurn, is_question

THANKS = "Thank you, that is what I needed."
NOTHING_MORE = "That is all I can tell you: everything I know is in what I said. Please answer as best you can."

# Which words of a question point at which fact, and how the user says it.
_FACTS: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = (
    (
        ("period", "when", "date range", "dates", "time frame", "timeframe", "window"),
        ("start", "end"),
        "The period runs from {start} up to {end} (not included).",
    ),
    (
        ("minimum", "threshold", "how many cases", "at least", "more than"),
        ("min_cases",),
        "The threshold is {min_cases} cases.",
    ),
    (("today", "current date", "as of"), ("today",), "Today is {today}."),
    (("product",), ("product_id",), "The product Id is {product_id}."),
    (("case",), ("case_id",), "The case Id is {case_id}."),
    (("subject",), ("subject",), "The subject is: {subject}"),
    (("description", "details"), ("description",), "The description is: {description}"),
)
# Facts the user may give though the query does not spell them: the question's own frame (its period,
# threshold and day), never a record Id the query leaves out.
_FRAME = frozenset({"start", "end", "min_cases", "today"})


class ScriptedUser:
    name = "scripted"

    def __init__(self, goal: Goal) -> None:
        self.goal = goal
        self.given = 0

    def start(self) -> UserTurn:
        self.given = 1
        return UserTurn(self.goal.parts[0])

    def reply(self, agent_text: str) -> UserTurn:
        if self.given < len(self.goal.parts):
            self.given += 1
            return UserTurn(self.goal.parts[self.given - 1])
        if is_question(agent_text):
            return UserTurn(self.answer(agent_text))
        return UserTurn(THANKS, stop=True)

    def answer(self, question: str) -> str:
        """The facts the question asks about that the user knows, else a reminder that it knows no more."""
        asked = question.lower()
        said = []
        for words, keys, sentence in _FACTS:
            if any(re.search(rf"\b{re.escape(word)}", asked) for word in words) and self._may_say(keys):
                said.append(sentence.format(**{key: self.goal.facts[key] for key in keys}))
        return " ".join(said) if said else NOTHING_MORE

    def _may_say(self, keys: tuple[str, ...]) -> bool:
        query = self.goal.text
        for key in keys:
            value = self.goal.facts.get(key)
            if value is None or str(value) == self.goal.answer:
                return False
            if key not in _FRAME and str(value) not in query:
                return False
        return True

"""The user's goal: an instance's query cut into the parts a person would say one after the other
(the request first, then the details and the form of the answer), with the facts behind it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fixtures.tasks.model import Instance

MAX_PARTS = 4  # longer queries are merged from the end, so that any goal is given within a few turns
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z\"'(])")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Goal:
    """What the user wants: ``parts`` in the order they are given; ``facts`` the instance's params the user
    may repeat when asked (never the answer); ``answer`` the gold answer, for the leak rule alone."""

    parts: tuple[str, ...]
    persona: str | None
    facts: dict[str, Any] = field(default_factory=dict)
    answer: str | None = None

    @property
    def text(self) -> str:
        return "\n\n".join(self.parts)


def split_query(query: str, max_parts: int = MAX_PARTS) -> tuple[str, ...]:
    """The query's sentences and blocks, in order: a paragraph of prose is cut at its sentence ends, a
    block (a markdown heading or list) stays whole; parts past ``max_parts`` join the last one."""
    parts: list[str] = []
    for paragraph in re.split(r"\n\s*\n", query.strip()):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if paragraph.startswith(("#", "-", "*")) or "\n" in paragraph:
            parts.append(paragraph)
        else:
            parts.extend(sentence.strip() for sentence in _SENTENCE_END.split(paragraph) if sentence.strip())
    if len(parts) > max_parts:
        parts = [*parts[: max_parts - 1], "\n\n".join(parts[max_parts - 1 :])]
    return tuple(parts) or (query,)


def goal_of(instance: Instance) -> Goal:
    return Goal(split_query(instance.query), instance.persona, dict(instance.params), instance.answer)


def normalized(text: str) -> str:
    """Text compared the way a reader compares it: whitespace collapsed, case kept."""
    return _SPACE.sub(" ", text).strip()


def all_given(goal: Goal, heard: str) -> bool:
    """Whether every part of the goal appears, word for word, in what the user has said."""
    said = normalized(heard)
    return all(normalized(part) in said for part in goal.parts)

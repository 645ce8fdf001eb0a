"""What a simulated user is to the episode loop: it opens the conversation and answers each of the agent's
messages with a turn, which may be its stop signal."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

STOP = "[[END]]"  # the token a user writes to end the conversation (in our prompt and the scripted user alike)


@dataclass
class UserTurn:
    """One message of the user: ``stop`` when it ends the conversation; ``call`` what the model call behind it
    cost (None for the scripted user); ``tool_calls`` any tool call a model user made (a broken role)."""

    text: str
    stop: bool = False
    call: dict[str, Any] | None = None
    tool_calls: list[dict[str, str]] = field(default_factory=list)


class User(Protocol):
    name: str

    def start(self) -> UserTurn: ...

    def reply(self, agent_text: str) -> UserTurn: ...


# A closing offer after an answer ("Anything else I can help with?") does not make the answer a question.
_OFFER = re.compile(
    r"anything else|something else|help (?:you )?with|further (?:help|assistance|questions)|other questions",
    re.IGNORECASE,
)
_LAST_SENTENCE = re.compile(r"([^.!?\n]*)\?\s*$")


def is_question(text: str) -> bool:
    """Whether a message of the agent asks rather than answers: its last sentence ends with a question mark
    and is not a closing offer of more help."""
    visible = re.sub(r"<think>.*?</think>", "", text or "", flags=re.DOTALL).strip()
    last = _LAST_SENTENCE.search(visible)
    return last is not None and not _OFFER.search(last.group(1))


def split_stop(text: str) -> tuple[str, bool]:
    """A model user's message without the stop token, and whether it held one."""
    if STOP in text:
        return text.replace(STOP, "").strip(), True
    return text.strip(), False

"""The optional judge of the simulated user (``--user-judge MODEL``): after a conversation the rules of
checks.py let through, a model reads it with the goal and the gold answer and says whether the user kept
its role. Its verdict is kept beside the rules in the record (``dialogue.judge``) and never changes the
status: the rules alone decide ``user_error``; the judge shows where they may have missed one."""

from __future__ import annotations

import re
from typing import Any

from .. import prompts
from ..errors import InfraError
from ..model.llm import LLM
from .goal import Goal

_VERDICT = re.compile(r"VERDICT:\s*(ok|user_error)\b[\s:,.-]*(.*)", re.IGNORECASE)


def judge_user(llm: LLM, goal: Goal, turns: list[dict[str, Any]], scope: str) -> dict[str, Any]:
    """The judge's verdict (``ok``, ``user_error`` or None when its reply cannot be read), reason, raw reply and
    the call's cost."""
    conversation = "\n".join(f"{turn['speaker'].upper()}: {turn['text']}" for turn in turns)
    parts = "\n".join(f"{number}. {part}" for number, part in enumerate(goal.parts, 1))
    prompt = prompts.render("user_judge", parts=parts, answer=str(goal.answer), conversation=conversation)
    try:
        completion = llm.complete([{"role": "user", "content": prompt}], scope=f"user-judge:{scope}")
    except InfraError as error:
        error.source = "judge"
        raise
    found = _VERDICT.search(completion.content or "")
    return {
        "model": llm.config.model,
        "verdict": found.group(1).lower() if found else None,
        "reason": found.group(2).strip() if found else None,
        "raw": completion.content,
        "call": completion.call_info(),
    }

"""Act: ReAct without the thought; each reply is one <execute> or <respond> action."""

from __future__ import annotations

from .react import ReAct


class Act(ReAct):
    name = "act"
    prompt = "act"
    format = "exactly one action"

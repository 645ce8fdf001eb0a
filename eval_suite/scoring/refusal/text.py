"""The reply as the rules read it: without reasoning, with plain quotes and dashes and single spaces; its sentences
and clauses."""

from __future__ import annotations

import re

# A reasoning model's thoughts are not the reply.
THINK = re.compile(r"<think>.*?</think>", re.DOTALL)

SENTENCE = re.compile(r"(?<!\bmr\.)(?<!\bms\.)(?<!\bmrs\.)(?<!\bdr\.)(?<=[.!?;])\s|\(\d\)", re.IGNORECASE)

# The parts of a sentence a contrast or a colon begins: "…, but it was one of our two seattle locations".
CLAUSE = re.compile(r"(?<=:)\s|,? (?=\b(?:but|though|however|although|that said|still|anyway)\b)", re.IGNORECASE)

# Where a clause an announcer brings in ends: "…, so", "…, which", a semicolon, a dash.
CLAUSE_END = re.compile(r",? (?:so|and so|which|but)\b|;| - ")


def normal(reply: str, lower: bool = True, lines: bool = False) -> str:
    """The reply without reasoning, with plain quotes and dashes and single spaces (line breaks kept as ". " when
    ``lines``), lower-cased unless asked not to."""
    text = THINK.sub(" ", reply)
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = text.replace("‐", "-").replace("–", "-").replace("—", " - ")
    text = re.sub(r"\*\*|__|(?<=\w)\*|\*(?=\w)", "", text)
    if lines:
        text = re.sub(r"\s*\n\s*", ". ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text.lower() if lower else text

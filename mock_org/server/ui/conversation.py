"""Long text read as what it is: a chat transcript as turns, an email thread as messages, a knowledge
answer as paragraphs and lists. Plain data out; the templates escape it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .display import html_text

# "[2020-01-05T19:51:15] Joseph Alvarado (Customer): Hi, …" — one line per turn of a CRMArena chat.
_TURN = re.compile(r"^\[(?P<when>[^\]]+)\]\s*(?P<speaker>[^:(]+?)\s*(?:\((?P<role>[^)]*)\))?:\s?(?P<text>.*)$")
_NUMBERED = re.compile(r"^\d+[.)]\s+")
_BULLET = re.compile(r"^[-*•]\s+")


@dataclass
class Turn:
    speaker: str
    role: str  # "agent", "customer", or "system" for lines that are not a turn
    when: str
    text: str


def chat_turns(body: str | None) -> list[Turn]:
    """The turns of a chat transcript's Body; a line that starts no turn continues the last one."""
    turns: list[Turn] = []
    for line in html_text(body or "").splitlines():
        match = _TURN.match(line.strip())
        if match:
            role = (match["role"] or "").strip().lower()
            turns.append(
                Turn(
                    match["speaker"], role if role in ("agent", "customer") else "system", match["when"], match["text"]
                )
            )
        elif line.strip() and turns:
            turns[-1].text += "\n" + line.strip()
        elif line.strip():
            turns.append(Turn("", "system", "", line.strip()))
    return turns


@dataclass
class Block:
    kind: str  # "p", "ol" or "ul"
    lines: list[str] = field(default_factory=list)


def article_paragraphs(text: str | None) -> list[list[Block]]:
    """A knowledge answer as paragraphs, each a run of plain lines and lists (numbered or bulleted lines).
    Each line keeps its number or bullet as written ("2. Rinse…"): the page shows the article's text as
    stored, so a reader quoting it (or counting its characters) reads what the article says, not a browser's
    own list markers."""
    paragraphs: list[list[Block]] = []
    for paragraph in re.split(r"\n\s*\n", html_text(text or "").strip()):
        blocks: list[Block] = []
        for line in (line.strip() for line in paragraph.splitlines()):
            kind = "ol" if _NUMBERED.match(line) else "ul" if _BULLET.match(line) else "p"
            if line and (not blocks or blocks[-1].kind != kind):
                blocks.append(Block(kind))
            if line:
                blocks[-1].lines.append(line)
        if blocks:
            paragraphs.append(blocks)
    return paragraphs

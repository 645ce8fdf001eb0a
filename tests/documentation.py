"""The project's documentation as the docs tests read it: the README and every page of docs/.

The README is the front page (at most ~200 lines) and links to the pages; a command, flag or variable
counts as documented when one of them states it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def pages() -> list[Path]:
    """The README first, then every page of docs/ by name."""
    return [README, *sorted(DOCS.glob("*.md"))]


def text() -> str:
    """All of the documentation as one text; pages are separated by a blank line, so no table runs on."""
    return "\n\n".join(path.read_text(encoding="utf-8") for path in pages())


def prose(markdown: str) -> str:
    """The text outside fenced code blocks, where a `#` starts a shell comment, not a heading."""
    return _FENCE.sub("", markdown)


def anchor(heading: str) -> str:
    """The fragment GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {anchor(title) for title in re.findall(r"^#{1,6} (.+)$", prose(path.read_text(encoding="utf-8")), re.M)}


def links(path: Path) -> list[str]:
    """Every link and image target of a page, outside code blocks."""
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", prose(path.read_text(encoding="utf-8")))

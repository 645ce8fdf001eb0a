"""Readers for the hand-written case files in cases/ (one format per kind of file)."""

from __future__ import annotations

import json
from pathlib import Path

CASES = Path(__file__).parent / "cases"


def lines(name: str) -> list[str]:
    """One query per line; `#` comments and blank lines skipped."""
    text = (CASES / name).read_text(encoding="utf-8")
    return [line for line in text.split("\n") if line.strip() and not line.lstrip().startswith("#")]


def blocks(name: str) -> list[str]:
    """Queries of one or more lines, separated by blank lines; `#` comment lines skipped."""
    queries, current = [], []
    for line in (CASES / name).read_text(encoding="utf-8").split("\n"):
        if line.lstrip().startswith("#"):
            continue
        if line.strip():
            current.append(line)
        elif current:
            queries.append("\n".join(current))
            current = []
    if current:
        queries.append("\n".join(current))
    return queries


def records(name: str) -> list[dict]:
    """JSON Lines: {"query", "line", "column", "message"}."""
    text = (CASES / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line.strip()]

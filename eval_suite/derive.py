"""Derive operations: the few pure steps a reference solution needs that no CRMArena tool offers
(picking the one answer from a list, counting with zeros, reading a span of an article, the date
arithmetic of a policy check). Oracle-only: agents are never given them. docs/tasks.md lists them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import date
from typing import Any

from eval_suite.tools.soql import ToolError, api_moment, quote

CHAT_LINE = re.compile(r"\[(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\] .+? \((Customer|Agent)\): (.*)")
REMEDY = re.compile(r"^\s*\d+\.\s+(?P<name>[^:\n]+?):\s.*?available for (?P<days>\d+) days", re.M)


def the_one(values: list[Any]) -> Any:
    """The answer a tie-keeping helper produced: None for an empty list, its element for a list of one."""
    if not values:
        return None
    if len(values) > 1:
        raise ToolError(f"expected one value, got a tie: {values}")
    return values[0]


def pick(records: list[dict[str, Any]], field: str, equals: Any) -> dict[str, Any]:
    """The first record whose ``field`` equals ``equals``."""
    for record in records:
        if record.get(field) == equals:
            return record
    raise ToolError(f"no record has {field} = {equals!r}")


def span(text: str, start: int, end: int) -> str:
    """Characters [start, end) of a text once its HTML entities are decoded (how an article reads)."""
    return html.unescape(text)[start:end]


def count_by(records: list[dict[str, Any]], field: str, keys: list[str]) -> dict[str, int]:
    """How many records carry each of ``keys`` in ``field`` (zero for a key none carries)."""
    counts = dict.fromkeys(keys, 0)
    for record in records:
        if record.get(field) in counts:
            counts[record[field]] += 1
    return counts


def soql(template: str, values: list[Any]) -> str:
    """A SOQL statement with {0}, {1}, … replaced by the values as quoted string literals."""
    return template.format(*(quote(value) for value in values))


def policy_remedies(articles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The solutions policy articles list ('N. Name: … available for D days …'), with their article."""
    found = []
    for article in articles:
        for match in REMEDY.finditer(html.unescape(article.get("Content") or "")):
            found.append(
                {"name": match.group("name").strip(), "days": int(match.group("days")), "article_id": article["Id"]}
            )
    return found


def _agent_messages(transcripts: list[dict[str, Any]], emails: list[dict[str, Any]]) -> list[tuple[str, str]]:
    said = []
    for transcript in transcripts:
        for line in (transcript.get("Body") or "").split("\n"):
            match = CHAT_LINE.fullmatch(line)
            if match and match.group(2) == "Agent":
                said.append((match.group(1), html.unescape(match.group(3))))
    for email in emails:
        if email.get("Incoming") is False and email.get("MessageDate"):
            said.append((api_moment(email["MessageDate"]).strftime("%Y-%m-%dT%H:%M:%S"), email.get("TextBody") or ""))
    return sorted(said, key=lambda item: item[0])


def first_offer(
    transcripts: list[dict[str, Any]], emails: list[dict[str, Any]], remedies: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The first agent message (chat line or sent email) naming a listed solution: that solution and the day."""
    for moment, text in _agent_messages(transcripts, emails):
        lowered = text.lower()
        named = {
            (remedy["name"], remedy["article_id"]): remedy for remedy in remedies if remedy["name"].lower() in lowered
        }
        if len(named) > 1:
            raise ToolError(f"the message at {moment} names several solutions: {sorted(name for name, _ in named)}")
        if named:
            return {**next(iter(named.values())), "offered_on": moment[:10]}
    return None


def days_between(start: str | None, end: str | None) -> int | None:
    """Whole days from the date of ``start`` to the date of ``end`` (dates or datetimes, UTC)."""
    if start is None or end is None:
        return None
    return (date.fromisoformat(end[:10]) - date.fromisoformat(start[:10])).days


def past_window(days: int | None, offer: dict[str, Any] | None) -> str | None:
    """The breached article when the offer came more days after the order than its window allows."""
    if offer is None or days is None:
        return None
    return offer["article_id"] if days > offer["days"] else None


OPERATIONS: dict[str, Callable[..., Any]] = {
    operation.__name__: operation
    for operation in (the_one, pick, span, count_by, soql, policy_remedies, first_offer, days_between, past_window)
}

"""The UI oracle's policy review: what a person auditing a case reads in the pages — the case (its issue, order
line, chats and emails), the order behind it, and the policy articles — put into the records the reference's
own policy review (``eval_suite.reference.derive.policy_review``) checks. Nothing comes from the API: every
value is read off a page, the chat and email times converted back to UTC from the zone the page names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..reference.derive import policy_review as review
from ..tools.soql import ToolError
from .oracle import OracleError
from .ui_pages import Pages, article_text, text_of

# The zones Lightning names in its datetimes (the org's users are in US zones); an offset name ("+03") also reads.
ZONE_HOURS = {"UTC": 0, "GMT": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8}
ZONE_HOURS |= {"PDT": -7, "AKST": -9, "AKDT": -8, "HST": -10}
_LOCAL = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4}), (\d{1,2}):(\d{2}) (AM|PM) (\S+)$")
_OFFSET = re.compile(r"^([+-])(\d{2}):?(\d{2})?$")
_NODE = re.compile(r"^(\t*)(?:\[\d+\] )?(\S+) ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")(.*)$")
_RECORD_URL = re.compile(r"url='[^']*/lightning/r/(\w+)/(\w{15,18})/view'")
SEARCH_POLICIES = "counted effective date"  # words every solution line of a policy article has


@dataclass
class Node:
    depth: int
    role: str
    name: str
    record: tuple[str, str] | None  # (object, Id) of a record link


def nodes(tree: str) -> list[Node]:
    found = []
    for line in tree.splitlines():
        match = _NODE.match(line)
        if match:
            link = _RECORD_URL.search(match.group(4))
            found.append(
                Node(
                    len(match.group(1)),
                    match.group(2),
                    text_of(match.group(3)),
                    (link.group(1), link.group(2)) if link else None,
                )
            )
    return found


def subtree(all_nodes: list[Node], role: str, name: str) -> list[Node]:
    """The nodes under the first ``role 'name'`` node (empty when the page has none)."""
    start = next((index for index, node in enumerate(all_nodes) if node.role == role and node.name == name), None)
    if start is None:
        return []
    below = []
    for node in all_nodes[start + 1 :]:
        if node.depth <= all_nodes[start].depth:
            break
        below.append(node)
    return below


def logs(all_nodes: list[Node], name: str) -> list[list[list[Node]]]:
    """Each ``log 'name'`` of the page (a chat's messages, an email thread) as its paragraphs' nodes."""
    found = []
    for index, node in enumerate(all_nodes):
        if node.role != "log" or node.name != name:
            continue
        paragraphs: list[list[Node]] = []
        for later in all_nodes[index + 1 :]:
            if later.depth <= node.depth:
                break
            if later.role == "paragraph":
                paragraphs.append([])
            elif paragraphs:
                paragraphs[-1].append(later)
        found.append(paragraphs)
    return found


def texts(group: list[Node]) -> list[str]:
    return [node.name for node in group if node.role == "StaticText"]


def defined(all_nodes: list[Node], label: str) -> list[Node]:
    """What a field's definition holds (the first field of that label on the page)."""
    for index, node in enumerate(all_nodes):
        if node.role == "term" and node.name == label:
            depth = node.depth
            held = []
            for later in all_nodes[index + 2 :]:  # past the definition node itself
                if later.depth <= depth:
                    break
                held.append(later)
            return held
    return []


def utc_moment(shown: str) -> str:
    """A datetime as the page shows it (``12/19/2020, 5:34 AM PST``) as the API writes it, in UTC."""
    match = _LOCAL.match(shown)
    if not match:
        raise OracleError(f"not a datetime the page writes: {shown!r}")
    month, day, year, hour, minute, half, zone = match.groups()
    offset = _offset_hours(zone)
    moment = datetime(int(year), int(month), int(day), int(hour) % 12 + (12 if half == "PM" else 0), int(minute))
    return (moment - timedelta(hours=offset)).replace(tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def _offset_hours(zone: str) -> float:
    if zone in ZONE_HOURS:
        return ZONE_HOURS[zone]
    match = _OFFSET.match(zone)
    if not match:
        raise OracleError(f"a time zone the UI oracle cannot place: {zone!r}")
    hours = int(match.group(2)) + int(match.group(3) or 0) / 60
    return hours if match.group(1) == "+" else -hours


def money(shown: str) -> float:
    return float(shown.replace("$", "").replace(",", ""))


def us_date(shown: str) -> str:
    month, day, year = (int(part) for part in shown.split("/"))
    return f"{year:04d}-{month:02d}-{day:02d}"


def linked(all_nodes: list[Node], label: str) -> Node | None:
    return next((node for node in defined(all_nodes, label) if node.role == "link" and node.record), None)


def value(all_nodes: list[Node], label: str) -> str:
    return next(iter(texts(defined(all_nodes, label))), "")


def chat_log(case: list[Node]) -> list[dict[str, Any]]:
    """Each chat of the case as a transcript Body: one ``[UTC time] Name (Role): text`` line a turn."""
    transcripts = []
    for paragraphs in logs(case, "Messages"):
        lines, heading = [], None
        for paragraph in paragraphs:
            said = texts(paragraph)
            if len(said) >= 3 and said[1] in ("(Agent)", "(Customer)"):
                heading = f"[{utc_moment(said[2])[:19]}] {said[0]} {said[1]}"
            elif heading is not None:
                lines.append(f"{heading}: {' '.join(said)}")
                heading = None
        transcripts.append({"Body": "\n".join(lines)})
    return transcripts


def email_log(pages: Pages, case_id: str, case: list[Node]) -> list[dict[str, Any]]:
    """The case's emails (time in UTC, text, and whether it came in: the related list's Is Incoming)."""
    incoming = _incoming(case)
    listed = next(
        (node.name for node in case if node.role == "region" and node.name.startswith("Email Messages (")), ""
    )
    if listed and int(listed[len("Email Messages (") : -1]) > len(incoming):
        incoming = _incoming(nodes(pages.open(f"/lightning/r/Case/{case_id}/related/EmailMessages/view")))
    emails: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for paragraph in next(iter(logs(case, "Emails")), []):
        said = texts(paragraph)
        link = next((node.record for node in paragraph if node.role == "link" and node.record), None)
        if "→" in said:
            current = {"MessageDate": utc_moment(said[-1]), "TextBody": ""}
            emails.append(current)
        elif link and link[0] == "EmailMessage" and current is not None:
            if link[1] not in incoming:
                raise OracleError(f"email {link[1]} is not in the case's Email Messages")
            current["Incoming"] = incoming[link[1]]
        elif current is not None:
            current["TextBody"] = " ".join(said)
    return emails


def _incoming(tree: list[Node]) -> dict[str, bool]:
    """Email Id → Is Incoming, from an Email Messages table (its last column)."""
    found: dict[str, bool] = {}
    email_id = None
    for node in tree:
        if node.role == "rowheader":
            email_id = None
        elif node.role == "link" and node.record and node.record[0] == "EmailMessage":
            email_id = node.record[1]
        elif node.role == "cell" and email_id is not None and node.name in ("True", "False"):
            found[email_id] = node.name == "True"
    return found


def policy_articles(pages: Pages) -> list[tuple[str, str]]:
    """(Id, text) of each knowledge article whose lines give solutions and their windows: found by searching the
    Knowledge tab for words every such line has, then read on its page."""
    found = nodes(pages.open("/lightning/search", q=SEARCH_POLICIES, scope="Knowledge__kav"))
    ids = dict.fromkeys(
        node.record[1] for node in found if node.role == "link" and node.record and node.record[0] == "Knowledge__kav"
    )
    return [
        (article_id, article_text(pages.open(f"/lightning/r/Knowledge__kav/{article_id}/view"))) for article_id in ids
    ]


def policy_review(pages: Pages, params: dict[str, Any]) -> str | None:
    case_id = params["case_id"]
    case = nodes(pages.open(f"/lightning/r/Case/{case_id}/view"))
    issue, line = linked(case, "Issue"), linked(case, "Order Item")
    if issue is None or line is None or line.record is None or issue.record is None:
        return None
    item = nodes(pages.open(f"/lightning/r/OrderItem/{line.record[1]}/view"))
    order_link = linked(item, "Order ID")
    if order_link is None or order_link.record is None:
        return None
    order = nodes(pages.open(f"/lightning/r/Order/{order_link.record[1]}/view"))
    order_line = {
        "UnitPrice": money(value(item, "Unit Price") or "0"),
        "Order": {
            "EffectiveDate": us_date(value(order, "Order Start Date")),
            "TotalAmount": money(value(order, "Order Amount") or "0"),
        },
    }
    transcripts, emails = chat_log(case), email_log(pages, case_id, case)
    articles = [{"Id": record_id, "Content": article} for record_id, article in policy_articles(pages)]
    try:
        return review(
            {"IssueId__c": issue.record[1]},
            order_line,
            [{"Id": issue.record[1], "Name": issue.name}],
            transcripts,
            emails,
            articles,
        )
    except ToolError as error:
        raise OracleError(str(error)) from error

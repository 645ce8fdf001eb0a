"""Derive operations: the few pure steps a reference solution needs that no CRMArena tool offers
(picking the one answer from a list, counting with zeros, reading a span of an article, the date
arithmetic of a policy check). Oracle-only: agents are never given them. docs/tasks.md lists them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import date, datetime
from fractions import Fraction
from typing import Any

from eval_suite.tools.soql import ToolError, api_moment, quote
from fixtures.frame import OPEN_STAGES
from fixtures.generate import cpq_rules
from fixtures.generate.sales_insights import call_topics
from fixtures.tasks.grants import granted
from fixtures.tasks.sales import bant
from fixtures.tasks.subtopics import SUBTOPICS, join_subtopics

CHAT_LINE = re.compile(r"\[(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\] .+? \((Customer|Agent)\): (.*)")
SOLUTION = re.compile(r"^\s*\d+\.\s+(?P<name>[^:\n]+?):\s.*?available for (?P<days>\d+) days[^\n]*$", re.M)
MINIMUM = re.compile(r"(?P<what>items priced at|orders totalling) \$(?P<amount>[\d.]+) or more")
GOVERNS = re.compile(r"governs cases about: ([^\n]+)\.", re.M)
GESTURES = "may be added to a case about any issue"


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


def count_by(records: list[dict[str, Any]], field: str, keys: list[str] | None = None) -> dict[str, int]:
    """How many records carry each of ``keys`` in ``field`` (zero for a key none carries); without ``keys``, every
    value the records carry."""
    counts: dict[str, int] = dict.fromkeys(keys, 0) if keys is not None else {}
    for record in records:
        value = record.get(field)
        if value is not None and (keys is None or value in counts):
            counts[value] = counts.get(value, 0) + 1
    return counts


def values(records: list[dict[str, Any]], field: str) -> list[Any]:
    """The ``field`` of every record, in order."""
    return [record.get(field) for record in records]


def at_least(values_by_id: dict[str, Any], counts: dict[str, int], minimum: int) -> dict[str, Any]:
    """The entries whose count is at least ``minimum``."""
    return {key: value for key, value in values_by_id.items() if counts.get(key, 0) >= minimum}


def soql(template: str, values: list[Any]) -> str:
    """A SOQL statement with {0}, {1}, … replaced by the values as quoted string literals."""
    return template.format(*(quote(value) for value in values))


def _policies(articles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each policy article: whether its solutions are gestures, the issues it governs, and its solutions."""
    found = []
    for article in articles:
        text = html.unescape(article.get("Content") or "")
        solutions = {}
        for match in SOLUTION.finditer(text):
            minimum = MINIMUM.search(match.group(0))
            amount = float(minimum.group("amount")) if minimum else None
            solutions[match.group("name").strip().lower()] = {
                "days": int(match.group("days")),
                "item": amount if minimum and minimum.group("what") == "items priced at" else None,
                "order": amount if minimum and minimum.group("what") == "orders totalling" else None,
                "article_id": article["Id"],
            }
        governs = GOVERNS.search(text)
        issues = {name.strip() for name in governs.group(1).split(",")} if governs else set()
        if solutions:
            found.append({"gestures": GESTURES in text, "issues": issues, "solutions": solutions})
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


def policy_review(
    case: dict[str, Any],
    order_line: dict[str, Any],
    issues: list[dict[str, Any]],
    transcripts: list[dict[str, Any]],
    emails: list[dict[str, Any]],
    articles: list[dict[str, Any]],
) -> str | None:
    """The policy review of docs/tasks.md: every solution an agent granted on the case, checked on the day it was
    first granted against the policy that governs the case (or, for a gesture, its gesture policy). Returns the
    broken policy's article Id, or None."""
    policies = _policies(articles)
    issue = next((item["Name"] for item in issues if item.get("Id") == case.get("IssueId__c")), None)
    governing = next((policy for policy in policies if issue in policy["issues"]), None)
    if governing is None:
        raise ToolError(f"no policy article governs the issue {issue!r}")
    order = order_line.get("Order") or {}
    bought = date.fromisoformat(str(order.get("EffectiveDate"))[:10])
    price, total = float(order_line.get("UnitPrice") or 0), float(order.get("TotalAmount") or 0)
    names = sorted({name for policy in policies for name in policy["solutions"]})
    first_day: dict[str, date] = {}
    for moment, text in _agent_messages(transcripts, emails):
        for name in granted(text, names):
            first_day.setdefault(name.lower(), date.fromisoformat(moment[:10]))
    broken = set()
    for name, day in first_day.items():
        rule = governing["solutions"].get(name) or next(
            (policy["solutions"][name] for policy in policies if policy["gestures"] and name in policy["solutions"]),
            None,
        )
        if rule is None:
            broken.add(next(iter(governing["solutions"].values()))["article_id"])
            continue
        cheap = rule["item"] is not None and price < rule["item"]
        cheap = cheap or (rule["order"] is not None and total < rule["order"])
        if (day - bought).days > rule["days"] or cheap:
            broken.add(rule["article_id"])
    if len(broken) > 1:
        raise ToolError(f"several policies are broken: {sorted(broken)}")
    return next(iter(broken), None)


# --- lead_qualification and lead_routing (fixtures/tasks/sales/lead_qualification.py, lead_routing.py) ---


def qualify_lead(calls: list[dict[str, Any]], today: str) -> str | None:
    """The BANT factors a lead does not meet (fixtures/tasks/sales/bant.py) from its calls' CallStartTime__c and
    Body__c, as a list answer; None when it meets all four."""
    held = [(api_moment(call["CallStartTime__c"]), call.get("Body__c") or "") for call in calls]
    return ", ".join(sorted(bant.unmet(held, date.fromisoformat(today)))) or None


def route_lead(
    memberships: list[dict[str, Any]], quote_lines: list[dict[str, Any]], leads: list[dict[str, Any]]
) -> str:
    """The lead routing policy's rep: among the territory's active members (UserId, CreatedDate, User.IsActive),
    the most distinct quotes in ``quote_lines`` (QuoteId, Quote.OwnerId), then the fewest ``leads`` (OwnerId),
    then the earliest assignment."""
    assigned: dict[str, Any] = {}
    for row in memberships:
        if (row.get("User") or {}).get("IsActive"):
            moment = api_moment(row["CreatedDate"])
            assigned[row["UserId"]] = min(moment, assigned.get(row["UserId"], moment))
    quotes: dict[str, set[str]] = {rep: set() for rep in assigned}
    for line in quote_lines:
        owner = (line.get("Quote") or {}).get("OwnerId")
        if owner in quotes:
            quotes[owner].add(line["QuoteId"])
    owned = count_by(leads, "OwnerId", list(assigned))
    keys = {rep: (-len(quotes[rep]), owned[rep], assigned[rep]) for rep in assigned}
    ranked = sorted(keys, key=lambda rep: keys[rep])
    if not ranked or (len(ranked) > 1 and keys[ranked[0]] == keys[ranked[1]]):
        raise ToolError(f"no single rep: {ranked[:2]}")
    return ranked[0]


# --- fixtures/tasks/sales/rep_figures.py: a period's SOQL, days between two dates, per-rep figures


def _field(record: dict[str, Any], path: str) -> Any:
    """A field of a record, through parent relationships for a dotted path ('Contract.CompanySignedDate')."""
    value: Any = record
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def soql_period(template: str, start: str, end: str, kind: str) -> str:
    """A SOQL statement with {start} and {end} replaced by the period's bounds as unquoted literals: datetimes
    ('YYYY-MM-DDTHH:MM:SSZ') or, for a date field, the days of those midnights."""
    bounds = [api_moment(value) for value in (start, end)]
    if kind == "date":
        if any(moment.time() != datetime.min.time() for moment in bounds):
            raise ToolError("a period compared with a date field must start and end at midnight")
        literals = [moment.date().isoformat() for moment in bounds]
    elif kind == "datetime":
        literals = [moment.strftime("%Y-%m-%dT%H:%M:%SZ") for moment in bounds]
    else:
        raise ToolError(f"kind must be 'date' or 'datetime', got {kind!r}")
    return template.format(start=literals[0], end=literals[1])


def day_spans(records: list[dict[str, Any]], since: str, until: str) -> list[dict[str, Any]]:
    """Each record with ``Days``: the days from the date of ``since`` (UTC) to the date of ``until``."""
    spans = []
    for record in records:
        first, last = _field(record, since), _field(record, until)
        if first is None or last is None:
            raise ToolError(f"record {record.get('Id')} has no {since if first is None else until}")
        days = (api_moment(str(last)).date() - api_moment(str(first)).date()).days
        spans.append({**record, "Days": days})
    return spans


def figures_by(records: list[dict[str, Any]], key: str, value: str, statistic: str, minimum: int) -> dict[str, float]:
    """Per ``key``, the ``statistic`` (sum, mean, or share of true values) of ``value`` over its records, for the
    keys with at least ``minimum`` records."""
    groups: dict[str, list[Fraction]] = {}
    for record in records:
        number = _field(record, value)
        groups.setdefault(str(_field(record, key)), []).append(Fraction(str(float(number or 0))))
    if statistic not in ("sum", "mean", "share"):
        raise ToolError(f"statistic must be sum, mean or share, got {statistic!r}")
    return {
        name: float(sum(numbers) if statistic == "sum" else sum(numbers) / len(numbers))
        for name, numbers in groups.items()
        if len(numbers) >= minimum
    }


# fixtures/tasks/sales/insights.py (sales_insight_mining)
def top_subtopics(transcripts: list[dict[str, Any]], k: int) -> str | None:
    """The k sub-topics raised on the most deals (OpportunityId__c) of these calls, dismissed mentions left out,
    sorted and comma-separated; an error when the k-th place is tied."""
    raised: dict[str, set[str]] = {}
    for call in transcripts:
        for topic in call_topics(call.get("Body__c") or "")[0]:
            raised.setdefault(topic, set()).add(call["OpportunityId__c"])
    order = sorted(SUBTOPICS, key=lambda topic: (-len(raised.get(topic, ())), SUBTOPICS.index(topic)))
    counts = [len(raised.get(topic, ())) for topic in order]
    if counts[k - 1] == counts[k] or counts[k - 1] == 0:
        raise ToolError(f"the {k}th place is tied: {dict(zip(order, counts, strict=True))}")
    return join_subtopics(order[:k])


# ---- fixtures/tasks/sales/cpq.py (invalid_config, quote_approval)


def cpq_review(
    quote: dict[str, Any], lines: list[dict[str, Any]], articles: list[dict[str, Any]], category: str
) -> str | None:
    """The CPQ check: the one rule article (of ``category``, config or approval) whose rules in force the quote's
    lines break, or None."""
    rules = {
        article["Id"]: cpq_rules.parse_article(
            article.get("Title") or "", html.unescape(article.get("FAQ_Answer__c") or "")
        )
        for article in articles
    }
    broken = cpq_rules.broken_articles(rules, cpq_rules.quote_view(quote, lines), category)
    if len(broken) > 1:
        raise ToolError(f"the quote breaks several articles: {broken}")
    return broken[0] if broken else None


OPERATIONS: dict[str, Callable[..., Any]] = {
    operation.__name__: operation
    for operation in (
        the_one,
        pick,
        span,
        count_by,
        values,
        at_least,
        soql,
        policy_review,
        qualify_lead,
        route_lead,
        soql_period,
        day_spans,
        figures_by,
        top_subtopics,
        cpq_review,
    )
}


# ---- fixtures/tasks/sales/wrong_stage.py and activity_priority.py

# The work whose record proves a stage (the opportunity stage policy): its words → the stage proven.
STAGE_PROOFS = (
    (("intro call", "introductory call with the buyer", "first call with the buyer"), "Qualification"),
    (
        ("qualify budget and timing", "confirm budget and timing", "check the budget and buying window"),
        "Needs Analysis",
    ),
    (("discovery call", "discovery call on needs", "needs review with the buyer"), "Value Proposition"),
    (("send value summary", "send the value summary", "share the value summary"), "Id. Decision Makers"),
    (
        ("meet the decision makers", "meeting with the buying committee", "present to the decision makers"),
        "Perception Analysis",
    ),
)


def _proves(subject: str | None) -> int:
    text = (subject or "").lower().removeprefix("meeting: ")
    for subjects, stage in STAGE_PROOFS:
        if text in subjects:
            return OPEN_STAGES.index(stage)
    return 0


def furthest_stage(
    deal: dict[str, Any],
    tasks: list[dict[str, Any]],
    events: list[dict[str, Any]],
    calls: list[dict[str, Any]],
    quotes: list[dict[str, Any]],
    today: str,
) -> str | None:
    """The opportunity stage policy: the stage the deal's evidence proves when its own stage is behind it or
    breaks a quote stage's need, else None."""
    last_day = date.fromisoformat(today)
    proofs = [0]
    proofs += [_proves(task.get("Subject")) for task in tasks if task.get("Status") == "Completed"]
    proofs += [
        _proves(event.get("Subject"))
        for event in events
        if event.get("StartDateTime") and api_moment(event["StartDateTime"]).date() <= last_day
    ]
    proofs += [3 for call in calls if api_moment(call["CallStartTime__c"]).date() <= last_day]
    allowed = OPEN_STAGES.index("Perception Analysis")
    if quotes:
        latest = max(quotes, key=lambda quote: (api_moment(quote["CreatedDate"]), quote["Id"]))
        allowed = len(OPEN_STAGES) - 1 if latest.get("Status") in ("Presented", "Accepted") else allowed + 1
        proofs.append(allowed)
    proven, current = max(proofs), OPEN_STAGES.index(deal["StageName"])
    return OPEN_STAGES[proven] if proven > current or current > allowed else None


def _date(value: Any) -> date | None:
    return date.fromisoformat(str(value)[:10]) if value else None


def first_tasks(tasks: list[dict[str, Any]], deals: list[dict[str, Any]], today: str) -> str | None:
    """The activity priority policy: the Ids (comma-separated, sorted) of the tasks on the rep's list of
    ``today`` that come first, or None."""
    last_day = date.fromisoformat(today)
    deal_of = {deal["Id"]: deal for deal in deals}
    first = []
    for task in tasks:
        created = api_moment(task["CreatedDate"]).date()
        completed = api_moment(task["CompletedDateTime"]).date() if task.get("CompletedDateTime") else None
        if created > last_day or (task.get("Status") == "Completed" and completed and completed < last_day):
            continue
        deal = deal_of.get(task.get("WhatId") or "", {})
        close = _date(deal.get("CloseDate"))
        if (deal.get("IsClosed") and close and close < last_day) or task.get("Status") in (
            "Waiting on someone else",
            "Deferred",
        ):
            continue
        due = _date(task.get("ActivityDate"))
        late = (last_day - due).days if due is not None else None
        urgency = {"High": 2, "Normal": 1}.get(task.get("Priority") or "", 0)
        urgency += 3 if late is not None and 1 <= late <= 14 else 0
        urgency += 2 if late is not None and -2 <= late <= 0 else 0
        urgency += 2 if close is not None and 0 <= (close - last_day).days <= 7 else 0
        if urgency >= 4:
            first.append(task["Id"])
    return ", ".join(sorted(first)) or None


OPERATIONS.update({operation.__name__: operation for operation in (furthest_stage, first_tasks)})

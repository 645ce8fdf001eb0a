"""The UI oracle: for each task a scripted solver that finds the answer the way a careful person would in the
org's web pages — list views, record pages, summary reports (never the query console, never the API) — through
the same browser environment and action strings a browser agent uses. It reads only what the pages show (the
accessibility tree of each observation), works the answer out, and gives it with ``send_msg_to_user``.
Scoring 100% proves the pages carry every task.

What it takes from the instance is what a person is told (the product, contact, case or article the question
names, and the period the question's words define: ``params``); for a knowledge question, which characters
of the article answer (the reference's span), read off the article as the page shows it.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from typing import Any

from fixtures.tasks.model import Instance

from ..browser.session import BrowserPool
from ..errors import InfraError
from .base import Episode, EpisodeContext
from .browser import browsing
from .oracle import OracleError
from .ui_pages import RECORD_LINK, Pages, article_text, field
from .ui_policy import policy_review


def window(params: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [("CreatedDate", "greater_or_equal", params["start"]), ("CreatedDate", "less", params["end"])]


def the_one(keys: list[str]) -> str | None:
    if len(keys) > 1:
        raise OracleError(f"a tie between {keys}: the task set ships no ties")
    return keys[0] if keys else None


def extreme(values: dict[str, float], direction: str) -> str | None:
    if not values:
        return None
    best = (max if direction == "max" else min)(values.values())
    return the_one(sorted(key for key, value in values.items() if value == best))


# ----------------------------------------------------------------------------- the nine tasks


def top_issue(pages: Pages, params: dict[str, Any]) -> str | None:
    product = [("OrderItemId__r.Product2Id", "equals", params["product_id"])]
    rows = pages.report("Case", product + window(params), group="IssueId__c")
    return extreme({row[0]: int(row[2]) for row in rows}, "max")


def monthly_trend(pages: Pages, params: dict[str, Any]) -> str | None:
    product = [("OrderItemId__r.Product2Id", "equals", params["product_id"])]
    rows = pages.report("Case", product + window(params), group="CreatedDate", date="month")
    month = extreme({row[0]: int(row[2]) for row in rows}, "max")
    return None if month is None else calendar.month_name[int(month[5:7])]


def best_region(pages: Pages, params: dict[str, Any]) -> str | None:
    closed = [("Status", "equals", "Closed")]
    rows = pages.report("Case", closed + window(params), group="Account.ShippingState", avg="Age")
    ages = {row[0]: float(row[3]) for row in rows if row[0] != "(blank)" and int(row[2]) >= params["min_cases"]}
    return extreme(ages, "min")


def _qualified(pages: Pages, params: dict[str, Any]) -> list[str]:
    first = [("Field__c", "equals", "Owner Assignment"), ("OldValue__c", "equals", "")]
    rows = pages.report("CaseHistory__c", first + window(params), group="NewValue__c")
    return [row[0] for row in rows if row[0] != "(blank)" and int(row[2]) > params["min_cases"]]


def handle_time(pages: Pages, params: dict[str, Any]) -> str | None:
    qualified = _qualified(pages, params)
    if not qualified:
        return None
    rows = pages.report(
        "Case",
        [("Status", "equals", "Closed"), *window(params)],
        group="OwnerId",
        avg="Age",
        without="CaseHistories__r",
        wfield=["Field__c", "OldValue__c"],
        wop=["equals", "not_equal"],
        wvalue=["Owner Assignment", ""],
    )
    times = {row[0]: float(row[3]) for row in rows if row[0] in qualified and row[3]}
    return extreme(times, params["direction"])


def transfer_count(pages: Pages, params: dict[str, Any]) -> str | None:
    qualified = _qualified(pages, params)
    if not qualified:
        return None
    moves = [("Field__c", "equals", "Owner Assignment"), ("OldValue__c", "not_equal", "")]
    rows = pages.report("CaseHistory__c", moves + window(params), group="OldValue__c")
    given = {row[0]: int(row[2]) for row in rows}
    return extreme({agent: given.get(agent, 0) for agent in qualified}, params["direction"])


def case_routing(pages: Pages, params: dict[str, Any]) -> str | None:
    active = [row[0] for row in pages.report("User", [("IsActive", "equals", "true")], group="Id")]
    steps = [
        ([("Status", "equals", "Closed"), ("IssueId__c", "equals", params["issue_id"])], "max"),
        ([("Status", "equals", "Closed"), ("OrderItemId__r.Product2Id", "equals", params["product_id"])], "max"),
        ([("Status", "not_equal", "Closed")], "min"),
    ]
    tied = active
    for filters, direction in steps:
        counts = {row[0]: int(row[2]) for row in pages.report("Case", filters, group="OwnerId")}
        scores = {agent: counts.get(agent, 0) for agent in tied}
        best = (max if direction == "max" else min)(scores.values())
        tied = sorted(agent for agent, score in scores.items() if score == best)
        if len(tied) == 1:
            return tied[0]
    return the_one(tied)


def named_entity(pages: Pages, params: dict[str, Any]) -> str | None:
    contact = pages.open(f"/lightning/r/Contact/{params['contact_id']}/view")
    account = next((match.group(3) for match in RECORD_LINK.finditer(contact) if match.group(2) == "Account"), None)
    if account is None:
        return None
    filters = [
        ("Order.AccountId", "equals", account),
        ("Order.Status", "equals", "Activated"),
        ("Order.EffectiveDate", "equals", params["purchase_date"]),
    ]
    rows = pages.report("OrderItem", filters, group="Product2Id")
    noun, gender = params["noun"], params.get("gender")
    fitting = []
    for row in rows:
        name = row[1]
        if not (name == noun or name.endswith(" " + noun)) or (gender and not name.startswith(gender + " ")):
            continue
        product = pages.open(f"/lightning/r/Product2/{row[0]}/view")
        if params["feature"] in field(product, "Product Description"):
            fitting.append(row[0])
    return the_one(fitting)


def knowledge_qa(pages: Pages, params: dict[str, Any], reference: list[dict[str, Any]]) -> str | None:
    span = next(step["args"] for step in reference if step.get("derive") == "span")
    page = pages.open(f"/lightning/r/Knowledge__kav/{params['article_id']}/view")
    return article_text(page)[span["start"] : span["end"]]


SOLVERS: dict[str, Callable[[Pages, dict[str, Any]], str | None]] = {
    "top_issue_identification": top_issue,
    "monthly_trend_analysis": monthly_trend,
    "best_region_identification": best_region,
    "handle_time": handle_time,
    "transfer_count": transfer_count,
    "case_routing": case_routing,
    "named_entity_disambiguation": named_entity,
    "policy_violation_identification": policy_review,
}


def solve(pages: Pages, instance: Instance) -> str | None:
    """The instance's answer, found through the pages."""
    if instance.task == "knowledge_qa":
        return knowledge_qa(pages, instance.params, instance.reference)
    if instance.task in SOLVERS:
        return SOLVERS[instance.task](pages, instance.params)
    raise OracleError(f"the UI oracle has no solver for {instance.task}")


class UiOracle:
    name = "ui-oracle"

    def __init__(self, pool: BrowserPool) -> None:
        self.pool = pool

    def run(self, context: EpisodeContext) -> Episode:
        instance = context.instance
        episode = Episode(messages=[{"role": "user", "content": instance.query}])
        try:
            with browsing(context, self.pool, episode) as browser:
                pages = Pages(browser, episode)
                pages.act(f"send_msg_to_user({str(solve(pages, instance))!r})")
                episode.answer = browser.answer
            episode.end_reason = {"source": "oracle", "message": "responded", "content": episode.answer}
        except (InfraError, OracleError) as error:
            error.episode = episode  # type: ignore[union-attr]
            raise
        return episode

    def close(self) -> None:
        self.pool.close()

"""Case and agent lookups: cases by filter, who handled and who transferred cases in a period, the
issues, a case's emails and chat, and the customers' shipping states.

"Handled" follows the policies the tasks state: a case is handled by the agent its first Owner
Assignment (the CaseHistory__c row without an OldValue__c) gave it to; a transfer is an Owner
Assignment row with an OldValue__c and counts for the agent who gave the case away.
"""

from __future__ import annotations

from typing import Any

from simple_salesforce import Salesforce

from .base import CASES, define, record_list, string, string_list
from .soql import ToolError, chunks, datetime_literal, ids, in_list, query, quote

CASE_FIELDS = "Id, OwnerId, CreatedDate, ClosedDate, Status, AccountId, IssueId__c, OrderItemId__c"
ASSIGNMENT = "Field__c = 'Owner Assignment'"


def _period(start_date: Any, end_date: Any, field: str = "CreatedDate") -> list[str]:
    conditions = []
    if start_date is not None:
        conditions.append(f"{field} >= {datetime_literal(start_date, 'start_date')}")
    if end_date is not None:
        conditions.append(f"{field} < {datetime_literal(end_date, 'end_date')}")
    return conditions


def get_cases(
    sf: Salesforce,
    start_date: str | None = None,
    end_date: str | None = None,
    agent_ids: list[str] | None = None,
    case_ids: list[str] | None = None,
    order_item_ids: list[str] | None = None,
    issue_ids: list[str] | None = None,
    statuses: list[str] | None = None,
) -> list[dict[str, Any]]:
    lists = {
        "OwnerId": ids(agent_ids, "agent_ids"),
        "Id": ids(case_ids, "case_ids"),
        "OrderItemId__c": ids(order_item_ids, "order_item_ids"),
        "IssueId__c": ids(issue_ids, "issue_ids"),
        "Status": ids(statuses, "statuses"),
    }
    given = {field: values for field, values in lists.items() if values is not None}
    if not given and start_date is None and end_date is None:
        raise ToolError(
            "give at least one filter: a period, agent_ids, case_ids, order_item_ids, issue_ids or statuses"
        )
    if any(not values for values in given.values()):
        return []  # an empty list matches nothing
    conditions = _period(start_date, end_date)
    longest = max(given, key=lambda field: len(given[field]), default=None)
    fixed = [f"{field} IN {in_list(values)}" for field, values in given.items() if field != longest]
    found: dict[str, dict[str, Any]] = {}
    for part in chunks(given[longest]) if longest else [[]]:
        where = [*conditions, *fixed, *([f"{longest} IN {in_list(part)}"] if longest else [])]
        for record in query(sf, f"SELECT {CASE_FIELDS} FROM Case WHERE {' AND '.join(where)}"):
            found[record["Id"]] = record
    return sorted(found.values(), key=lambda record: (record["CreatedDate"], record["Id"]))


GET_CASES = define(
    get_cases,
    CASES,
    "Cases matching every filter given (at least one): created in [start_date, end_date), owned by one of "
    "agent_ids, with one of case_ids, order_item_ids (OrderItemId__c) or issue_ids (IssueId__c), or with one of "
    "statuses (New, Working, Escalated, Closed). Each case has Id, OwnerId, CreatedDate, ClosedDate, Status, "
    "AccountId, IssueId__c and OrderItemId__c.",
    {
        "start_date": string("Earliest CreatedDate, inclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
        "end_date": string("CreatedDate bound, exclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
        "agent_ids": string_list("Owner (User) Ids."),
        "case_ids": string_list("Case Ids."),
        "order_item_ids": string_list("OrderItem Ids the cases are about."),
        "issue_ids": string_list("Issue__c Ids."),
        "statuses": string_list("Case statuses."),
    },
)


def _counts(records: list[dict[str, Any]], key: str) -> dict[str, int]:
    return {record[key]: int(record["n"]) for record in records if record.get(key)}


def get_agent_handled_cases_by_period(sf: Salesforce, start_date: str, end_date: str) -> dict[str, int]:
    where = " AND ".join([ASSIGNMENT, "OldValue__c = null", *_period(start_date, end_date)])
    soql = f"SELECT NewValue__c, COUNT(Id) n FROM CaseHistory__c WHERE {where} GROUP BY NewValue__c"
    return _counts(query(sf, soql), "NewValue__c")


GET_AGENT_HANDLED_CASES_BY_PERIOD = define(
    get_agent_handled_cases_by_period,
    CASES,
    "How many cases each agent handled in [start_date, end_date): the cases whose first Owner Assignment "
    "(the CaseHistory__c row with no OldValue__c) gave them to that agent within the period. Cases an agent "
    "received by transfer do not count. Returns {agent Id: count}.",
    {
        "start_date": string("Period start, inclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
        "end_date": string("Period end, exclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
    },
    ("start_date", "end_date"),
)


def get_non_transferred_case_ids(sf: Salesforce, start_date: str, end_date: str) -> list[str]:
    first = " AND ".join([ASSIGNMENT, "OldValue__c = null", *_period(start_date, end_date)])
    soql = (
        f"SELECT Id, (SELECT Id FROM CaseHistories__r WHERE {ASSIGNMENT} AND OldValue__c != null) "
        f"FROM Case WHERE Id IN (SELECT CaseId__c FROM CaseHistory__c WHERE {first}) ORDER BY Id"
    )
    return [record["Id"] for record in query(sf, soql) if not record.get("CaseHistories__r")]


GET_NON_TRANSFERRED_CASE_IDS = define(
    get_non_transferred_case_ids,
    CASES,
    "Ids of the cases first assigned in [start_date, end_date) that were never transferred: their only "
    "Owner Assignment is the first one.",
    {
        "start_date": string("Period start, inclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
        "end_date": string("Period end, exclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
    },
    ("start_date", "end_date"),
)


def get_agent_transferred_cases_by_period(
    sf: Salesforce, start_date: str, end_date: str, qualified_agent_ids: list[str] | None = None
) -> dict[str, int]:
    agents = ids(qualified_agent_ids, "qualified_agent_ids")
    if agents == []:
        return {}
    where = [ASSIGNMENT, "OldValue__c != null", *_period(start_date, end_date)]
    counts: dict[str, int] = {}
    for part in chunks(agents) if agents else [[]]:
        condition = [f"OldValue__c IN {in_list(part)}"] if part else []
        conditions = " AND ".join(where + condition)
        soql = f"SELECT OldValue__c, COUNT(Id) n FROM CaseHistory__c WHERE {conditions} GROUP BY OldValue__c"
        counts.update(_counts(query(sf, soql), "OldValue__c"))
    if agents is None:
        return counts
    return {agent: counts.get(agent, 0) for agent in agents}


GET_AGENT_TRANSFERRED_CASES_BY_PERIOD = define(
    get_agent_transferred_cases_by_period,
    CASES,
    "Transfers per agent in [start_date, end_date): Owner Assignment rows with an OldValue__c, counted for the "
    "agent who gave the case away, by the row's CreatedDate. With qualified_agent_ids, exactly those agents are "
    "returned and one without transfers has 0; without it, every agent with at least one transfer. "
    "Returns {agent Id: count}.",
    {
        "start_date": string("Period start, inclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
        "end_date": string("Period end, exclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
        "qualified_agent_ids": string_list("Only these agents (each appears, with 0 when it made no transfer)."),
    },
    ("start_date", "end_date"),
)


def get_issue_counts(sf: Salesforce, start_date: str, end_date: str, order_item_ids: list[str]) -> dict[str, int]:
    items = ids(order_item_ids, "order_item_ids") or []
    counts: dict[str, int] = {}
    for part in chunks(items):
        where = " AND ".join(
            [f"OrderItemId__c IN {in_list(part)}", *_period(start_date, end_date), "IssueId__c != null"]
        )
        for issue, count in _counts(
            query(sf, f"SELECT IssueId__c, COUNT(Id) n FROM Case WHERE {where} GROUP BY IssueId__c"), "IssueId__c"
        ).items():
            counts[issue] = counts.get(issue, 0) + count
    return counts


GET_ISSUE_COUNTS = define(
    get_issue_counts,
    CASES,
    "How many cases about the given order items were created in [start_date, end_date), per issue. "
    "Returns {Issue__c Id: count}.",
    {
        "start_date": string("Period start, inclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
        "end_date": string("Period end, exclusive: 'YYYY-MM-DDTHH:MM:SSZ'."),
        "order_item_ids": string_list("OrderItem Ids (for a product: get_order_item_ids_by_product)."),
    },
    ("start_date", "end_date", "order_item_ids"),
)


def get_issues(sf: Salesforce) -> list[dict[str, Any]]:
    return query(sf, "SELECT Id, Name FROM Issue__c ORDER BY Name")


GET_ISSUES = define(get_issues, CASES, "Every issue (Issue__c) cases can be about, as {Id, Name}.")


def get_email_messages_by_case_id(sf: Salesforce, case_id: str) -> list[dict[str, Any]]:
    soql = (
        "SELECT Subject, TextBody, FromAddress, FromName, ToAddress, MessageDate, Incoming FROM EmailMessage "
        f"WHERE ParentId = {quote(case_id)} ORDER BY MessageDate, Id"
    )
    return query(sf, soql)


GET_EMAIL_MESSAGES_BY_CASE_ID = define(
    get_email_messages_by_case_id,
    CASES,
    "The emails of a case in time order: Subject, TextBody, FromAddress, FromName, ToAddress, MessageDate and "
    "Incoming (true for mail from the customer, false for mail an agent sent).",
    {"case_id": string("The Case Id.")},
    ("case_id",),
)


def get_livechat_transcript_by_case_id(sf: Salesforce, case_id: str) -> list[dict[str, Any]]:
    soql = f"SELECT Body, EndTime FROM LiveChatTranscript WHERE CaseId = {quote(case_id)} ORDER BY EndTime, Id"
    return query(sf, soql)


GET_LIVECHAT_TRANSCRIPT_BY_CASE_ID = define(
    get_livechat_transcript_by_case_id,
    CASES,
    "The live chat transcripts of a case: Body (one '[time] Name (Customer|Agent): text' line per message, "
    "times in UTC) and EndTime.",
    {"case_id": string("The Case Id.")},
    ("case_id",),
)


def get_shipping_state(sf: Salesforce, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not isinstance(cases, list) or not all(isinstance(case, dict) for case in cases):
        raise ToolError("cases must be a list of case records (as get_cases returns them)")
    accounts = sorted({case["AccountId"] for case in cases if case.get("AccountId")})
    states: dict[str, Any] = {}
    for part in chunks(accounts):
        for record in query(sf, f"SELECT Id, ShippingState FROM Account WHERE Id IN {in_list(part)}"):
            states[record["Id"]] = record.get("ShippingState")
    return [{**case, "ShippingState": states.get(case.get("AccountId") or "")} for case in cases]


GET_SHIPPING_STATE = define(
    get_shipping_state,
    CASES,
    "The given cases, each with the ShippingState of its account (Case.AccountId → Account.ShippingState) added.",
    {"cases": record_list("Case records with AccountId, as get_cases returns them.")},
    ("cases",),
)

TOOLS = (
    GET_CASES,
    GET_AGENT_HANDLED_CASES_BY_PERIOD,
    GET_NON_TRANSFERRED_CASE_IDS,
    GET_AGENT_TRANSFERRED_CASES_BY_PERIOD,
    GET_ISSUE_COUNTS,
    GET_ISSUES,
    GET_EMAIL_MESSAGES_BY_CASE_ID,
    GET_LIVECHAT_TRANSCRIPT_BY_CASE_ID,
    GET_SHIPPING_STATE,
)

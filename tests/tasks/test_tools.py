"""The tools over a served org: what their descriptions promise, the same answer on any org clock, safe
quoting, clear errors for bad arguments, and the registry's names, schemas and categories."""

from __future__ import annotations

from datetime import datetime

import pytest
from simple_salesforce.exceptions import SalesforceMalformedRequest

from eval_suite.tools import ToolError, call
from eval_suite.tools.registry import CRMARENA_TOOLS, TOOLS, schemas
from fixtures.tasks import truth
from mock_org.server.serve import serve_org

CRMARENA_NAMES = {
    "get_agents_with_max_cases",
    "get_agents_with_min_cases",
    "calculate_average_handle_time",
    "get_start_date",
    "get_period",
    "get_agent_handled_cases_by_period",
    "get_qualified_agent_ids_by_case_count",
    "get_cases",
    "get_non_transferred_case_ids",
    "get_agent_transferred_cases_by_period",
    "get_shipping_state",
    "calculate_region_average_closure_times",
    "get_order_item_ids_by_product",
    "get_issue_counts",
    "find_id_with_max_value",
    "find_id_with_min_value",
    "get_account_id_by_contact_id",
    "get_purchase_history",
    "get_month_to_case_count",
    "search_knowledge_articles",
    "search_products",
    "get_issues",
    "get_email_messages_by_case_id",
    "get_livechat_transcript_by_case_id",
}
WINDOW = {"start_date": "2022-01-01T00:00:00Z", "end_date": "2023-01-01T00:00:00Z"}


def test_the_registry_has_the_crmarena_tools_and_raw_queries_with_schemas() -> None:
    assert {tool.name for tool in CRMARENA_TOOLS} == CRMARENA_NAMES
    assert set(TOOLS) == CRMARENA_NAMES | {"issue_soql_query", "issue_sosl_query"}
    names = [entry["function"]["name"] for entry in schemas()]
    assert names[-1] == "respond" and len(names) == 27 and set(names[:-1]) == set(TOOLS)
    for tool in TOOLS.values():
        assert tool.schema["name"] == tool.name and tool.schema["description"] and tool.category
        assert set(tool.required) <= set(tool.properties)


def test_handled_and_transferred_counts_follow_the_policy(sf, records) -> None:
    start, end = datetime(2022, 1, 1), datetime(2023, 1, 1)
    assert call(sf, "get_agent_handled_cases_by_period", WINDOW) == dict(truth.handled_counts(records, start, end))
    handled = truth.handled_counts(records, start, end)
    moved = truth.transfer_counts(records, start, end)
    everyone = sorted(handled)
    counts = call(sf, "get_agent_transferred_cases_by_period", {**WINDOW, "qualified_agent_ids": everyone})
    assert counts == {agent: moved[agent] for agent in everyone} and 0 in counts.values()  # zeros included
    untouched = set(call(sf, "get_non_transferred_case_ids", WINDOW))
    first = truth.first_assignments(records)
    assert untouched == {case for case, (_, at) in first.items() if start <= at < end} - truth.transferred_case_ids(
        records
    )


def test_date_tools_count_back_calendar_months_and_name_periods_half_open(sf) -> None:
    assert call(sf, "get_start_date", {"end_date": "2024-05-31T00:00:00Z", "period": "month", "interval_count": 3}) == (
        "2024-02-29T00:00:00Z"
    )
    assert (
        call(sf, "get_start_date", {"end_date": "2024-05-31", "period": "week", "interval_count": 2})
        == "2024-05-17T00:00:00Z"
    )
    assert call(sf, "get_period", {"period_name": "Winter", "year": 2021}) == {
        "start_date": "2021-12-01T00:00:00Z",
        "end_date": "2022-03-01T00:00:00Z",
    }
    assert call(sf, "get_period", {"period_name": "q2", "year": 2023})["end_date"] == "2023-07-01T00:00:00Z"


def test_ids_are_quoted_so_a_crafted_id_stays_one_literal(sf) -> None:
    crafted = "x' OR ParentId != '"
    with pytest.raises(SalesforceMalformedRequest, match="invalid ID field: x' OR ParentId != '"):
        call(sf, "get_email_messages_by_case_id", {"case_id": crafted})  # the whole text is one (bad) Id
    assert isinstance(call(sf, "search_products", {"search_term": "women's trail-running (shoe)"}), list)


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("get_cases", {}, "at least one filter"),
        ("get_start_date", {"end_date": "soon", "period": "day", "interval_count": 1}, "datetime"),
        ("get_period", {"period_name": "Monsoon", "year": 2022}, "period_name"),
        ("get_cases", {"colour": "red"}, "unknown argument"),
        ("respond", {"content": "x"}, "agent loop"),
        ("dance", {}, "unknown tool"),
    ],
)
def test_bad_arguments_are_a_clear_tool_error(sf, name, arguments, message) -> None:
    with pytest.raises(ToolError, match=message):
        call(sf, name, arguments)


def test_references_give_the_same_answers_on_another_org_clock(default_db, instances) -> None:
    sample = [instance for instance in instances if instance.idx % 130 < 3]
    from eval_suite.reference import run_reference

    with serve_org(default_db, read_only=True, today="2021-03-04") as org:
        shifted = org.connect()
        assert [run_reference(shifted, i.reference) for i in sample] == [i.answer for i in sample]

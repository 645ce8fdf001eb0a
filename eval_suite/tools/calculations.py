"""Calculation helpers: pure functions over records and counts an earlier tool returned (the org is not
asked). Ties are kept: the arg-extreme helpers return every key that shares the best value."""

from __future__ import annotations

import calendar
from collections import Counter
from typing import Any

from simple_salesforce import Salesforce

from .base import CALCULATIONS, define, integer, mapping, record_list
from .soql import ToolError, api_moment


def _records(value: Any, name: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ToolError(f"{name} must be a list of records (as get_cases returns them)")
    return value


def _numbers(value: Any, name: str) -> dict[str, float]:
    if not isinstance(value, dict):
        raise ToolError(f"{name} must be an object of {{Id: number}}")
    try:
        return {str(key): float(number) for key, number in value.items()}
    except (TypeError, ValueError):
        raise ToolError(f"{name} must map each Id to a number") from None


def _owner_counts(cases: Any) -> Counter[str]:
    return Counter(case["OwnerId"] for case in _records(cases, "subset_cases") if case.get("OwnerId"))


def _best(values: dict[str, float], direction: str) -> list[str]:
    if not values:
        return []
    best = max(values.values()) if direction == "max" else min(values.values())
    return sorted(key for key, value in values.items() if value == best)


def get_agents_with_max_cases(sf: Salesforce, subset_cases: list[dict[str, Any]]) -> list[str]:
    return _best(dict(_owner_counts(subset_cases)), "max")


GET_AGENTS_WITH_MAX_CASES = define(
    get_agents_with_max_cases,
    CALCULATIONS,
    "The OwnerIds that own the most of the given cases (all of them when tied).",
    {"subset_cases": record_list("Case records with OwnerId, as get_cases returns them.")},
    ("subset_cases",),
)


def get_agents_with_min_cases(sf: Salesforce, subset_cases: list[dict[str, Any]]) -> list[str]:
    return _best(dict(_owner_counts(subset_cases)), "min")


GET_AGENTS_WITH_MIN_CASES = define(
    get_agents_with_min_cases,
    CALCULATIONS,
    "The OwnerIds that own the fewest of the given cases (all of them when tied). Only owners that appear in "
    "the list are considered: an agent with none of the cases is not in it.",
    {"subset_cases": record_list("Case records with OwnerId, as get_cases returns them.")},
    ("subset_cases",),
)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def calculate_average_handle_time(sf: Salesforce, cases: list[dict[str, Any]]) -> dict[str, float]:
    minutes: dict[str, list[float]] = {}
    for case in _records(cases, "cases"):
        if case.get("OwnerId") and case.get("CreatedDate") and case.get("ClosedDate"):
            spent = (api_moment(case["ClosedDate"]) - api_moment(case["CreatedDate"])).total_seconds() / 60
            minutes.setdefault(case["OwnerId"], []).append(spent)
    return {owner: _mean(values) for owner, values in minutes.items()}


CALCULATE_AVERAGE_HANDLE_TIME = define(
    calculate_average_handle_time,
    CALCULATIONS,
    "Average handle time (ClosedDate − CreatedDate, in minutes) per OwnerId over the given cases that have "
    "both dates. Returns {agent Id: minutes}.",
    {"cases": record_list("Case records with OwnerId, CreatedDate and ClosedDate.")},
    ("cases",),
)


def calculate_region_average_closure_times(sf: Salesforce, cases: list[dict[str, Any]]) -> dict[str, float]:
    seconds: dict[str, list[float]] = {}
    for case in _records(cases, "cases"):
        if case.get("ShippingState") and case.get("CreatedDate") and case.get("ClosedDate"):
            spent = (api_moment(case["ClosedDate"]) - api_moment(case["CreatedDate"])).total_seconds()
            seconds.setdefault(case["ShippingState"], []).append(spent)
    return {state: _mean(values) for state, values in seconds.items()}


CALCULATE_REGION_AVERAGE_CLOSURE_TIMES = define(
    calculate_region_average_closure_times,
    CALCULATIONS,
    "Average closure time (ClosedDate − CreatedDate, in seconds) per ShippingState over the given cases that "
    "have a state and both dates. Returns {state code: seconds}.",
    {"cases": record_list("Case records with ShippingState (see get_shipping_state), CreatedDate and ClosedDate.")},
    ("cases",),
)


def get_qualified_agent_ids_by_case_count(
    sf: Salesforce, agent_handled_cases: dict[str, Any], n_cases: int
) -> list[str]:
    counts = _numbers(agent_handled_cases, "agent_handled_cases")
    if isinstance(n_cases, bool) or not isinstance(n_cases, int | float):
        raise ToolError(f"n_cases must be a number, got {n_cases!r}")
    return sorted(agent for agent, count in counts.items() if count > n_cases)


GET_QUALIFIED_AGENT_IDS_BY_CASE_COUNT = define(
    get_qualified_agent_ids_by_case_count,
    CALCULATIONS,
    "The agents whose count is MORE than n_cases (strictly greater).",
    {
        "agent_handled_cases": mapping("{agent Id: cases handled}, as get_agent_handled_cases_by_period returns it."),
        "n_cases": integer("The threshold to exceed."),
    },
    ("agent_handled_cases", "n_cases"),
)


def find_id_with_max_value(sf: Salesforce, values_by_id: dict[str, Any]) -> list[str]:
    return _best(_numbers(values_by_id, "values_by_id"), "max")


FIND_ID_WITH_MAX_VALUE = define(
    find_id_with_max_value,
    CALCULATIONS,
    "The keys with the highest value (a list: several when tied, empty for an empty input).",
    {"values_by_id": mapping("{key: number}.")},
    ("values_by_id",),
)


def find_id_with_min_value(sf: Salesforce, values_by_id: dict[str, Any]) -> list[str]:
    return _best(_numbers(values_by_id, "values_by_id"), "min")


FIND_ID_WITH_MIN_VALUE = define(
    find_id_with_min_value,
    CALCULATIONS,
    "The keys with the lowest value (a list: several when tied, empty for an empty input).",
    {"values_by_id": mapping("{key: number}.")},
    ("values_by_id",),
)


def get_month_to_case_count(sf: Salesforce, cases: list[dict[str, Any]]) -> dict[str, int]:
    months: Counter[str] = Counter()
    for case in _records(cases, "cases"):
        if case.get("CreatedDate"):
            months[calendar.month_name[api_moment(case["CreatedDate"]).month]] += 1
    return dict(months)


GET_MONTH_TO_CASE_COUNT = define(
    get_month_to_case_count,
    CALCULATIONS,
    "How many of the given cases were created in each calendar month (UTC), by English month name; the same "
    "month of different years is counted together. Returns {month name: count}.",
    {"cases": record_list("Case records with CreatedDate.")},
    ("cases",),
)

TOOLS = (
    GET_AGENTS_WITH_MAX_CASES,
    GET_AGENTS_WITH_MIN_CASES,
    CALCULATE_AVERAGE_HANDLE_TIME,
    CALCULATE_REGION_AVERAGE_CLOSURE_TIMES,
    GET_QUALIFIED_AGENT_IDS_BY_CASE_COUNT,
    FIND_ID_WITH_MAX_VALUE,
    FIND_ID_WITH_MIN_VALUE,
    GET_MONTH_TO_CASE_COUNT,
)

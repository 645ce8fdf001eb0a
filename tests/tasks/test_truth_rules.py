"""Each ground-truth rule on a handful of hand-made records, where the right answer is obvious: first
assignments only, transfers for the agent giving the case away, zero-transfer agents counted as zero,
half-open windows, the routing tie-break chain, month names, policy windows in whole days."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from fixtures.tasks import truth
from fixtures.tasks.records import Assignment, Case, Message, OrgRecords

A, B, C = "005A", "005B", "005C"
START, END = "2023-01-01T00:00:00Z", "2023-02-01T00:00:00Z"


def case(case_id: str, owner: str, created: datetime, minutes: int | None, **fields) -> Case:
    closed = created + timedelta(minutes=minutes) if minutes is not None else None
    values = {
        "status": "Closed" if closed else "Working",
        "account_id": "001X",
        "contact_id": "003X",
        "issue_id": "a1MI",
        "order_item_id": "802X",
        "subject": "",
        "description": "",
    }
    values.update(fields)
    return Case(case_id, owner, created, closed, values.pop("status"), **values)


def org(
    cases: list[Case],
    transfers: tuple[tuple[str, str, str, datetime], ...] = (),
    first: dict[str, str] | None = None,
    **extra,
) -> OrgRecords:
    """Records with a first Owner Assignment per case at its creation (to its owner, or to ``first[case]``),
    plus the given transfers (case, from, to, when)."""
    first = first or {}
    assignments = [Assignment(f"h{c.id}", c.id, None, first.get(c.id, c.owner_id), c.created) for c in cases]
    assignments += [Assignment(f"t{n}", case_id, old, new, at) for n, (case_id, old, new, at) in enumerate(transfers)]
    assignments.sort(key=lambda row: (row.at, row.id))
    values = {
        "order_items": {"802X": ("801X", "01tP")},
        "orders": {"801X": ("001X", "Activated", date(2023, 1, 2))},
        "account_states": {"001X": "CA"},
        "contact_accounts": {"003X": "001X"},
        "products": {"01tP": ("P", "")},
        "issues": {"a1MI": "Issue"},
        "articles": {},
    }
    values.update(extra)
    return OrgRecords({c.id: c for c in cases}, assignments, **values)


@pytest.fixture()
def handling_org() -> OrgRecords:
    """A: two untransferred cases (60 and 120 min). B: one case it transferred to C, one transferred just after
    the window, one of 10 min. C: one case of 30 min and a transfer-in. Plus A's case just before the window."""
    cases = [
        case("c1", A, datetime(2023, 1, 5), 60),
        case("c2", A, datetime(2023, 1, 10), 120),
        case("c3", C, datetime(2023, 1, 7), 50),
        case("c4", C, datetime(2023, 1, 20), 30),
        case("c5", A, datetime(2022, 12, 31, 23, 59), 1),
        case("c6", C, datetime(2023, 1, 31, 23), 600),
        case("c7", B, datetime(2023, 1, 15), 10),
    ]
    transfers = (("c3", B, C, datetime(2023, 1, 7, 0, 10)), ("c6", B, C, datetime(2023, 2, 1, 1)))
    return org(cases, transfers, first={"c3": B, "c6": B})


def params(**values) -> dict:
    return {"start": START, "end": END, "today": "2023-02-10", **values}


def test_handled_counts_first_assignments_in_the_window_only(handling_org) -> None:
    start, end = datetime(2023, 1, 1), datetime(2023, 2, 1)
    assert truth.handled_counts(handling_org, start, end) == {A: 2, B: 3, C: 1}
    assert truth.transfer_counts(handling_org, start, end) == {B: 1}  # the second transfer is after the window


@pytest.mark.parametrize(
    ("min_cases", "direction", "answer"),
    [(0, "min", B), (0, "max", A), (1, "min", B), (1, "max", A), (2, "max", B), (3, "min", None)],
)
def test_handle_time_averages_untransferred_closed_cases_of_qualified_agents(
    handling_org, min_cases, direction, answer
) -> None:
    verdict = truth.handle_time(handling_org, params(min_cases=min_cases, direction=direction))
    assert (verdict.answer, verdict.tied) == (answer, False)


def test_handle_time_leaves_out_transferred_cases(handling_org) -> None:
    verdict = truth.handle_time(handling_org, params(min_cases=0, direction="min"))
    assert verdict.scores[B] == 10 * 60  # c3 and c6 were transferred (c6 after the window: still transferred)
    assert verdict.scores[A] == 90 * 60 and verdict.scores[C] == 30 * 60


def test_transfer_count_counts_qualified_agents_without_transfers_as_zero(handling_org) -> None:
    assert truth.transfer_count(handling_org, params(min_cases=1, direction="min")).answer == A  # A: 0, B: 1
    assert truth.transfer_count(handling_org, params(min_cases=1, direction="max")).answer == B
    assert truth.transfer_count(handling_org, params(min_cases=0, direction="min")).tied  # A and C both 0
    assert truth.transfer_count(handling_org, params(min_cases=3, direction="max")).answer is None


def test_windows_include_their_start_and_exclude_their_end() -> None:
    records = org([case("s", A, datetime(2023, 1, 1), 5), case("e", B, datetime(2023, 2, 1), 5)])
    assert truth.handled_counts(records, datetime(2023, 1, 1), datetime(2023, 2, 1)) == {A: 1}


def _routing_org(open_for_a: int) -> OrgRecords:
    cases = [
        case(f"i{n}", owner, datetime(2023, 1, 1 + n), 5, issue_id="a1MI", order_item_id="802Q")
        for n, owner in enumerate([A, A, B, B, C])
    ]
    cases += [
        case("p1", A, datetime(2023, 2, 1), 5, issue_id="a1MJ"),
        case("p2", B, datetime(2023, 2, 2), 5, issue_id="a1MJ"),
    ]
    cases += [case(f"o{n}", A, datetime(2023, 3, 1 + n), None, issue_id="a1MJ") for n in range(open_for_a)]
    return org(cases, order_items={"802X": ("801X", "01tP"), "802Q": ("801X", "01tQ")})


def test_routing_breaks_an_issue_tie_by_product_then_by_open_cases() -> None:
    records = _routing_org(open_for_a=2)
    issue_only = truth.case_routing(records, {"issue_id": "a1MI", "product_id": "01tQ"})
    assert issue_only.scores["issue"] == {A: 2, B: 2, C: 1}
    # Tied on the issue, tied on product 01tP (one closed case each), B has no open case: B.
    assert truth.case_routing(records, {"issue_id": "a1MI", "product_id": "01tP"}).answer == B
    assert truth.case_routing(_routing_org(open_for_a=0), {"issue_id": "a1MI", "product_id": "01tP"}).tied


def test_monthly_trend_names_the_month_and_refuses_a_repeated_month_name() -> None:
    records = org(
        [
            case(f"m{n}", A, moment, 5)
            for n, moment in enumerate(
                [datetime(2023, 1, 3), datetime(2023, 1, 9), datetime(2023, 2, 1), datetime(2022, 1, 5)]
            )
        ]
    )
    p = {"product_id": "01tP", "start": "2023-01-01T00:00:00Z", "end": "2023-03-01T00:00:00Z"}
    assert truth.monthly_trend_analysis(records, p).answer == "January"
    with pytest.raises(ValueError, match="ambiguous"):
        truth.monthly_trend_analysis(records, {**p, "start": "2022-01-01T00:00:00Z"})


def test_best_region_takes_the_lowest_mean_closure_time_by_shipping_state() -> None:
    cases = [
        case("r1", A, datetime(2023, 1, 2), 100, account_id="001N"),
        case("r2", A, datetime(2023, 1, 3), 20, account_id="001N"),
        case("r3", A, datetime(2023, 1, 4), 50),
        case("r4", A, datetime(2023, 1, 5), None),
    ]
    records = org(cases, account_states={"001X": "CA", "001N": "NY"})
    verdict = truth.best_region_identification(records, params())  # r4 is open; NY averages 60 min, CA 50
    assert (verdict.answer, verdict.scores) == ("CA", {"NY": 3600, "CA": 3000})


def test_disambiguation_needs_the_product_on_that_days_activated_orders() -> None:
    records = org(
        [],
        orders={"801X": ("001X", "Activated", date(2023, 1, 2)), "801D": ("001X", "Draft", date(2023, 1, 3))},
        order_items={"802X": ("801X", "01tP"), "802D": ("801D", "01tQ")},
    )
    ask = {"contact_id": "003X", "product_id": "01tP", "purchase_date": "2023-01-02"}
    assert truth.named_entity_disambiguation(records, ask).answer == "01tP"
    assert truth.named_entity_disambiguation(records, {**ask, "purchase_date": "2023-01-03"}).answer is None
    assert (
        truth.named_entity_disambiguation(records, {**ask, "product_id": "01tQ", "purchase_date": "2023-01-03"}).answer
        is None
    )


ARTICLE = (
    "Returns",
    "",
    "This policy governs cases about: Issue.\n1. Store Credit: You get credit. This option is "
    "available for 90 days counted from the effective date of the order; after that it can't be offered.",
)
GESTURE = (
    "Gestures",
    "",
    "These gestures may be added to a case about any issue, on top of its own solution:\n"
    "1. Free Shipping: Next order ships free. This option is available for 10 days counted from the effective "
    "date of the order; after that it can't be offered.",
)


@pytest.mark.parametrize(("days", "answer"), [(90, None), (91, "ka0R")])
def test_policy_breach_is_a_grant_more_days_after_the_order_than_the_window(days: int, answer) -> None:
    granted_at = datetime(2023, 1, 2, 23, 59) + timedelta(days=days)
    messages = {
        "c": [
            Message(granted_at - timedelta(days=3), True, "Would our Store Credit help?"),  # a proposal
            Message(granted_at - timedelta(hours=1), False, "I want store credit"),  # the customer's words
            Message(granted_at, True, "I've processed your Store Credit."),
            Message(granted_at + timedelta(days=1), True, "Your Store Credit has been issued."),
        ]
    }
    records = org([case("c", A, granted_at - timedelta(hours=2), 200)], articles={"ka0R": ARTICLE}, messages=messages)
    verdict = truth.policy_violation_identification(records, {"case_id": "c"})
    assert (verdict.answer, [row["days"] for row in verdict.scores["checked"]]) == (answer, [days])


def test_a_solution_the_governing_article_does_not_list_breaches_it_unless_it_is_a_gesture() -> None:
    messages = {"c": [Message(datetime(2023, 1, 5), True, "I've processed a Full Refund for you.")]}
    records = org(
        [case("c", A, datetime(2023, 1, 4), 2000)],
        articles={
            "ka0R": ARTICLE,
            "ka0G": GESTURE,
            "ka0F": (
                "Other",
                "",
                "This policy governs cases about: Else.\n1. Full Refund: Money back. This "
                "option is available for 30 days counted from the effective date of the order;",
            ),
        },
        messages=messages,
    )
    assert truth.policy_violation_identification(records, {"case_id": "c"}).answer == "ka0R"
    messages = {"c": [Message(datetime(2023, 1, 5), True, "I've set up Free Shipping on your next order.")]}
    records = org(
        [case("c", A, datetime(2023, 1, 4), 2000)], articles={"ka0R": ARTICLE, "ka0G": GESTURE}, messages=messages
    )
    assert truth.policy_violation_identification(records, {"case_id": "c"}).answer is None  # 3 days, within 10


def test_grants_breaching_two_articles_are_ambiguous() -> None:
    late = datetime(2023, 1, 2) + timedelta(days=95)
    messages = {"c": [Message(late, True, "I've processed your Store Credit and added Free Shipping too.")]}
    records = org(
        [case("c", A, late - timedelta(days=1), 2000)], articles={"ka0R": ARTICLE, "ka0G": GESTURE}, messages=messages
    )
    verdict = truth.policy_violation_identification(records, {"case_id": "c"})
    assert (verdict.answer, verdict.tied) == (None, True)

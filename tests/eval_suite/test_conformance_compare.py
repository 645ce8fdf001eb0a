"""The comparison rules of ``crmarena conformance`` on hand-made answers: Ids through the map in
values and statements, ties, LIMIT windows, aggregate rows, errors and fields left out."""

from __future__ import annotations

from typing import Any

from eval_suite.lane.compare import IdTranslation, NotCompared, Outcome, compare, plan_of
from eval_suite.lane.conformance_report import describe

CASE_A, CASE_B = "500Ws0000000001IAA", "500Hs00000AbCdEIAV"
USER_A, USER_B = "005Ws0000000002IAA", "005Hs00000XyZwVIAV"
IDS = IdTranslation({CASE_A: CASE_B, CASE_A[:15]: CASE_B, USER_A: USER_B, USER_A[:15]: USER_B})
NOTHING_SKIPPED = NotCompared()


def case(record_id: str, **values: Any) -> dict[str, Any]:
    url = f"/services/data/v59.0/sobjects/Case/{record_id}"
    return {"attributes": {"type": "Case", "url": url}, "Id": record_id, **values}


def answer(*records: dict[str, Any], total: int | None = None) -> Outcome:
    return Outcome(tuple(records), len(records) if total is None else total)


def kinds(differences: list[dict]) -> list[str]:
    return [difference["kind"] for difference in differences]


def test_ids_are_translated_in_values_urls_lists_and_statement_literals() -> None:
    a = answer(case(CASE_A, OwnerId=USER_A, ToIds=f'["{USER_A}"]', Note=f"see {CASE_A[:15]}"))
    b = answer(case(CASE_B, OwnerId=USER_B, ToIds=f'["{USER_B}"]', Note=f"see {CASE_B[:15]}"))
    assert compare(plan_of("SELECT Id, OwnerId FROM Case"), a, b, NOTHING_SKIPPED, IDS) == ([], [])
    # Without the map the same answers differ in every Id-bearing value, and the rows do not even match.
    differences, _ = compare(plan_of("SELECT Id FROM Case"), a, b, NOTHING_SKIPPED, IdTranslation())
    assert kinds(differences) == ["missing", "extra"]
    statement = f"SELECT Id FROM Case WHERE Id IN ('{CASE_A}', '{CASE_A[:15]}') AND Subject = 'x{CASE_A}'"
    assert IDS.query(statement) == (
        f"SELECT Id FROM Case WHERE Id IN ('{CASE_B}', '{CASE_B[:15]}') AND Subject = 'x{CASE_A}'"
    )


def test_a_changed_value_is_reported_with_the_field_and_both_values() -> None:
    a, b = answer(case(CASE_A, Status="Closed")), answer(case(CASE_A, Status="Escalated"))
    differences, _ = compare(plan_of("SELECT Id, Status FROM Case"), a, b, NOTHING_SKIPPED, IdTranslation())
    assert differences == [
        {
            "kind": "value",
            "object": "Case",
            "field": "Case.Status",
            "id_a": CASE_A,
            "id_b": CASE_A,
            "a": "Closed",
            "b": "Escalated",
        }
    ]
    assert describe(differences[0]) == f'value differs: Case.Status "Closed" vs "Escalated" ({CASE_A})'
    # A number is compared with its JSON type: 1 and 1.0 read differently in a client (and an agent's observation).
    whole, fractional = answer(case(CASE_A, Quantity=1)), answer(case(CASE_A, Quantity=1.0))
    assert kinds(
        compare(plan_of("SELECT Id, Quantity FROM Case"), whole, fractional, NOTHING_SKIPPED, IdTranslation())[0]
    ) == ["value"]


def test_fields_left_out_are_not_compared_at_any_depth() -> None:
    a = answer(
        case(
            CASE_A,
            SystemModstamp="2024-01-01",
            Account={"attributes": {"type": "Account"}, "Name": "x", "SystemModstamp": "1"},
        )
    )
    b = answer(
        case(
            CASE_A,
            SystemModstamp="2025-02-02",
            Account={"attributes": {"type": "Account"}, "Name": "x", "SystemModstamp": "2"},
        )
    )
    plan = plan_of("SELECT Id, SystemModstamp, Account.Name, Account.SystemModstamp FROM Case")
    assert compare(plan, a, b, NotCompared(["SystemModstamp"]), IdTranslation()) == ([], [])
    assert compare(plan, a, b, NotCompared(["Account.SystemModstamp"]), IdTranslation())[0][0]["field"] == (
        "Case.SystemModstamp"
    )


def test_order_is_compared_only_where_order_by_is_given_and_never_among_ties() -> None:
    first, second = case(CASE_A, Priority="High"), case(USER_A, Priority="High")
    third = case("500Ws0000000003IAA", Priority="Low")
    tied = compare(
        plan_of("SELECT Id, Priority FROM Case ORDER BY Priority"),
        answer(first, second, third),
        answer(second, first, third),
        NOTHING_SKIPPED,
        IdTranslation(),
    )
    assert tied == ([], [])
    unordered = compare(
        plan_of("SELECT Id, Priority FROM Case"),
        answer(first, third),
        answer(third, first),
        NOTHING_SKIPPED,
        IdTranslation(),
    )
    assert unordered == ([], [])
    wrong, _ = compare(
        plan_of("SELECT Id, Priority FROM Case ORDER BY Priority DESC"),
        answer(third, first),
        answer(first, third),
        NOTHING_SKIPPED,
        IdTranslation(),
    )
    assert wrong == [{"kind": "order", "by": ["Priority"], "position": 0, "a": ["Low"], "b": ["High"]}]


def test_under_an_id_map_ordering_by_id_is_not_compared_and_limit_ties_may_differ() -> None:
    other_a, other_b = "500Ws0000000009IAA", "500Hs00000AAAAAIAV"
    ids = IdTranslation({CASE_A: CASE_B, other_a: other_b})
    # Each org orders by its own Ids: CASE_A < other_a on side A, but CASE_B > other_b on side B.
    a = answer(case(CASE_A, Priority="High"), case(other_a, Priority="High"))
    b = answer(case(other_b, Priority="High"), case(CASE_B, Priority="High"))
    differences, notes = compare(
        plan_of("SELECT Id, Priority FROM Case ORDER BY Priority, Id"), a, b, NOTHING_SKIPPED, ids
    )
    assert differences == [] and "order compared by the keys before Id: each org orders by its own Ids" in notes
    # A leading Id key leaves nothing to compare: the later keys are sorted only within each of its values.
    by_owner = plan_of("SELECT Id, OwnerId, Priority FROM Case ORDER BY OwnerId, Priority")
    a = answer(case(CASE_A, OwnerId=CASE_A, Priority="Low"), case(other_a, OwnerId=other_a, Priority="High"))
    b = answer(case(other_b, OwnerId=other_b, Priority="High"), case(CASE_B, OwnerId=CASE_B, Priority="Low"))
    assert compare(by_owner, a, b, NOTHING_SKIPPED, ids)[0] == []
    # LIMIT 1 over the tie: each org may keep another of the tied rows; a row outside the tie may not differ.
    one_a, one_b = answer(case(CASE_A, Priority="High")), answer(case(other_b, Priority="High"))
    assert (
        compare(
            plan_of("SELECT Id, Priority FROM Case ORDER BY Priority, Id LIMIT 1"), one_a, one_b, NOTHING_SKIPPED, ids
        )[0]
        == []
    )
    low_b = answer(case(other_b, Priority="Low"))
    differences, _ = compare(
        plan_of("SELECT Id, Priority FROM Case ORDER BY Priority LIMIT 1"), one_a, low_b, NOTHING_SKIPPED, ids
    )
    assert kinds(differences) == ["missing", "extra"]


def test_limit_without_order_by_compares_the_count_only() -> None:
    plan = plan_of("SELECT Id FROM Case LIMIT 1")
    same, notes = compare(plan, answer(case(CASE_A)), answer(case(USER_A)), NOTHING_SKIPPED, IdTranslation())
    assert same == [] and any("LIMIT" in note for note in notes)
    fewer, _ = compare(plan, answer(case(CASE_A)), answer(), NOTHING_SKIPPED, IdTranslation())
    assert kinds(fewer) == ["count"]


def test_aggregate_rows_are_matched_by_their_group_by_values() -> None:
    plan = plan_of("SELECT toLabel(Status), COUNT(Id) n FROM EmailMessage GROUP BY Status")

    def row(status: str, n: int) -> dict[str, Any]:
        return {"attributes": {"type": "AggregateResult"}, "Status": status, "n": n}

    differences, _ = compare(
        plan, answer(row("3", 10), row("2", 4)), answer(row("2", 4), row("3", 9)), NOTHING_SKIPPED, IdTranslation()
    )
    assert [(d["kind"], d["field"], d["a"], d["b"], d["group"]) for d in differences] == [
        ("value", "AggregateResult.n", 10, 9, {"Status": "3"})
    ]
    total_a, total_b = Outcome((), 1000), Outcome((), 999)
    assert kinds(
        compare(plan_of("SELECT COUNT() FROM Case"), total_a, total_b, NOTHING_SKIPPED, IdTranslation())[0]
    ) == ["count"]


def test_child_sub_queries_are_compared_as_sets_of_rows() -> None:
    def account(*children: str) -> dict[str, Any]:
        rows = [{"attributes": {"type": "Contact"}, "Id": child} for child in children]
        return {
            "attributes": {"type": "Account"},
            "Id": "001Ws0000000001IAA",
            "Contacts": {"totalSize": len(rows), "done": True, "records": rows},
        }

    plan = plan_of("SELECT Id, (SELECT Id FROM Contacts) FROM Account")
    a, b = answer(account("003A", "003B")), answer(account("003B", "003A"))
    assert compare(plan, a, b, NOTHING_SKIPPED, IdTranslation()) == ([], [])
    differences, _ = compare(plan, a, answer(account("003B")), NOTHING_SKIPPED, IdTranslation())
    assert differences[0]["children"] and [row["Id"] for row in differences[0]["a"]] == ["003A"]


def test_errors_compare_by_code() -> None:
    invalid = Outcome(error_code="INVALID_FIELD", message="No such column 'Colour__c' on entity 'Case'.")
    reworded = Outcome(error_code="INVALID_FIELD", message="another wording")
    malformed = Outcome(error_code="MALFORMED_QUERY", message="unexpected token")
    plan = plan_of("SELECT Colour__c FROM Case")
    assert compare(plan, invalid, reworded, NOTHING_SKIPPED, IdTranslation()) == ([], [])
    assert kinds(compare(plan, invalid, malformed, NOTHING_SKIPPED, IdTranslation())[0]) == ["error_code"]
    one_sided, _ = compare(plan, invalid, answer(), NOTHING_SKIPPED, IdTranslation())
    assert kinds(one_sided) == ["error_vs_success"]
    assert describe(one_sided[0]).startswith("error vs success: a INVALID_FIELD: No such column")


def test_the_plan_reads_clock_use_and_the_columns_of_order_by() -> None:
    assert plan_of("SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:30").clock
    assert not plan_of("SELECT Id FROM Case WHERE CreatedDate > 2024-01-01T00:00:00Z").clock
    assert plan_of("FIND {x} RETURNING Case(Id WHERE CreatedDate = TODAY)").clock
    aggregate = plan_of(
        "SELECT CALENDAR_YEAR(CreatedDate), COUNT(Id) n, MAX(ClosedDate) FROM Case "
        "GROUP BY CALENDAR_YEAR(CreatedDate) ORDER BY CALENDAR_YEAR(CreatedDate), COUNT(Id), MAX(ClosedDate)"
    )
    assert aggregate.order == ("expr0", "n", "expr1") and aggregate.group == ("expr0",)
    assert plan_of("SELECT Id, Account.Name FROM Case c ORDER BY c.Account.Name").order == ("Account.Name",)
    assert plan_of("SELECT Id FROM Case ORDER BY CreatedDate").order == ("CreatedDate",)


def test_keys_that_are_not_returned_end_the_compared_order() -> None:
    """Rows sorted by (EndTime, Id) are sorted by EndTime: an unselected Id only breaks the ties."""
    plan = plan_of("SELECT Body, EndTime FROM LiveChatTranscript ORDER BY EndTime, Id")

    def chat(body: str, end: str) -> dict[str, Any]:
        return {"attributes": {"type": "LiveChatTranscript"}, "Body": body, "EndTime": end}

    early, late, tie = chat("hi", "2024-01-01"), chat("bye", "2024-02-01"), chat("again", "2024-02-01")
    assert compare(plan, answer(early, late, tie), answer(early, tie, late), NOTHING_SKIPPED, IdTranslation())[0] == []
    swapped, notes = compare(plan, answer(early, late), answer(late, early), NOTHING_SKIPPED, IdTranslation())
    assert kinds(swapped) == ["order"] and notes == [
        "order compared by the keys before Id: it is not returned, or not compared"
    ]
    assert plan_of("SELECT Id FROM Case WHERE").order is None  # refused by both orgs: the codes are compared

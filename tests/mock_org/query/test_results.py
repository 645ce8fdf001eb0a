"""Result shapes: records, parents, children, aggregates and value formats as the REST API sends them."""

from __future__ import annotations

from ..conftest import ACCOUNTS, AGENT_A, CASES, ISSUE_REFUND, ISSUE_SIZE


def test_record_attributes_carry_type_and_versioned_url(org) -> None:
    record = org.query(f"SELECT Id FROM Case WHERE Id = '{CASES[0]}'", version="61.0")["records"][0]
    assert record["attributes"] == {"type": "Case", "url": f"/services/data/v61.0/sobjects/Case/{CASES[0]}"}


def test_parent_is_null_when_the_lookup_is_empty(org) -> None:
    record = org.query(f"SELECT Id, Account.Name, Account.Owner.Name FROM Case WHERE Id = '{CASES[4]}'")["records"][0]
    assert record["Account"] is None


def test_paths_through_one_parent_merge_into_one_nested_record(org) -> None:
    record = org.query(f"SELECT Account.Name, Subject, Account.ShippingState FROM Case WHERE Id = '{CASES[0]}'")[
        "records"
    ][0]
    assert list(record) == ["attributes", "Account", "Subject"]
    assert record["Account"] == {
        "attributes": {"type": "Account", "url": f"/services/data/v59.0/sobjects/Account/{ACCOUNTS[0]}"},
        "Name": "Patricia Walker",
        "ShippingState": "CA",
    }


def test_child_subquery_is_a_nested_result_or_null(org) -> None:
    records = org.query("SELECT Name, (SELECT Subject FROM Cases ORDER BY CaseNumber DESC) FROM Account ORDER BY Name")[
        "records"
    ]
    by_name = {record["Name"]: record["Cases"] for record in records}
    assert by_name["kim lee"]["totalSize"] == 1
    patricia = by_name["Patricia Walker"]
    assert patricia["done"] is True and [r["Subject"] for r in patricia["records"]] == [
        "WRONG SIZE again",
        "Wrong size",
    ]
    assert by_name["Ola Nordmann"]["records"][0]["attributes"]["type"] == "Case"
    records = org.query(f"SELECT Id, (SELECT Id FROM EmailMessages) FROM Case WHERE Id = '{CASES[1]}'")["records"]
    assert records[0]["EmailMessages"] is None


def test_child_subquery_limit_applies_per_parent(org) -> None:
    records = org.query(
        "SELECT Name, (SELECT Id FROM Cases ORDER BY CaseNumber LIMIT 1) FROM Account WHERE Name LIKE 'P%'"
    )["records"]
    assert [r["Id"] for r in records[0]["Cases"]["records"]] == [CASES[0]]


def test_nested_child_subqueries(org) -> None:
    records = org.query(
        f"SELECT Id, (SELECT Id, (SELECT Id FROM EmailMessages) FROM Cases WHERE Id = '{CASES[0]}') "
        f"FROM Account WHERE Id = '{ACCOUNTS[0]}'"
    )["records"]
    case = records[0]["Cases"]["records"][0]
    assert case["EmailMessages"]["totalSize"] == 2


def test_aggregate_keys_alias_expr_and_field_name(org) -> None:
    records = org.query(
        "SELECT IssueId__c, COUNT(Id) IssueCount, MAX(CreatedDate), IssueId__r.Name FROM Case "
        "WHERE IssueId__c != null GROUP BY IssueId__c, IssueId__r.Name ORDER BY COUNT(Id) DESC"
    )["records"]
    assert records[0] == {
        "attributes": {"type": "AggregateResult"},
        "IssueId__c": ISSUE_SIZE,
        "IssueCount": 4,
        "expr0": "2023-05-14T18:00:00.000+0000",
        "Name": "Size Mismatch",
    }
    assert records[1]["IssueId__c"] == ISSUE_REFUND


def test_grouping_by_owner_with_having(org) -> None:
    records = org.query("SELECT OwnerId, COUNT(Id) c FROM Case GROUP BY OwnerId HAVING COUNT(Id) > 2")["records"]
    assert records == [{"attributes": {"type": "AggregateResult"}, "OwnerId": AGENT_A, "c": 3}]


def test_aggregate_without_group_by_over_no_rows_returns_one_row(org) -> None:
    records = org.query("SELECT COUNT(Id), MAX(CreatedDate) FROM Case WHERE Subject = 'nothing'")["records"]
    assert records == [{"attributes": {"type": "AggregateResult"}, "expr0": 0, "expr1": None}]


def test_group_by_over_no_rows_returns_no_rows(org) -> None:
    assert org.query("SELECT Status, COUNT(Id) FROM Case WHERE Subject = 'nothing' GROUP BY Status")["records"] == []


def test_date_function_groups(org) -> None:
    records = org.query(
        "SELECT CALENDAR_YEAR(CreatedDate) y, CALENDAR_MONTH(CreatedDate) m, COUNT(Id) n FROM Case "
        "GROUP BY CALENDAR_YEAR(CreatedDate), CALENDAR_MONTH(CreatedDate) ORDER BY CALENDAR_YEAR(CreatedDate), "
        "CALENDAR_MONTH(CreatedDate)"
    )["records"]
    assert [(r["y"], r["m"], r["n"]) for r in records] == [
        (2022, 6, 1),
        (2022, 12, 1),
        (2023, 1, 1),
        (2023, 3, 2),
        (2023, 5, 2),
    ]


def test_rollup_adds_subtotals_and_a_grand_total(org) -> None:
    records = org.query(
        "SELECT Status, GROUPING(Status) g, COUNT(Id) n FROM Case GROUP BY ROLLUP(Status) ORDER BY GROUPING(Status), Status"
    )["records"]
    assert [(r["Status"], r["g"], r["n"]) for r in records] == [
        ("New", 0, 1),
        ("Working", 0, 1),
        ("Escalated", 0, 1),
        ("Closed", 0, 4),
        (None, 1, 7),
    ]


def test_cube_gives_every_combination(org) -> None:
    records = org.query(
        "SELECT Status, Priority, GROUPING(Status) gs, GROUPING(Priority) gp, COUNT(Id) n FROM Case "
        "GROUP BY CUBE(Status, Priority)"
    )["records"]
    totals = [r["n"] for r in records if r["gs"] == 1 and r["gp"] == 1]
    assert totals == [7]
    by_priority = {r["Priority"]: r["n"] for r in records if r["gs"] == 1 and r["gp"] == 0}
    assert by_priority == {"High": 3, "Medium": 2, "Low": 1, None: 1}  # case 7 has no priority
    by_status = {r["Status"]: r["n"] for r in records if r["gs"] == 0 and r["gp"] == 1}
    assert by_status == {"New": 1, "Working": 1, "Escalated": 1, "Closed": 4}


def test_value_formats(org) -> None:
    record = org.query("SELECT Quantity, UnitPrice, Order.EffectiveDate FROM OrderItem WHERE OrderItemNumber = '1'")[
        "records"
    ][0]
    assert record["Quantity"] == 1.0 and isinstance(record["Quantity"], float)
    assert record["Order"]["EffectiveDate"] == "2023-01-10"
    record = org.query(f"SELECT CreatedDate, IsClosed FROM Case WHERE Id = '{CASES[0]}'")["records"][0]
    assert record["CreatedDate"] == "2023-01-12T09:00:00.000+0000" and record["IsClosed"] is True


def test_sum_and_avg_are_doubles(org) -> None:
    record = org.query("SELECT SUM(Quantity) s, AVG(UnitPrice) a FROM OrderItem")["records"][0]
    assert record["s"] == 7.0 and isinstance(record["s"], float)
    assert round(record["a"], 3) == round((14.0 + 129.99 * 2 + 25.0) / 4, 3)

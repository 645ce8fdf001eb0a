"""SOQL semantics a real org has: case, nulls, LIKE, IN, dates, relationships, ordering, paging."""

from __future__ import annotations

import pytest

from mock_org.errors import MalformedQuery

from ..conftest import ACCOUNTS, AGENT_A, AGENT_B, AGENT_C, CASES, ids


def test_equality_on_strings_ignores_case(org) -> None:
    assert ids(org.query("SELECT Id FROM Case WHERE Subject = 'wrong SIZE'")) == [CASES[0]]
    assert ids(org.query("SELECT Id FROM Case WHERE Status = 'closed' ORDER BY CaseNumber")) == [
        CASES[0],
        CASES[1],
        CASES[2],
        CASES[6],
    ]


def test_equality_ignores_case_beyond_ascii(org) -> None:
    assert ids(org.query("SELECT Id FROM Account WHERE Name = 'JÜRGEN GROSS'")) == [ACCOUNTS[1]]
    assert ids(org.query("SELECT Id FROM Case WHERE Subject = 'GRÖSSE FALSCH'")) == [CASES[3]]


def test_like_is_case_insensitive_for_unicode(org) -> None:
    assert ids(org.query("SELECT Id FROM Account WHERE Name LIKE 'jür%'")) == [ACCOUNTS[1]]
    assert ids(org.query("SELECT Id FROM Case WHERE Subject LIKE '%SIZE%' ORDER BY CaseNumber")) == [CASES[0], CASES[1]]


def test_like_wildcards_and_escapes(org) -> None:
    assert ids(org.query("SELECT Id FROM Case WHERE Subject LIKE 'Wrong_size'")) == [CASES[0]]
    # `\%` and `\_` match themselves; bare `_` matches any one character.
    assert ids(org.query(r"SELECT Id FROM Case WHERE Subject LIKE '50\% %'")) == [CASES[5]]
    assert ids(org.query(r"SELECT Id FROM Case WHERE Subject LIKE 'under\_score%'")) == [CASES[6]]
    assert ids(org.query(r"SELECT Id FROM Case WHERE Subject LIKE '5_\%%'")) == [CASES[5]]
    assert ids(org.query("SELECT Id FROM Case WHERE Subject LIKE 'wrong size'")) == [CASES[0]]  # anchored both ends


def test_not_equal_includes_nulls(org) -> None:
    result = ids(org.query("SELECT Id FROM Case WHERE Subject != 'Wrong size' ORDER BY CaseNumber"))
    assert CASES[4] in result and CASES[0] not in result  # case 5 has no subject


def test_not_in_includes_nulls_unless_null_is_listed(org) -> None:
    assert CASES[4] in ids(org.query("SELECT Id FROM Case WHERE Subject NOT IN ('Wrong size')"))
    assert CASES[4] not in ids(org.query("SELECT Id FROM Case WHERE Subject NOT IN ('Wrong size', null)"))


def test_not_includes_rows_where_the_condition_is_on_null(org) -> None:
    result = ids(org.query("SELECT Id FROM Case WHERE NOT Subject LIKE 'wrong%'"))
    assert CASES[4] in result and CASES[0] not in result and CASES[1] not in result


def test_ordering_comparisons_never_match_null(org) -> None:
    assert CASES[4] not in ids(org.query("SELECT Id FROM Case WHERE Subject < 'zzz'"))
    assert CASES[4] not in ids(org.query("SELECT Id FROM Case WHERE Subject LIKE '%'"))


def test_equals_null_and_not_equals_null(org) -> None:
    assert ids(org.query("SELECT Id FROM Case WHERE Subject = null")) == [CASES[4]]
    assert CASES[4] not in ids(org.query("SELECT Id FROM Case WHERE Subject != NULL"))


def test_filter_on_a_missing_parent_matches_null(org) -> None:
    # Case 5 has no account: Account.ShippingState is null for it (SOQL reference, relationship queries).
    assert set(ids(org.query("SELECT Id FROM Case WHERE Account.ShippingState = null"))) == {CASES[4], CASES[5]}
    assert CASES[4] in ids(org.query("SELECT Id FROM Case WHERE Account.ShippingState != 'CA'"))


def test_in_list_ignores_case_and_handles_ids_of_15_and_18_characters(org) -> None:
    assert set(ids(org.query("SELECT Id FROM Account WHERE ShippingState IN ('ca')"))) == {ACCOUNTS[0], ACCOUNTS[3]}
    query = f"SELECT Id FROM Case WHERE Id IN ('{CASES[0][:15]}', '{CASES[1]}')"
    assert ids(org.query(query)) == [CASES[0], CASES[1]]


def test_reference_fields_take_15_character_ids(org) -> None:
    assert set(ids(org.query(f"SELECT Id FROM Case WHERE OwnerId = '{AGENT_B[:15]}'"))) == {CASES[2], CASES[3]}


def test_a_bad_id_literal_is_malformed(org) -> None:
    with pytest.raises(MalformedQuery) as caught:
        org.query("SELECT Id FROM Case WHERE OwnerId = '005xx'")
    assert caught.value.message.endswith("invalid ID field: 005xx")


def test_and_or_and_parentheses(org) -> None:
    query = (
        "SELECT Id FROM Case WHERE (Priority = 'High' OR Priority = 'Low') AND Status = 'Closed' ORDER BY CaseNumber"
    )
    assert ids(org.query(query)) == [CASES[0], CASES[2]]


def test_datetime_fields_compare_with_datetime_literals_in_any_offset(org) -> None:
    # 2023-03-01T23:30Z is 2023-03-01T15:30-08:00.
    assert ids(org.query("SELECT Id FROM Case WHERE CreatedDate = 2023-03-01T15:30:00-08:00")) == [CASES[1]]
    assert ids(org.query("SELECT Id FROM Case WHERE CreatedDate > 2023-05-14T00:00:00Z ORDER BY CreatedDate")) == [
        CASES[3],
        CASES[4],
    ]


def test_date_fields_compare_with_dates(org) -> None:
    assert org.query("SELECT Id FROM Order WHERE EffectiveDate = 2023-03-05")["totalSize"] == 1
    assert org.query("SELECT Id FROM Order WHERE EffectiveDate >= 2023-03-05")["totalSize"] == 2


def test_relative_date_literals_use_the_users_time_zone(org) -> None:
    # Today is 2023-05-15 in Los Angeles; TODAY begins at 2023-05-15T07:00:00Z.
    assert ids(org.query("SELECT Id FROM Case WHERE CreatedDate = TODAY")) == []
    assert ids(org.query("SELECT Id FROM Case WHERE CreatedDate = YESTERDAY ORDER BY CreatedDate")) == [
        CASES[3],
        CASES[4],
    ]
    assert set(ids(org.query("SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:70"))) == {
        CASES[2],
        CASES[3],
        CASES[4],
    }
    # 2023-03-01T23:30Z is still 1 March in Los Angeles, so it is LAST_N_MONTHS:2 (March and April).
    assert ids(org.query("SELECT Id FROM Case WHERE CreatedDate = LAST_N_MONTHS:2 ORDER BY CreatedDate")) == [
        CASES[1],
        CASES[2],
    ]
    assert ids(org.query("SELECT Id FROM Case WHERE CreatedDate < THIS_YEAR ORDER BY CreatedDate")) == [
        CASES[6],
        CASES[5],
    ]
    assert org.query("SELECT Id FROM Order WHERE EffectiveDate = THIS_QUARTER")["totalSize"] == 1


def test_date_functions_in_where(org) -> None:
    assert set(ids(org.query("SELECT Id FROM Case WHERE CALENDAR_MONTH(CreatedDate) = 3"))) == {CASES[1], CASES[2]}
    # In UTC case 6 was created on 31 December 2022; in Los Angeles too.
    assert ids(
        org.query("SELECT Id FROM Case WHERE CALENDAR_YEAR(CreatedDate) = 2022 AND DAY_IN_MONTH(CreatedDate) = 31")
    ) == [CASES[5]]
    # convertTimezone() moves 2023-03-01T23:30Z to 15:30 in Los Angeles.
    assert ids(org.query("SELECT Id FROM Case WHERE HOUR_IN_DAY(convertTimezone(CreatedDate)) = 15")) == [CASES[1]]
    assert ids(org.query("SELECT Id FROM Case WHERE DAY_ONLY(CreatedDate) = 2023-03-06")) == [CASES[2]]


def test_boolean_fields(org) -> None:
    assert org.query("SELECT Id FROM Product2 WHERE IsActive = true")["totalSize"] == 2
    assert org.query("SELECT Id FROM Product2 WHERE IsActive != TRUE")["totalSize"] == 1


def test_parent_paths_up_to_several_levels(org) -> None:
    result = org.query(
        "SELECT Id, OrderItemId__r.Order.Account.Name FROM Case WHERE OrderItemId__r.Order.EffectiveDate = 2023-03-05"
    )
    assert ids(result) == [CASES[2], CASES[3]]
    assert result["records"][0]["OrderItemId__r"]["Order"]["Account"]["Name"] == "Jürgen Groß"


def test_the_crmarena_tool_path_through_the_object_name(org) -> None:
    query = (
        f"SELECT Product2Id FROM OrderItem WHERE OrderItem.Order.AccountId = '{ACCOUNTS[0]}' "
        "AND OrderItem.Order.EffectiveDate = 2023-01-10 AND OrderItem.Order.Status = 'Activated'"
    )
    assert len(org.query(query)["records"]) == 2


def test_names_are_case_insensitive_and_come_back_with_the_schema_spelling(org) -> None:
    record = org.query("select id, SUBJECT, account.shippingstate from CASE where casenumber = '00001001'")["records"][
        0
    ]
    assert list(record) == ["attributes", "Id", "Subject", "Account"]
    assert list(record["Account"]) == ["attributes", "ShippingState"]
    assert record["attributes"]["type"] == "Case"


def test_fields_come_back_in_select_order(org) -> None:
    record = org.query("SELECT Status, Id, Priority, Subject FROM Case LIMIT 1")["records"][0]
    assert list(record) == ["attributes", "Status", "Id", "Priority", "Subject"]


def test_order_by_with_nulls_first_by_default(org) -> None:
    result = ids(org.query("SELECT Id FROM Case ORDER BY Subject"))
    assert result[0] == CASES[4]
    result = ids(org.query("SELECT Id FROM Case ORDER BY Subject DESC"))
    assert result[0] == CASES[4]
    result = ids(org.query("SELECT Id FROM Case ORDER BY Subject DESC NULLS LAST"))
    assert result[-1] == CASES[4]


def test_text_sorts_ignoring_case_and_accents(org) -> None:
    names = [r["Name"] for r in org.query("SELECT Name FROM Account ORDER BY Name")["records"]]
    assert names == ["Jürgen Groß", "kim lee", "Ola Nordmann", "Patricia Walker"]


def test_picklists_sort_in_definition_order(org) -> None:
    statuses = [r["Status"] for r in org.query("SELECT Status FROM Case ORDER BY Status, CaseNumber")["records"]]
    assert statuses == ["New", "Working", "Escalated", "Closed", "Closed", "Closed", "Closed"]


def test_order_by_parent_field_keeps_rows_without_parent(org) -> None:
    result = ids(org.query("SELECT Id FROM Case ORDER BY Account.Name NULLS LAST, CaseNumber"))
    assert len(result) == 7 and result[-1] == CASES[4]


def test_limit_and_offset(org) -> None:
    result = ids(org.query("SELECT Id FROM Case ORDER BY CaseNumber LIMIT 2 OFFSET 3"))
    assert result == [CASES[3], CASES[4]]
    assert org.query("SELECT Id FROM Case LIMIT 0")["records"] == []


def test_deleted_rows_only_through_query_all(org) -> None:
    assert CASES[7] not in ids(org.query("SELECT Id FROM Case"))
    result = org.query("SELECT Id, IsDeleted FROM Case WHERE Id = '" + CASES[7] + "'", include_deleted=True)
    assert result["records"][0]["IsDeleted"] is True


def test_semi_and_anti_joins(org) -> None:
    assert set(
        ids(org.query("SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case WHERE Status = 'Closed')"))
    ) == {
        ACCOUNTS[0],
        ACCOUNTS[1],
        ACCOUNTS[3],
    }
    assert ids(org.query("SELECT Id FROM Account WHERE Id NOT IN (SELECT AccountId FROM Case)")) == []
    query = "SELECT Id FROM User WHERE Id IN (SELECT OwnerId FROM Case WHERE Priority = 'High') AND IsActive = true"
    assert set(ids(org.query(query))) == {AGENT_A, AGENT_B}


def test_using_scope_mine_keeps_the_users_records(org) -> None:
    assert set(ids(org.query("SELECT Id FROM Case USING SCOPE mine", user_id=AGENT_C))) == {CASES[4], CASES[6]}
    assert len(ids(org.query("SELECT Id FROM Case USING SCOPE everything", user_id=AGENT_C))) == 7


def test_count_all_and_count_field(org) -> None:
    assert org.query("SELECT COUNT() FROM Case") == {"totalSize": 7, "done": True, "records": []}
    assert org.query("SELECT COUNT() FROM Case LIMIT 3")["totalSize"] == 3
    record = org.query("SELECT COUNT(Id), COUNT(Subject), COUNT_DISTINCT(OwnerId) FROM Case")["records"][0]
    assert record == {"attributes": {"type": "AggregateResult"}, "expr0": 7, "expr1": 6, "expr2": 3}


def test_paging_through_next_records_url(org) -> None:
    first = org.query("SELECT Id FROM PricebookEntry", batch_size=200)
    assert first["done"] is True  # 3 entries fit in one page
    with pytest.raises(MalformedQuery):
        org.query("SELECT Id FROM Case LIMIT -1")


def test_to_label_and_format(org) -> None:
    record = org.query("SELECT toLabel(Status), FORMAT(CreatedDate) d FROM Case WHERE CaseNumber = '00001001'")[
        "records"
    ][0]
    assert record["Status"] == "Closed"
    assert record["d"] == "1/12/2023, 1:00 AM"  # 09:00 UTC in Los Angeles
    price = org.query("SELECT FORMAT(UnitPrice) p FROM PricebookEntry WHERE Name = 'Trail Running Shoe'")["records"][0]
    assert price["p"] == "$129.99"


def test_fields_function_expands_from_the_schema(org) -> None:
    record = org.query("SELECT FIELDS(STANDARD) FROM Issue__c WHERE Name = 'Size Mismatch'")["records"][0]
    assert "Name" in record and "Description__c" not in record
    record = org.query("SELECT FIELDS(CUSTOM) FROM Issue__c LIMIT 1")["records"][0]
    assert list(record) == ["attributes", "Description__c"]


def test_typeof_on_the_polymorphic_owner(org) -> None:
    record = org.query(
        f"SELECT TYPEOF Owner WHEN User THEN Alias, Email ELSE Name END FROM Case WHERE Id = '{CASES[0]}'"
    )["records"][0]
    assert record["Owner"]["attributes"]["type"] == "User"
    assert list(record["Owner"]) == ["attributes", "Alias", "Email"]
    owner = org.query(f"SELECT Owner.Name, Owner.Type FROM Case WHERE Id = '{CASES[0]}'")["records"][0]["Owner"]
    assert owner["Name"] == "Sofia Kouris" and owner["Type"] == "User"

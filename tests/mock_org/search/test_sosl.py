"""SOSL: terms, operators, wildcards, field groups, RETURNING clauses, limits, errors."""

from __future__ import annotations

import pytest

from mock_org.errors import InvalidSearch, InvalidType, MalformedSearch

from ..conftest import ACCOUNTS, CASES, PRODUCTS


def found(org, sosl: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [record["Id"] for record in org.search(sosl)["searchRecords"]]


def test_words_match_tokens_ignoring_case_and_accents(org) -> None:
    assert found(org, "FIND {WRONG} RETURNING Case(Id ORDER BY CaseNumber)") == [CASES[0], CASES[1]]
    assert found(org, "FIND {grosse} RETURNING Case") == []  # ß is not "ss" in the index
    assert found(org, "FIND {Größe} RETURNING Case") == [CASES[3]]
    assert found(org, "FIND {jurgen} RETURNING Account") == [ACCOUNTS[1]]


def test_juxtaposed_words_are_anded(org) -> None:
    assert found(org, "FIND {wrong again} RETURNING Case") == [CASES[1]]


def test_operators(org) -> None:
    assert set(found(org, "FIND {refund OR again} RETURNING Case")) == {CASES[1], CASES[2]}
    assert found(org, "FIND {wrong AND NOT again} RETURNING Case") == [CASES[0]]
    assert found(org, "FIND {(wrong OR refund) AND please} RETURNING Case") == [CASES[2]]


def test_phrases(org) -> None:
    assert found(org, 'FIND {"size again"} RETURNING Case') == [CASES[1]]
    assert found(org, 'FIND {"again size"} RETURNING Case') == []


def test_wildcards(org) -> None:
    assert set(found(org, "FIND {wro*} RETURNING Case")) == {CASES[0], CASES[1]}
    assert found(org, "FIND {ref?nd} RETURNING Case") == [CASES[2]]
    assert found(org, "FIND {disc*nt} RETURNING Case") == [CASES[5]]


def test_escaped_reserved_characters(org) -> None:
    assert found(org, r"FIND {under\_score} RETURNING Case") == [CASES[6]]


def test_returning_fields_where_order_and_limit(org) -> None:
    records = org.search(
        "FIND {size} RETURNING Case(Subject, Account.Name WHERE Status = 'Closed' ORDER BY Subject DESC LIMIT 1)"
    )["searchRecords"]
    assert records == [
        {
            "attributes": {"type": "Case", "url": f"/services/data/v59.0/sobjects/Case/{CASES[1]}"},
            "Subject": "WRONG SIZE again",
            "Account": {
                "attributes": {"type": "Account", "url": f"/services/data/v59.0/sobjects/Account/{ACCOUNTS[0]}"},
                "Name": "Patricia Walker",
            },
        }
    ]


def test_returning_without_fields_gives_ids_only(org) -> None:
    record = org.search("FIND {refund} RETURNING Case")["searchRecords"][0]
    assert list(record) == ["attributes", "Id"]


def test_results_are_grouped_by_object_in_returning_order(org) -> None:
    records = org.search("FIND {trail} RETURNING Knowledge__kav(Title), Product2(Name)")["searchRecords"]
    assert [r["attributes"]["type"] for r in records] == ["Knowledge__kav", "Product2"]
    assert records[1]["Id"] if "Id" in records[1] else records[1]["Name"] == "Trail Running Shoe"


def test_crmarena_knowledge_search_shape(org) -> None:
    records = org.search(
        "FIND {refund policy} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, FAQ_Answer__c "
        "WHERE PublishStatus = 'Online' AND Language = 'en_US')"
    )["searchRecords"]
    # Articles OR their words by default: "policy" alone finds the return policy.
    assert [r["Title"] for r in records] == ["Return Policy"]


def test_product_search_shape(org) -> None:
    assert found(org, "FIND {speed rope} IN ALL FIELDS RETURNING Product2(Id, Name, Description)") == [PRODUCTS[0]]


def test_search_groups(org) -> None:
    assert found(org, "FIND {patricia} IN EMAIL FIELDS RETURNING Contact") == [
        org.query("SELECT Id FROM Contact WHERE FirstName = 'Patricia'")["records"][0]["Id"]
    ]
    assert found(org, "FIND {walker} IN EMAIL FIELDS RETURNING Account") == []
    assert found(org, "FIND {walker} IN NAME FIELDS RETURNING Account") == [ACCOUNTS[0]]
    assert found(org, "FIND {long} IN NAME FIELDS RETURNING Case") == []  # descriptions are not name fields
    assert len(found(org, "FIND {long} IN ALL FIELDS RETURNING Case")) == 7


def test_without_returning_every_searchable_object_is_searched(org) -> None:
    records = org.search("FIND {walker}")["searchRecords"]
    assert {r["attributes"]["type"] for r in records} == {"Account", "Contact"}


def test_deleted_records_are_not_found(org) -> None:
    assert CASES[7] not in found(org, "FIND {deleted} RETURNING Case")


def test_overall_limit_is_shared(org) -> None:
    records = org.search("FIND {walker OR lee OR long} RETURNING Account(Name), Case(Subject) LIMIT 4")["searchRecords"]
    assert [r["attributes"]["type"] for r in records] == ["Account", "Account", "Case", "Case"]


def test_offset_rules(org) -> None:
    with pytest.raises(MalformedSearch) as caught:
        org.search("FIND {wrong} RETURNING Case(Id OFFSET 1), Account(Id OFFSET 1)")
    assert caught.value.message == "SOSL offset should be between 0 to 2000"
    assert found(org, "FIND {wrong} RETURNING Case(Id ORDER BY CaseNumber OFFSET 1)") == [CASES[1]]


def test_errors(org) -> None:
    with pytest.raises(InvalidSearch) as caught:
        org.search("FIND {a} RETURNING Case")
    assert caught.value.message == "search term must be longer than one character: a"
    with pytest.raises(MalformedSearch) as caught:
        org.search("FIND {John|Jane} RETURNING Contact")
    assert caught.value.message.endswith("line 1:10 mismatched character '|' expecting '}'")
    with pytest.raises(InvalidType) as caught:
        org.search("FIND {john} RETURNING Lead(Name)")
    assert "sObject type 'Lead' is not supported." in caught.value.message
    with pytest.raises(MalformedSearch):
        org.search("FIND {john} IN ALL TYPE RETURNING Contact")


def test_metadata_labels(org) -> None:
    body = org.search("FIND {refund} RETURNING Case(Subject) WITH METADATA = 'LABELS'")
    assert body["metadata"] == {
        "entityMetadata": [{"entityName": "Case", "fieldMetadata": [{"name": "Subject", "label": "Subject"}]}]
    }

"""Writes: create, update, upsert, delete and undelete, each failure with the real org's error code."""

from __future__ import annotations

import pytest

from mock_org.errors import (
    DuplicateValue,
    EntityIsDeleted,
    InsufficientAccessOrReadonly,
    InvalidCrossReferenceKey,
    InvalidField,
    InvalidFieldForInsertUpdate,
    InvalidOrNullForRestrictedPicklist,
    JsonParserError,
    MalformedId,
    MultipleRecords,
    NotFound,
    RequiredFieldMissing,
    StringTooLong,
)
from mock_org.ids import checksum
from mock_org.org import Org

from .builder import ADMIN, rid
from .conftest import ACCOUNTS, AGENT_A, CASES, PRODUCTS


def test_create_mints_an_id_and_fills_audit_fields(writable_org) -> None:
    case_id = writable_org.create("Case", {"Subject": "New problem", "AccountId": ACCOUNTS[0]}, user_id=AGENT_A)
    assert case_id.startswith("500") and checksum(case_id[:15]) == case_id[15:]
    record = writable_org.retrieve("Case", case_id)
    assert record["Subject"] == "New problem" and record["Status"] == "New"  # picklist default
    assert record["OwnerId"] == AGENT_A and record["CreatedById"] == AGENT_A
    assert record["CreatedDate"] == record["LastModifiedDate"] == "2023-05-15T19:00:00.000+0000"
    assert record["CaseNumber"] == "00001009"  # continues the auto number
    assert record["IsDeleted"] is False and record["IsClosed"] is False
    assert writable_org.query(f"SELECT Id FROM Case WHERE Id = '{case_id}'")["totalSize"] == 1


def test_new_ids_never_collide_with_existing_ones(writable_org) -> None:
    new_ids = {writable_org.create("Case", {"Subject": f"n{i}"}, user_id=AGENT_A) for i in range(5)}
    assert len(new_ids) == 5 and not new_ids & set(CASES)


def test_update_changes_fields_and_calculated_ones(writable_org) -> None:
    writable_org.update("Case", CASES[3], {"Status": "Closed", "Subject": "Fixed"}, user_id=AGENT_A)
    record = writable_org.retrieve("Case", CASES[3][:15])
    assert record["Status"] == "Closed" and record["IsClosed"] is True and record["Subject"] == "Fixed"
    assert record["LastModifiedById"] == AGENT_A
    writable_org.update(
        "Contact",
        writable_org.query("SELECT Id FROM Contact LIMIT 1")["records"][0]["Id"],
        {"LastName": "Smith"},
        user_id=AGENT_A,
    )
    assert (
        writable_org.query("SELECT Name FROM Contact WHERE LastName = 'Smith'")["records"][0]["Name"]
        == "Patricia Smith"
    )


def test_delete_moves_to_the_recycle_bin_and_query_all_sees_it(writable_org) -> None:
    writable_org.delete("Case", CASES[0], user_id=AGENT_A)
    assert writable_org.query(f"SELECT Id FROM Case WHERE Id = '{CASES[0]}'")["totalSize"] == 0
    assert writable_org.query(f"SELECT Id FROM Case WHERE Id = '{CASES[0]}'", include_deleted=True)["totalSize"] == 1
    # Emails are master-detail children of the case: they go with it.
    assert writable_org.query(f"SELECT Id FROM EmailMessage WHERE ParentId = '{CASES[0]}'")["totalSize"] == 0
    with pytest.raises(NotFound):
        writable_org.retrieve("Case", CASES[0])
    with pytest.raises(EntityIsDeleted):
        writable_org.update("Case", CASES[0], {"Subject": "x"}, user_id=AGENT_A)
    with pytest.raises(EntityIsDeleted):
        writable_org.delete("Case", CASES[0], user_id=AGENT_A)
    writable_org.undelete("Case", CASES[0], user_id=AGENT_A)
    assert writable_org.query(f"SELECT Id FROM Case WHERE Id = '{CASES[0]}'")["totalSize"] == 1


def test_purge_removes_the_record_and_its_details_for_good(writable_org) -> None:
    emails = f"SELECT Id FROM EmailMessage WHERE ParentId = '{CASES[0]}'"
    assert writable_org.query(emails)["totalSize"] == 2  # master-detail children, to be taken along
    writable_org.purge("Case", CASES[0], user_id=AGENT_A)
    for soql in (f"SELECT Id FROM Case WHERE Id = '{CASES[0]}'", emails):
        assert writable_org.query(soql, include_deleted=True)["totalSize"] == 0  # not even in the recycle bin
    with pytest.raises(NotFound):
        writable_org.undelete("Case", CASES[0], user_id=AGENT_A)
    with pytest.raises(NotFound):
        writable_org.purge("Case", CASES[0], user_id=AGENT_A)
    writable_org.delete("Case", CASES[2], user_id=AGENT_A)
    with pytest.raises(EntityIsDeleted):  # a record in the recycle bin is not hard deleted again
        writable_org.purge("Case", CASES[2], user_id=AGENT_A)


def test_read_only_org_refuses_purge(org) -> None:
    with pytest.raises(InsufficientAccessOrReadonly):
        org.purge("Case", CASES[1], user_id=AGENT_A)


def test_upsert_by_external_id(writable_org) -> None:
    record_id, created = writable_org.upsert(
        "Product2", "External_ID__c", "Fitness_1", {"Name": "Pro Speed Rope 2"}, user_id=ADMIN
    )
    assert (record_id, created) == (PRODUCTS[0], False)
    assert writable_org.retrieve("Product2", PRODUCTS[0])["Name"] == "Pro Speed Rope 2"
    new_id, created = writable_org.upsert(
        "Product2", "External_ID__c", "Fitness_99", {"Name": "Kettlebell"}, user_id=ADMIN
    )
    assert created and writable_org.retrieve("Product2", new_id)["External_ID__c"] == "Fitness_99"


def test_upsert_with_a_field_that_is_no_external_id(writable_org) -> None:
    with pytest.raises(NotFound) as caught:
        writable_org.upsert("Product2", "Name", "x", {}, user_id=ADMIN)
    assert "Provided external ID field does not exist or is not accessible: Name" in caught.value.message


@pytest.mark.parametrize(
    ("data", "error", "fields"),
    [
        ({"Subject": "x", "Foo__c": 1}, InvalidField, ["Foo__c"]),
        ({"CaseNumber": "1"}, InvalidFieldForInsertUpdate, ["CaseNumber"]),
        ({"AccountId": "001xx"}, MalformedId, ["AccountId"]),
        ({"AccountId": CASES[0]}, InvalidCrossReferenceKey, ["AccountId"]),
        ({"Subject": "x" * 256}, StringTooLong, ["Subject"]),
        ({"ClosedDate": "yesterday"}, JsonParserError, ["ClosedDate"]),
    ],
)
def test_bad_case_data(writable_org, data: dict, error: type, fields: list[str]) -> None:
    with pytest.raises(error) as caught:
        writable_org.create("Case", data, user_id=AGENT_A)
    assert caught.value.fields == fields
    assert writable_org.query("SELECT COUNT() FROM Case")["totalSize"] == 7  # nothing was written


def test_required_fields(writable_org) -> None:
    with pytest.raises(RequiredFieldMissing) as caught:
        writable_org.create("Product2", {"Description": "nameless"}, user_id=ADMIN)
    assert caught.value.message == "Required fields are missing: [Name]" and caught.value.fields == ["Name"]


def test_restricted_picklist(writable_org) -> None:
    with pytest.raises(InvalidOrNullForRestrictedPicklist) as caught:
        writable_org.create(
            "Order", {"AccountId": ACCOUNTS[0], "EffectiveDate": "2023-05-01", "Status": "Shipped"}, user_id=ADMIN
        )
    assert caught.value.message == "Status: bad value for restricted picklist field: Shipped"


def test_unique_values(writable_org) -> None:
    with pytest.raises(DuplicateValue) as caught:
        writable_org.create("Product2", {"Name": "Dup", "External_ID__c": "fitness_1"}, user_id=ADMIN)
    assert (
        caught.value.message
        == f"duplicate value found: External_ID__c duplicates value on record with id: {PRODUCTS[0]}"
    )


def test_multiple_external_id_matches(writable_org) -> None:
    with writable_org.transaction() as connection:
        table = writable_org.storage.tables["product2"]
        connection.execute(table.update().where(table.c.Id == PRODUCTS[1]).values(External_ID__c="Fitness_1"))
    with pytest.raises(MultipleRecords) as caught:
        writable_org.retrieve_by_external_id("Product2", "External_ID__c", "Fitness_1")
    assert sorted(caught.value.ids) == sorted([PRODUCTS[0], PRODUCTS[1]])


def test_a_transaction_lands_entirely_or_not_at_all(writable_org) -> None:
    with pytest.raises(RequiredFieldMissing), writable_org.transaction() as connection:
        writer, case = writable_org.writer, writable_org.sobject("Product2")
        writer.create(connection, case, {"Name": "first"}, ADMIN)
        writer.create(connection, case, {"Description": "second, nameless"}, ADMIN)
    assert writable_org.query("SELECT COUNT() FROM Product2 WHERE Name = 'first'")["totalSize"] == 0


def test_search_index_follows_writes(writable_org) -> None:
    new_id = writable_org.create("Case", {"Subject": "Zipper jammed"}, user_id=AGENT_A)
    assert [r["Id"] for r in writable_org.search("FIND {zipper} RETURNING Case")["searchRecords"]] == [new_id]
    writable_org.update("Case", new_id, {"Subject": "Lace broken"}, user_id=AGENT_A)
    assert writable_org.search("FIND {zipper} RETURNING Case")["searchRecords"] == []
    writable_org.delete("Case", new_id, user_id=AGENT_A)
    assert writable_org.search("FIND {lace} RETURNING Case")["searchRecords"] == []


def test_read_only_org_refuses_writes(org) -> None:
    with pytest.raises(InsufficientAccessOrReadonly):
        org.create("Case", {"Subject": "x"}, user_id=AGENT_A)


def test_order_lines_come_from_the_orders_price_book(writable_org) -> None:
    from mock_org.errors import FieldIntegrityException

    from .conftest import ORDERS

    line = writable_org.create(
        "OrderItem",
        {"OrderId": ORDERS[1], "PricebookEntryId": rid("01u", 1), "Quantity": 2, "UnitPrice": 14.0},
        user_id=ADMIN,
    )
    record = writable_org.retrieve("OrderItem", line)
    assert record["Product2Id"] == PRODUCTS[0] and record["TotalPrice"] == 28.0
    order = writable_org.create(
        "Order", {"AccountId": ACCOUNTS[0], "EffectiveDate": "2023-05-01", "Status": "Draft"}, user_id=ADMIN
    )
    with pytest.raises(FieldIntegrityException) as caught:
        writable_org.create(
            "OrderItem",
            {"OrderId": order, "PricebookEntryId": rid("01u", 1), "Quantity": 1, "UnitPrice": 14.0},
            user_id=ADMIN,
        )
    assert caught.value.fields == ["PricebookEntryId"] and "Order has no pricebook assigned" in caught.value.message
    with pytest.raises(FieldIntegrityException):
        writable_org.create(
            "OrderItem",
            {
                "OrderId": ORDERS[1],
                "PricebookEntryId": rid("01u", 1),
                "Product2Id": PRODUCTS[1],
                "Quantity": 1,
                "UnitPrice": 14.0,
            },
            user_id=ADMIN,
        )


def test_two_orgs_writing_one_file_never_mint_one_id(writable_org) -> None:
    """Two workers of ``serve --workers`` are two Orgs over one file, each with its own Id counter."""
    other = Org(writable_org.storage.path, clock=writable_org.clock)
    try:
        minted = []
        for number in range(6):
            writer = writable_org if number % 2 == 0 else other
            minted.append(writer.create("Case", {"Subject": f"turn {number}"}, user_id=AGENT_A))
        assert len(set(minted)) == len(minted) and not set(minted) & set(CASES)
        assert writable_org.query("SELECT COUNT() FROM Case WHERE Subject LIKE 'turn %'")["totalSize"] == 6
    finally:
        other.close()


def test_an_orders_total_is_the_sum_of_its_live_lines(writable_org) -> None:
    from .conftest import ORDERS

    def total() -> float:
        return writable_org.query(f"SELECT TotalAmount FROM Order WHERE Id = '{ORDERS[1]}'")["records"][0][
            "TotalAmount"
        ]

    entry = {"OrderId": ORDERS[1], "PricebookEntryId": rid("01u", 1), "UnitPrice": 6.9}
    line = writable_org.create("OrderItem", {**entry, "Quantity": 101}, user_id=ADMIN)
    assert writable_org.retrieve("OrderItem", line)["TotalPrice"] == 696.9  # the currency's two places, no float noise
    assert total() == 826.89  # 129.99 + 696.9
    writable_org.update("OrderItem", line, {"Quantity": 1}, user_id=ADMIN)
    assert total() == 136.89
    writable_org.delete("OrderItem", line, user_id=ADMIN)
    assert total() == 129.99
    writable_org.undelete("OrderItem", line, user_id=ADMIN)
    assert total() == 136.89
    writable_org.purge("OrderItem", line, user_id=ADMIN)
    assert total() == 129.99

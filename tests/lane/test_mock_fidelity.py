"""The empty org and the audit-field permission, as a fresh real org has them."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from simple_salesforce.exceptions import SalesforceMalformedRequest

from fixtures import default_org

from .helpers import empty_org as serve_empty_org
from .helpers import grant_audit_fields

AUDIT = {"CreatedDate": "2019-03-04T05:06:07.000+0000", "LastModifiedDate": "2019-03-05T05:06:07.000+0000"}


@pytest.fixture(scope="module")
def empty_org():
    with serve_empty_org(audit=False) as org:
        yield org


def test_an_empty_org_has_the_standard_records_and_the_users_only(empty_org) -> None:
    sf = empty_org.connect()
    counts = {
        name: sf.query(f"SELECT COUNT() FROM {name}")["totalSize"]
        for name in (
            "User",
            "Profile",
            "RecordType",
            "Group",
            "Organization",
            "Pricebook2",
            "Account",
            "Case",
            "Knowledge__kav",
            "ProductCatalog",
            "LiveChatVisitor",
            "PricebookEntry",
        )
    }
    with closing(sqlite3.connect(default_org())) as dump:  # an empty org keeps the default org's users, as many
        (users,) = dump.execute('SELECT COUNT(*) FROM "User"').fetchone()  # as the org the lane will push to
    assert users > 1 and counts["User"] == users and counts["Profile"] == 3 and counts["Organization"] == 1
    assert counts["RecordType"] == 1 and counts["Group"] == 1
    assert counts["Pricebook2"] == 1  # the Standard Price Book
    assert sf.query("SELECT IsStandard FROM Pricebook2")["records"][0]["IsStandard"] is True
    assert all(
        counts[name] == 0
        for name in ("Account", "Case", "Knowledge__kav", "ProductCatalog", "LiveChatVisitor", "PricebookEntry")
    )
    assert sf.search("FIND {shoes} IN ALL FIELDS RETURNING Product2(Id), Knowledge__kav(Id)")["searchRecords"] == []
    created = sf.Issue__c.create({"Name": "Fresh"})["id"]
    assert created[3:5] == "Fr"  # its own pod: never an Id of the dump


def test_audit_fields_are_refused_on_insert_without_the_permission(empty_org) -> None:
    sf = empty_org.connect()
    with pytest.raises(SalesforceMalformedRequest) as refused:
        sf.Issue__c.create({"Name": "Backdated", **AUDIT})
    (error,) = refused.value.content
    assert error["errorCode"] == "INVALID_FIELD_FOR_INSERT_UPDATE"
    assert error["fields"] == ["CreatedDate", "LastModifiedDate"]
    assert error["message"] == (
        "Unable to create/update fields: CreatedDate, LastModifiedDate. Please check the security settings of this "
        "field and verify that it is read/write for your profile or permission set."
    )
    assert sf.query("SELECT COUNT() FROM Issue__c WHERE Name = 'Backdated'")["totalSize"] == 0


def test_with_the_permission_audit_fields_are_set_on_insert_never_on_update(empty_org) -> None:
    grant_audit_fields(empty_org)
    sf = empty_org.connect()
    other = sf.query("SELECT Id FROM User WHERE IsActive = true ORDER BY Id DESC LIMIT 1")["records"][0]["Id"]
    record_id = sf.Issue__c.create({"Name": "Backdated", **AUDIT, "CreatedById": other})["id"]
    record = sf.Issue__c.get(record_id)
    assert (record["CreatedDate"], record["LastModifiedDate"]) == (AUDIT["CreatedDate"], AUDIT["LastModifiedDate"])
    assert record["CreatedById"] == other and record["SystemModstamp"] != AUDIT["CreatedDate"]
    with pytest.raises(SalesforceMalformedRequest) as refused:
        sf.Issue__c.update(record_id, {"CreatedDate": "2020-01-01T00:00:00.000+0000"})
    assert refused.value.content[0]["errorCode"] == "INVALID_FIELD_FOR_INSERT_UPDATE"
    with pytest.raises(SalesforceMalformedRequest) as refused:
        sf.Issue__c.create({"Name": "Stamped", "SystemModstamp": AUDIT["CreatedDate"]})
    assert refused.value.content[0]["fields"] == ["SystemModstamp"]
    # Without the assignment the permission is gone again.
    (assignment,) = sf.query("SELECT Id FROM PermissionSetAssignment WHERE PermissionSet.Name = 'CRMArena_Lane'")[
        "records"
    ]
    sf.PermissionSetAssignment.delete(assignment["Id"])
    with pytest.raises(SalesforceMalformedRequest):
        sf.Issue__c.create({"Name": "Backdated again", **AUDIT})

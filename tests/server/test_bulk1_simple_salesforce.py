"""Bulk API 1.0 end to end with unmodified simple-salesforce (``sf.bulk.<Object>``, JSON jobs) over HTTPS:
every operation, several batches, failing batches and records, hard delete, and the values' formats."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
import requests
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import SalesforceGeneralError, SalesforceMalformedRequest

from mock_org.server.serve import RunningOrg
from tests.mock_org.conftest import ACCOUNTS, CASES, CONTACTS, ORDERS

pytestmark = pytest.mark.usefixtures("ca_env")


@pytest.fixture
def sf(running: RunningOrg) -> Salesforce:
    return Salesforce(
        username=running.username,
        password=running.password,
        security_token=running.security_token,
        domain=f"127.0.0.1:{running.server.port}/login",
    )


def fresh(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:8]}"


def epoch_ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC).timestamp() * 1000)


def job(sf: Salesforce, job_id: str) -> dict:
    """The job as the API shows it (simple-salesforce keeps no job objects of its own)."""
    answer = requests.get(
        f"{sf.bulk_url}job/{job_id}", headers={"X-SFDC-Session": sf.session_id, "Content-Type": "application/json"}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


# ----------------------------------------------------------------------------- queries


def test_query_returns_records_with_attributes_and_parent_fields(sf: Salesforce) -> None:
    records = sf.bulk.Contact.query("SELECT Id, Name, Account.Name FROM Contact ORDER BY Name", wait=0)
    assert [record["Id"] for record in records] == [CONTACTS[1], CONTACTS[2], CONTACTS[3], CONTACTS[0]]
    first = records[0]
    assert first["attributes"] == {
        "type": "Contact",
        "url": f"/services/data/v{sf.sf_version}/sobjects/Contact/{CONTACTS[1]}",
    }
    assert first["Name"] == "Jürgen Groß"
    assert first["Account"]["attributes"]["type"] == "Account" and first["Account"]["Name"] == "Jürgen Groß"


def test_query_gives_dates_and_datetimes_as_epoch_milliseconds(sf: Salesforce) -> None:
    cases = sf.bulk.Case.query(f"SELECT CreatedDate, Account.CreatedDate FROM Case WHERE Id = '{CASES[0]}'", wait=0)
    assert cases[0]["CreatedDate"] == epoch_ms("2023-01-12T09:00:00") == 1673514000000
    assert isinstance(cases[0]["Account"]["CreatedDate"], int)
    orders = sf.bulk.Order.query(f"SELECT EffectiveDate, TotalAmount FROM Order WHERE Id = '{ORDERS[0]}'", wait=0)
    assert orders[0]["EffectiveDate"] == epoch_ms("2023-01-10T00:00:00") == 1673308800000


def test_query_all_sees_deleted_rows_and_query_does_not(sf: Salesforce) -> None:
    soql = "SELECT Id, IsDeleted FROM Case WHERE Subject = 'Deleted case'"
    assert sf.bulk.Case.query(soql, wait=0) == []
    deleted = sf.bulk.Case.query_all(soql, wait=0)
    assert [(record["Id"], record["IsDeleted"]) for record in deleted] == [(CASES[7], True)]


def test_lazy_query_yields_each_result_as_a_list(sf: Salesforce) -> None:
    results = sf.bulk.Account.query("SELECT Id FROM Account", lazy_operation=True, wait=0)
    assert not isinstance(results, list)
    pages = list(results)
    assert len(pages) == 1 and sorted(record["Id"] for record in pages[0]) == ACCOUNTS


def test_a_bad_query_fails_its_batch_with_the_orgs_message(sf: Salesforce) -> None:
    with pytest.raises(SalesforceGeneralError) as failed:
        sf.bulk.Account.query("SELECT Id, Nope__c FROM Account", wait=0)
    message = failed.value.content
    assert message.startswith("InvalidBatch : Failed to process query: INVALID_FIELD: ")
    assert "No such column 'Nope__c' on entity 'Account'" in message
    with pytest.raises(SalesforceGeneralError) as malformed:
        sf.bulk.Account.query("SELECT Id FRM Account", wait=0)
    assert "MALFORMED_QUERY" in malformed.value.content


def test_bulk_query_refuses_subqueries_and_aggregates(sf: Salesforce) -> None:
    with pytest.raises(SalesforceGeneralError) as subquery:
        sf.bulk.Account.query("SELECT Id, (SELECT Id FROM Contacts) FROM Account", wait=0)
    assert subquery.value.content == (
        "InvalidBatch : Failed to process query: FUNCTIONALITY_NOT_ENABLED: "
        "Aggregate Relationships not supported in Bulk Query"
    )
    for soql in (
        "SELECT COUNT() FROM Account",
        "SELECT ShippingState, COUNT(Id) n FROM Account GROUP BY ShippingState",
    ):
        with pytest.raises(SalesforceGeneralError) as aggregate:
            sf.bulk.Account.query(soql, wait=0)
        assert "FUNCTIONALITY_NOT_ENABLED" in aggregate.value.content


# ----------------------------------------------------------------------------- DML


def test_insert_in_several_batches_keeps_the_request_order(sf: Salesforce) -> None:
    names = [fresh("Bulk1 insert") for _ in range(5)]
    results = sf.bulk.Issue__c.insert([{"Name": name} for name in names], batch_size=2)
    assert len(results) == 5 and all(result["success"] and result["created"] for result in results)
    assert all(result["id"].startswith("a1M") and result["errors"] == [] for result in results)
    rows = sf.query_all("SELECT Id, Name FROM Issue__c WHERE Name LIKE 'Bulk1 insert %'")["records"]
    by_id = {row["Id"]: row["Name"] for row in rows}
    assert [by_id[result["id"]] for result in results] == names


def test_bypass_results_answers_each_batch_with_its_job(sf: Salesforce) -> None:
    answer = sf.bulk.Issue__c.insert(
        [{"Name": fresh("Bulk1 bypass")} for _ in range(3)], batch_size=1, bypass_results=True
    )
    assert answer[::2] == [{"bypass_results": True}] * 3
    job_ids = {entry["job_id"] for entry in answer[1::2]}
    assert len(job_ids) == 1
    info = job(sf, job_ids.pop())
    assert info["id"].startswith("750") and info["state"] == "Closed" and info["contentType"] == "JSON"
    assert info["numberBatchesTotal"] == info["numberBatchesCompleted"] == 3 and info["numberRecordsProcessed"] == 3
    assert info["operation"] == "insert" and info["object"] == "Issue__c" and info["apiVersion"] == 59.0


def test_each_record_fails_or_succeeds_alone(sf: Salesforce) -> None:
    results = sf.bulk.Issue__c.insert([{"Name": fresh("Bulk1 ok")}, {"Description__c": "no name"}, {"Nope__c": 1}])
    assert results[0]["success"] is True
    assert results[1] == {
        "success": False,
        "created": False,
        "id": None,
        "errors": [
            {
                "statusCode": "REQUIRED_FIELD_MISSING",
                "message": "Required fields are missing: [Name]",
                "fields": ["Name"],
            }
        ],
    }
    assert results[2]["errors"][0]["statusCode"] == "INVALID_FIELD"
    updated = sf.bulk.Issue__c.update(
        [{"Id": results[0]["id"], "Description__c": "changed"}, {"Id": CASES[0], "Description__c": "wrong object"}]
    )
    assert updated[0] == {"success": True, "created": False, "id": results[0]["id"], "errors": []}
    assert updated[1]["success"] is False and updated[1]["id"] == CASES[0]
    assert sf.Issue__c.get(results[0]["id"])["Description__c"] == "changed"


def test_delete_moves_records_to_the_recycle_bin(sf: Salesforce) -> None:
    created = sf.bulk.Issue__c.insert([{"Name": fresh("Bulk1 delete")} for _ in range(2)])
    ids = [result["id"] for result in created]
    deleted = sf.bulk.Issue__c.delete([{"Id": record_id} for record_id in ids])
    assert [(result["id"], result["success"], result["created"]) for result in deleted] == [
        (i, True, False) for i in ids
    ]
    soql = f"SELECT Id, IsDeleted FROM Issue__c WHERE Id IN ('{ids[0]}', '{ids[1]}')"
    assert sf.query(soql)["totalSize"] == 0 and sf.query_all(soql, include_deleted=True)["totalSize"] == 2
    again = sf.bulk.Issue__c.delete([{"Id": ids[0]}])
    assert again[0]["success"] is False and again[0]["errors"][0]["statusCode"] == "ENTITY_IS_DELETED"


def test_upsert_by_external_id_then_hard_delete_leaves_no_trace(sf: Salesforce) -> None:
    keys = [f"Bulk1_{uuid.uuid4().hex[:8]}" for _ in range(2)]
    first = sf.bulk.Product2.upsert([{"External_ID__c": keys[0], "Name": "Bulk1 rope"}], "External_ID__c")
    assert first[0]["success"] and first[0]["created"] is True
    both = sf.bulk.Product2.upsert(
        [{"External_ID__c": keys[0], "Name": "Bulk1 rope v2"}, {"External_ID__c": keys[1], "Name": "Bulk1 mat"}],
        "External_ID__c",
    )
    assert [(result["created"], result["success"]) for result in both] == [(False, True), (True, True)]
    assert both[0]["id"] == first[0]["id"]
    assert sf.Product2.get(first[0]["id"])["Name"] == "Bulk1 rope v2"
    ids = [result["id"] for result in both]
    purged = sf.bulk.Product2.hard_delete([{"Id": record_id} for record_id in ids])
    assert all(result["success"] for result in purged)
    soql = f"SELECT Id FROM Product2 WHERE External_ID__c IN ('{keys[0]}', '{keys[1]}')"
    assert sf.query_all(soql, include_deleted=True)["totalSize"] == 0  # not even in the recycle bin
    assert sf.bulk.Product2.query_all(soql, wait=0) == []


def test_submit_dml_and_detailed_results(sf: Salesforce) -> None:
    name = fresh("Bulk1 submit")
    results = sf.bulk.submit_dml("Issue__c", "insert", [{"Name": name}], include_detailed_results=True)
    assert results[0]["success"] is True and results[0]["Name"] == name  # the request's fields beside the result
    upserted = sf.bulk.submit_dml(
        "Product2",
        "upsert",
        [{"External_ID__c": "Yoga_3", "Name": "Yoga Mat 50% Off"}],
        external_id_field="External_ID__c",
    )
    assert upserted[0]["created"] is False and upserted[0]["success"] is True


def test_upsert_without_a_usable_external_id_is_refused(sf: Salesforce) -> None:
    with pytest.raises(SalesforceMalformedRequest) as blank:
        sf.bulk.Product2.upsert([{"Name": "x"}], None)
    assert blank.value.content == {
        "exceptionCode": "InvalidJob",
        "exceptionMessage": "External ID was blank for Product2. An External ID must be specified for upsert.",
    }
    with pytest.raises(SalesforceMalformedRequest) as not_external:
        sf.bulk.Product2.upsert([{"Name": "x"}], "Name")
    assert not_external.value.content["exceptionCode"] == "InvalidJob"

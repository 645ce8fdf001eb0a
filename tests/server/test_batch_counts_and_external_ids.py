"""Raw HTTP, in-process and over HTTPS: ``composite/batch``, ``limits/recordCount`` and DELETE by external Id."""

from __future__ import annotations

from tests.mock_org.conftest import ACCOUNTS

from .conftest import BULK_PRODUCTS, TWINS, Client, assert_error

V = "/services/data/v59.0"


def test_record_counts_of_the_objects_asked_for(client: Client) -> None:
    body = client.get(f"{V}/limits/recordCount", params={"sObjects": "Account,contact,NoSuchThing"}).json()
    assert body == {"sObjects": [{"count": 4, "name": "Account"}, {"count": 4, "name": "Contact"}]}


def test_record_counts_of_every_object(client: Client) -> None:
    counts = {entry["name"]: entry["count"] for entry in client.get(f"{V}/limits/recordCount/").json()["sObjects"]}
    assert counts["Account"] == 4 and counts["Product2"] >= BULK_PRODUCTS and "Case" in counts


def test_batch_runs_each_subrequest_on_its_own(client: Client) -> None:
    spec = {
        "batchRequests": [
            {"method": "POST", "url": "v59.0/sobjects/Issue__c", "richInput": {"Name": "From a batch"}},
            {"method": "GET", "url": f"v59.0/sobjects/Account/{ACCOUNTS[0]}?fields=Name"},
            {"method": "GET", "url": "v59.0/query?q=SELECT+Nope+FROM+Account"},
            {"method": "GET", "url": "/services/data/v59.0/limits/recordCount?sObjects=Account"},
        ]
    }
    answer = client.post(f"{V}/composite/batch", json_body=spec)
    assert answer.status == 200
    body = answer.json()
    assert body["hasErrors"] is True
    created, account, failed, counts = body["results"]
    assert created["statusCode"] == 201 and created["result"]["id"].startswith("a1M")
    assert account == {
        "statusCode": 200,
        "result": {"attributes": account["result"]["attributes"], "Name": "Patricia Walker"},
    }
    assert failed["statusCode"] == 400 and failed["result"][0]["errorCode"] == "INVALID_FIELD"
    assert counts["result"] == {"sObjects": [{"count": 4, "name": "Account"}]}
    client.delete(f"{V}/sobjects/Issue__c/{created['result']['id']}")


def test_halt_on_error_answers_412_for_the_rest(client: Client) -> None:
    spec = {
        "haltOnError": True,
        "batchRequests": [
            {"method": "PATCH", "url": "v59.0/sobjects/Account/001000000000000AAA", "richInput": {"Name": "x"}},
            {"method": "POST", "url": "v59.0/sobjects/Issue__c", "richInput": {"Name": "Never made"}},
        ],
    }
    body = client.post(f"{V}/composite/batch", json_body=spec).json()
    assert [result["statusCode"] for result in body["results"]] == [404, 412]
    assert body["results"][1]["result"] == [
        {"message": "Batch processing halted per request", "errorCode": "BATCH_PROCESSING_HALTED"}
    ]
    found = client.get(f"{V}/query", params={"q": "SELECT Id FROM Issue__c WHERE Name = 'Never made'"}).json()
    assert found["totalSize"] == 0


def test_a_malformed_batch_runs_nothing(client: Client) -> None:
    spec = {
        "batchRequests": [
            {"method": "POST", "url": "v59.0/sobjects/Issue__c", "richInput": {"Name": "No"}},
            {"method": "FETCH", "url": "v59.0/limits"},
        ]
    }
    assert_error(client.post(f"{V}/composite/batch", json_body=spec), 400, "INVALID_OPERATION")
    assert_error(client.post(f"{V}/composite/batch", json_body={"batchRequests": []}), 400, "JSON_PARSER_ERROR")
    found = client.get(f"{V}/query", params={"q": "SELECT Id FROM Issue__c WHERE Name = 'No'"}).json()
    assert found["totalSize"] == 0


def test_delete_by_external_id(client: Client) -> None:
    key = f"Doomed_{client.kind}"
    created = client.patch(f"{V}/sobjects/Product2/External_ID__c/{key}", json_body={"Name": "Doomed"})
    assert created.status == 201
    deleted = client.delete(f"{V}/sobjects/Product2/External_ID__c/{key}")
    assert deleted.status == 204 and deleted.body == b""
    assert_error(client.get(f"{V}/sobjects/Product2/External_ID__c/{key}"), 404, "NOT_FOUND")
    assert_error(client.delete(f"{V}/sobjects/Product2/External_ID__c/{key}"), 404, "NOT_FOUND")
    assert_error(client.delete(f"{V}/sobjects/Product2/Name/Doomed"), 404, "NOT_FOUND")  # not an external Id


def test_delete_by_an_ambiguous_external_id_lists_the_matches(client: Client) -> None:
    answer = client.delete(f"{V}/sobjects/Product2/External_ID__c/Twin")
    assert answer.status == 300
    assert sorted(answer.json()) == [f"{V}/sobjects/Product2/{twin}" for twin in TWINS]

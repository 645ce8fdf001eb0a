"""``/composite/tree/{Object}``: record trees created all or nothing, children linked to their new
parents, results in level order; failures list only the failed records and save nothing."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Client, assert_error

V = "/services/data/v59.0"


def record(kind: str, reference: str, **fields: Any) -> dict[str, Any]:
    return {"attributes": {"type": kind, "referenceId": reference}, **fields}


def count(client: Client, soql: str) -> int:
    return client.get(f"{V}/query", params={"q": soql}).json()["totalSize"]


def test_trees_are_created_level_by_level_with_children_linked(client: Client) -> None:
    tag = f"Tree {client.kind}"
    body = {
        "records": [
            record(
                "Account",
                "acc1",
                Name=f"{tag} One",
                Contacts={
                    "records": [
                        record("Contact", "con1", LastName=f"{tag} Alpha"),
                        record("Contact", "con2", LastName=f"{tag} Beta"),
                    ]
                },
            ),
            record(
                "Account", "acc2", Name=f"{tag} Two", Cases={"records": [record("Case", "case1", Subject=f"{tag} c")]}
            ),
        ]
    }
    answer = client.post(f"{V}/composite/tree/Account", json_body=body)
    assert answer.status == 201, answer.text
    result = answer.json()
    assert result["hasErrors"] is False
    assert [item["referenceId"] for item in result["results"]] == ["acc1", "acc2", "con1", "con2", "case1"]
    ids = {item["referenceId"]: item["id"] for item in result["results"]}
    assert ids["acc1"].startswith("001") and ids["con1"].startswith("003") and ids["case1"].startswith("500")
    contacts = client.get(
        f"{V}/query",
        params={"q": f"SELECT LastName, AccountId FROM Contact WHERE LastName LIKE '{tag}%' ORDER BY LastName"},
    ).json()
    assert [(row["LastName"], row["AccountId"]) for row in contacts["records"]] == [
        (f"{tag} Alpha", ids["acc1"]),
        (f"{tag} Beta", ids["acc1"]),
    ]
    case = client.get(f"{V}/sobjects/Case/{ids['case1']}").json()
    assert case["AccountId"] == ids["acc2"]


def test_one_failure_saves_nothing_and_lists_only_the_failed_records(client: Client) -> None:
    tag = f"Doomed {client.kind}"
    body = {
        "records": [
            record(
                "Account",
                "ok",
                Name=f"{tag} Fine",
                Contacts={"records": [record("Contact", "bad", FirstName="No last name")]},
            ),
            record("Account", "bogus", Name=f"{tag} Odd", Bogus__c=1),
        ]
    }
    answer = client.post(f"{V}/composite/tree/Account", json_body=body)
    assert answer.status == 400
    result = answer.json()
    assert result["hasErrors"] is True
    assert {item["referenceId"]: item["errors"][0]["statusCode"] for item in result["results"]} == {
        "bogus": "INVALID_FIELD",
        "bad": "REQUIRED_FIELD_MISSING",
    }
    assert count(client, f"SELECT Id FROM Account WHERE Name LIKE '{tag}%'") == 0
    assert count(client, "SELECT Id FROM Contact WHERE FirstName = 'No last name'") == 0


def test_duplicate_reference_ids_fail_every_record_that_uses_them(client: Client) -> None:
    body = {"records": [record("Issue__c", "same", Name="Dup A"), record("Issue__c", "same", Name="Dup B")]}
    result = client.post(f"{V}/composite/tree/Issue__c", json_body=body).json()
    assert result["hasErrors"] is True
    assert [item["referenceId"] for item in result["results"]] == ["same", "same"]
    assert "Duplicate ReferenceId" in result["results"][0]["errors"][0]["message"]


def test_a_record_of_the_wrong_type_fails(client: Client) -> None:
    result = client.post(f"{V}/composite/tree/Account", json_body={"records": [record("Contact", "c", LastName="x")]})
    assert result.status == 400 and result.json()["results"][0]["errors"][0]["statusCode"] == "INVALID_INPUT"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"records": [record("Issue__c", f"r{i}", Name=f"n{i}") for i in range(201)]}, 400, "EXCEEDED_ID_LIMIT"),
        ({"records": [{"attributes": {"type": "Issue__c"}, "Name": "no reference"}]}, 400, "INVALID_OPERATION"),
        ({"records": "nope"}, 400, "JSON_PARSER_ERROR"),
        ({"nothing": []}, 400, "JSON_PARSER_ERROR"),
    ],
)
def test_invalid_requests(client: Client, body: dict, status: int, code: str) -> None:
    assert_error(client.post(f"{V}/composite/tree/Issue__c", json_body=body), status, code)


def test_unknown_objects_and_methods(client: Client) -> None:
    assert client.post(f"{V}/composite/tree/Bogus__c", json_body={"records": []}).status == 404
    assert_error(client.get(f"{V}/composite/tree/Account"), 405, "METHOD_NOT_ALLOWED")


def test_a_read_only_org_refuses_trees(read_only_app) -> None:  # type: ignore[no-untyped-def]
    flask_client, token = read_only_app
    answer = flask_client.post(
        f"{V}/composite/tree/Issue__c",
        headers={"Authorization": f"Bearer {token}"},
        json={"records": [record("Issue__c", "r", Name="x")]},
    )
    assert answer.status_code == 403
    assert answer.get_json()[0]["errorCode"] == "INSUFFICIENT_ACCESS_OR_READONLY"

"""Bulk API 1.0 over raw HTTP, in-process and over HTTPS: XML job control with CSV data (as jsforce and
Salesforce's Java client speak it), the documents' shapes, and every error in the Bulk API's own form."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest
from flask.testing import FlaskClient

from tests.mock_org.conftest import ACCOUNTS, CASES, CONTACTS

from .conftest import Answer, Client

A = "/services/async/59.0"
NS = "{http://www.force.com/2009/06/asyncapi/dataload}"
XML = {"Content-Type": "application/xml; charset=UTF-8"}
JSON = {"Content-Type": "application/json"}
CSV = {"Content-Type": "text/csv"}
JOB_FIELDS = [
    "id",
    "operation",
    "object",
    "createdById",
    "createdDate",
    "systemModstamp",
    "state",
    "concurrencyMode",
    "contentType",
    "numberBatchesQueued",
    "numberBatchesInProgress",
    "numberBatchesCompleted",
    "numberBatchesFailed",
    "numberBatchesTotal",
    "numberRecordsProcessed",
    "numberRetries",
    "apiVersion",
    "numberRecordsFailed",
    "totalProcessingTime",
    "apiActiveProcessingTime",
    "apexProcessingTime",
]
BATCH_FIELDS = [
    "id",
    "jobId",
    "state",
    "createdDate",
    "systemModstamp",
    "numberRecordsProcessed",
    "numberRecordsFailed",
    "totalProcessingTime",
    "apiActiveProcessingTime",
    "apexProcessingTime",
]


def job_xml(**fields: str) -> str:
    inner = "".join(f"<{name}>{value}</{name}>" for name, value in fields.items())
    return f'<?xml version="1.0" encoding="UTF-8"?><jobInfo xmlns="http://www.force.com/2009/06/asyncapi/dataload">{inner}</jobInfo>'


def document(answer: Answer, root: str) -> dict[str, str]:
    """An XML answer's fields, in order; asserts the root element and the namespace."""
    assert answer.headers["Content-Type"].startswith("application/xml"), answer.text
    element = ET.fromstring(answer.body)
    assert element.tag == NS + root, answer.text
    return {child.tag.removeprefix(NS): child.text or "" for child in element}


def xml_error(answer: Answer, code: str, status: int = 400) -> str:
    assert answer.status == status, answer.text
    fields = document(answer, "error")
    assert list(fields) == ["exceptionCode", "exceptionMessage"] and fields["exceptionCode"] == code
    return fields["exceptionMessage"]


def json_error(answer: Answer, code: str, status: int = 400) -> str:
    assert answer.status == status, answer.text
    assert answer.headers["Content-Type"].startswith("application/json")
    body = answer.json()
    assert list(body) == ["exceptionCode", "exceptionMessage"] and body["exceptionCode"] == code
    return body["exceptionMessage"]


def open_job(client: Client, operation: str, sobject: str, content_type: str = "CSV", **extra: str) -> dict[str, str]:
    answer = client.post(
        f"{A}/job", data=job_xml(operation=operation, object=sobject, contentType=content_type, **extra), headers=XML
    )
    assert answer.status == 201, answer.text
    return document(answer, "jobInfo")


def add_batch(client: Client, job_id: str, data: str, headers: dict[str, str] = CSV) -> dict[str, str]:
    answer = client.post(f"{A}/job/{job_id}/batch", data=data.encode(), headers=headers)
    assert answer.status == 201, answer.text
    return document(answer, "batchInfo")


def close(client: Client, job_id: str) -> dict[str, str]:
    answer = client.post(f"{A}/job/{job_id}", data=job_xml(state="Closed"), headers=XML)
    assert answer.status == 200, answer.text
    return document(answer, "jobInfo")


# ----------------------------------------------------------------------------- XML jobs, CSV data


def test_csv_insert_job_from_open_to_closed(client: Client) -> None:
    job = open_job(client, "insert", "Issue__c")
    assert list(job) == JOB_FIELDS
    assert job["id"].startswith("750") and job["state"] == "Open" and job["concurrencyMode"] == "Parallel"
    assert job["createdDate"].endswith(".000Z") and job["apiVersion"] == "59.0" and job["numberBatchesTotal"] == "0"
    name = f"Bulk1 csv {client.kind}"
    added = add_batch(client, job["id"], f'Name,Description__c\n"{name}",#N/A\n,no name\n')
    assert list(added) == BATCH_FIELDS and added["id"].startswith("751") and added["jobId"] == job["id"]
    assert added["state"] == "Queued" and added["numberRecordsProcessed"] == "0"  # as a real org answers the add
    polled = document(client.get(f"{A}/job/{job['id']}/batch/{added['id']}"), "batchInfo")
    assert polled["state"] == "Completed"
    assert (polled["numberRecordsProcessed"], polled["numberRecordsFailed"]) == ("2", "1")
    results = client.get(f"{A}/job/{job['id']}/batch/{added['id']}/result")
    assert results.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(results.text)))
    assert results.text.startswith('"Id","Success","Created","Error"\n')
    assert rows[1][0].startswith("a1M") and rows[1][1:] == ["true", "true", ""]
    assert rows[2] == ["", "false", "false", "REQUIRED_FIELD_MISSING:Required fields are missing: [Name]:Name --"]
    request = client.get(f"{A}/job/{job['id']}/batch/{added['id']}/request")
    assert request.text.startswith("Name,Description__c") and request.headers["Content-Type"].startswith("text/csv")
    listed = ET.fromstring(client.get(f"{A}/job/{job['id']}/batch").body)
    assert listed.tag == NS + "batchInfoList" and [e.find(NS + "id").text for e in listed] == [added["id"]]
    closed = close(client, job["id"])
    assert closed["state"] == "Closed" and closed["numberBatchesCompleted"] == "1"
    assert (closed["numberRecordsProcessed"], closed["numberRecordsFailed"]) == ("2", "1")
    message = xml_error(client.post(f"{A}/job/{job['id']}/batch", data=b"Name\nlate\n", headers=CSV), "InvalidJob")
    assert "Closed" in message


def test_csv_query_results_as_the_bulk_api_writes_them(client: Client) -> None:
    job = open_job(client, "query", "Case")
    soql = f"SELECT Id, Subject, IsClosed, CreatedDate, ClosedDate, Account.Name FROM Case WHERE Id IN ('{CASES[0]}', '{CASES[4]}') ORDER BY CreatedDate"
    batch = add_batch(client, job["id"], soql)
    listed = client.get(f"{A}/job/{job['id']}/batch/{batch['id']}/result")
    result_ids = [element.text for element in ET.fromstring(listed.body)]
    assert ET.fromstring(listed.body).tag == NS + "result-list" and len(result_ids) == 1
    assert result_ids[0].startswith("752")
    result = client.get(f"{A}/job/{job['id']}/batch/{batch['id']}/result/{result_ids[0]}")
    assert result.text.splitlines() == [
        '"Id","Subject","IsClosed","CreatedDate","ClosedDate","Account.Name"',
        f'"{CASES[0]}","Wrong size","true","2023-01-12T09:00:00.000Z","2023-01-12T10:30:00.000Z","Patricia Walker"',
        f'"{CASES[4]}","","false","2023-05-15T06:00:00.000Z","",""',
    ]
    empty = add_batch(client, job["id"], "SELECT Id FROM Case WHERE Subject = 'no such case'")
    result_id = ET.fromstring(client.get(f"{A}/job/{job['id']}/batch/{empty['id']}/result").body)[0].text
    assert (
        client.get(f"{A}/job/{job['id']}/batch/{empty['id']}/result/{result_id}").text
        == "Records not found for this query"
    )


def test_a_failed_query_batch_says_why(client: Client) -> None:
    job = open_job(client, "query", "Account")
    batch = add_batch(client, job["id"], "SELECT Id FRM Account")
    polled = document(client.get(f"{A}/job/{job['id']}/batch/{batch['id']}"), "batchInfo")
    assert polled["state"] == "Failed" and list(polled)[3] == "stateMessage"
    assert polled["stateMessage"].startswith("InvalidBatch : Failed to process query: MALFORMED_QUERY: ")
    assert "Failed" in xml_error(client.get(f"{A}/job/{job['id']}/batch/{batch['id']}/result"), "InvalidBatch")
    info = document(client.get(f"{A}/job/{job['id']}"), "jobInfo")
    assert info["numberBatchesFailed"] == "1" and info["numberBatchesTotal"] == "1"


def test_a_csv_header_naming_no_field_fails_the_batch(client: Client) -> None:
    job = open_job(client, "insert", "Issue__c")
    batch = add_batch(client, job["id"], "Name,Nope__c\nx,y\n")
    polled = document(client.get(f"{A}/job/{job['id']}/batch/{batch['id']}"), "batchInfo")
    assert polled["state"] == "Failed" and polled["stateMessage"] == "InvalidBatch : Field name not found : Nope__c"


def test_xml_jobs_take_xml_records_and_answer_xml_results(client: Client) -> None:
    job = open_job(client, "insert", "Issue__c", "XML")
    records = (
        '<sObjects xmlns="http://www.force.com/2009/06/asyncapi/dataload" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        f'<sObject><Name>Bulk1 xml {client.kind}</Name><Description__c xsi:nil="true"/></sObject>'
        "<sObject><Description__c>no name</Description__c></sObject></sObjects>"
    )
    batch = add_batch(client, job["id"], records, XML)
    results = ET.fromstring(client.get(f"{A}/job/{job['id']}/batch/{batch['id']}/result").body)
    assert results.tag == NS + "results"
    ok, failed = ([child.tag.removeprefix(NS) for child in result] for result in results)
    assert ok == ["id", "success", "created"] and failed == ["errors", "success", "created"]
    assert results[1].find(f"{NS}errors/{NS}statusCode").text == "REQUIRED_FIELD_MISSING"
    query = open_job(client, "query", "Account", "XML")
    batch = add_batch(client, query["id"], f"SELECT Id, Name, CreatedDate FROM Account WHERE Id = '{ACCOUNTS[1]}'", XML)
    result_id = ET.fromstring(client.get(f"{A}/job/{query['id']}/batch/{batch['id']}/result").body)[0].text
    found = ET.fromstring(client.get(f"{A}/job/{query['id']}/batch/{batch['id']}/result/{result_id}").body)
    assert found.tag == NS + "queryResult"
    record = found[0]
    assert [child.tag.removeprefix(NS) for child in record] == ["type", "Id", "Name", "CreatedDate"]
    assert record.find(NS + "Name").text == "Jürgen Groß" and record.find(NS + "CreatedDate").text.endswith("Z")


def test_json_jobs_answer_json_documents(client: Client) -> None:
    spec = {"operation": "query", "object": "Contact", "contentType": "JSON", "concurrencyMode": 1}
    created = client.post(f"{A}/job", data=json.dumps(spec), headers=JSON)
    assert created.status == 201 and created.headers["Content-Type"].startswith("application/json")
    job = created.json()
    assert list(job) == sorted(job) and job["concurrencyMode"] == "Serial" and job["externalIdFieldName"] is None
    assert job["createdDate"].endswith("+0000") and job["apiVersion"] == 59.0
    batch = client.post(
        f"{A}/job/{job['id']}/batch", data=f"SELECT Id FROM Contact WHERE Id = '{CONTACTS[0]}'", headers=JSON
    ).json()
    assert batch["state"] == "Queued" and batch["stateMessage"] is None and list(batch) == sorted(batch)
    assert client.get(f"{A}/job/{job['id']}/batch").json()["batchInfo"][0]["state"] == "Completed"
    result_ids = client.get(f"{A}/job/{job['id']}/batch/{batch['id']}/result").json()
    records = client.get(f"{A}/job/{job['id']}/batch/{batch['id']}/result/{result_ids[0]}").json()
    assert [record["Id"] for record in records] == [CONTACTS[0]]


def test_abort_stops_a_job(client: Client) -> None:
    job = open_job(client, "insert", "Issue__c")
    aborted = client.post(f"{A}/job/{job['id']}", data=job_xml(state="Aborted"), headers=XML)
    assert document(aborted, "jobInfo")["state"] == "Aborted"
    xml_error(client.post(f"{A}/job/{job['id']}/batch", data=b"Name\nx\n", headers=CSV), "InvalidJob")
    message = xml_error(
        client.post(f"{A}/job/{job['id']}", data=job_xml(state="Closed"), headers=XML), "InvalidJobState"
    )
    assert message == "Invalid state change from Aborted to Closed"


# ----------------------------------------------------------------------------- errors


def test_a_bad_session_is_invalid_session_id_in_the_requests_format(client: Client) -> None:
    spec = job_xml(operation="query", object="Account", contentType="CSV")
    assert (
        xml_error(client.post(f"{A}/job", data=spec, headers=XML, token="00Dbad!token"), "InvalidSessionId")
        == "Invalid session id"
    )
    assert xml_error(client.get(f"{A}/job/750Ws000000000AAA", token=None), "InvalidSessionId") == "Invalid session id"
    answer = client.post(
        f"{A}/job", data=json.dumps({"operation": "query"}), headers={**JSON, "X-SFDC-Session": "nope"}, token=None
    )
    assert json_error(answer, "InvalidSessionId") == "Invalid session id"


def test_the_session_may_come_in_x_sfdc_session(client: Client) -> None:
    spec = job_xml(operation="query", object="Account", contentType="CSV")
    answer = client.post(f"{A}/job", data=spec, headers={**XML, "X-SFDC-Session": client.token}, token=None)
    assert answer.status == 201 and document(answer, "jobInfo")["createdById"].startswith("005")


def test_unknown_jobs_batches_and_results(client: Client) -> None:
    assert xml_error(client.get(f"{A}/job/750Ws0000009999AAA"), "InvalidJob") == "Invalid job id: 750Ws0000009999AAA"
    assert json_error(client.get(f"{A}/job/750Ws0000009999AAA", headers=JSON), "InvalidJob")
    job = open_job(client, "query", "Account")
    assert (
        xml_error(client.get(f"{A}/job/{job['id']}/batch/751Ws0000009999AAA"), "InvalidBatch")
        == "Invalid batch id: 751Ws0000009999AAA"
    )
    batch = add_batch(client, job["id"], "SELECT Id FROM Account")
    xml_error(client.get(f"{A}/job/{job['id']}/batch/{batch['id']}/result/752Ws0000009999AAA"), "InvalidBatch")


def test_job_documents_that_cannot_be_read(client: Client) -> None:
    xml_error(client.post(f"{A}/job", data="<jobInfo><operation>insert", headers=XML), "InvalidXML")
    xml_error(client.post(f"{A}/job", data="<notAJob/>", headers=XML), "InvalidXML")
    json_error(client.post(f"{A}/job", data="{nope", headers=JSON), "ClientInputError")
    json_error(client.post(f"{A}/job", data="[1, 2]", headers=JSON), "ClientInputError")
    plain = client.post(f"{A}/job", data="operation=insert", headers={"Content-Type": "text/plain"})
    assert xml_error(plain, "UnsupportedContentType") == "Unsupported content type: text/plain"
    assert (
        xml_error(client.post(f"{A}/job", data=job_xml(operation="merge", object="Account"), headers=XML), "InvalidJob")
        == "Invalid operation: merge"
    )
    assert (
        xml_error(
            client.post(f"{A}/job", data=job_xml(operation="insert", object="Nope__c"), headers=XML), "InvalidJob"
        )
        == "Unable to find object: Nope__c"
    )
    zipped = client.post(
        f"{A}/job", data=job_xml(operation="insert", object="Account", contentType="ZIP_CSV"), headers=XML
    )
    xml_error(zipped, "InvalidJob")


def test_document_type_declarations_are_refused(client: Client) -> None:
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
        '<jobInfo xmlns="http://www.force.com/2009/06/asyncapi/dataload"><operation>&lol2;</operation></jobInfo>'
    )
    message = xml_error(client.post(f"{A}/job", data=laughs, headers=XML), "InvalidXML")
    assert "DOCTYPE" in message
    external = '<!DOCTYPE jobInfo SYSTEM "file:///etc/passwd"><jobInfo/>'
    xml_error(client.post(f"{A}/job", data=external, headers=XML), "InvalidXML")


def test_a_batch_in_another_content_type_than_its_job_is_refused(client: Client) -> None:
    job = open_job(client, "insert", "Issue__c")
    answer = client.post(f"{A}/job/{job['id']}/batch", data=b'[{"Name": "x"}]', headers=JSON)
    assert "does not match" in json_error(answer, "InvalidBatch")
    bad_json_job = client.post(
        f"{A}/job", data=json.dumps({"operation": "insert", "object": "Issue__c", "contentType": "JSON"}), headers=JSON
    ).json()
    batch = client.post(f"{A}/job/{bad_json_job['id']}/batch", data=b"{not json", headers=JSON).json()
    polled = client.get(f"{A}/job/{bad_json_job['id']}/batch/{batch['id']}", headers=JSON).json()
    assert polled["state"] == "Failed" and polled["stateMessage"].startswith("InvalidBatch : Failed to parse JSON")


def test_unknown_urls_methods_and_versions(client: Client) -> None:
    assert xml_error(client.get(f"{A}/jobs"), "InvalidUrl").startswith("Invalid URL")
    xml_error(client.delete(f"{A}/job/750Ws0000009999AAA"), "InvalidUrl", 405)
    assert xml_error(client.get("/services/async/5.0/job/750Ws0000009999AAA"), "InvalidVersion")


def test_read_only_orgs_refuse_dml_jobs_and_serve_queries(read_only_app: tuple[FlaskClient, str]) -> None:
    web, token = read_only_app
    headers = {**XML, "X-SFDC-Session": token}
    refused = web.post(
        f"{A}/job", data=job_xml(operation="insert", object="Account", contentType="CSV"), headers=headers
    )
    assert "read-only" in xml_error(Answer(refused.status_code, refused.headers, refused.get_data()), "InvalidUser")
    created = web.post(
        f"{A}/job", data=job_xml(operation="query", object="Account", contentType="CSV"), headers=headers
    )
    assert created.status_code == 201
    batch = web.post(
        f"{A}/job/{ET.fromstring(created.get_data())[0].text}/batch",
        data=b"SELECT Id FROM Account",
        headers=CSV | {"X-SFDC-Session": token},
    )
    assert batch.status_code == 201


@pytest.mark.parametrize("path", ["/job", "/job/x/batch", "/job/x/batch/y/result/z"])
def test_no_request_gets_a_server_error(client: Client, path: str) -> None:
    for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
        for headers in ({}, XML, JSON, CSV, {"Content-Type": "application/octet-stream"}):
            answer = client.call(method, A + path, data=b"\xff\xfe<x", headers=headers)
            assert 400 <= answer.status < 500, (method, headers, answer.text)

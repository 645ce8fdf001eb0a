"""Raw-HTTP scenarios of the REST API, each run in-process and over HTTPS (the ``client`` fixture)."""

from __future__ import annotations

import ast
import re

import pytest

from tests.mock_org.builder import rid
from tests.mock_org.conftest import ACCOUNTS, CASES, PRODUCTS

from .conftest import BULK_PRODUCTS, TWINS, Answer, Client, assert_error

V = "/services/data/v59.0"
JSON = "application/json;charset=UTF-8"


def test_versions_need_no_session_and_list_labels(client: Client) -> None:
    answer = client.get("/services/data", token=None)
    assert answer.status == 200 and answer.headers["Content-Type"] == JSON
    versions = answer.json()
    assert {"label": "Winter '24", "url": "/services/data/v59.0", "version": "59.0"} in versions
    assert versions[-1]["version"] == "62.0"


def test_resource_map_has_an_absolute_identity_url(client: Client) -> None:
    body = client.get(f"{V}/").json()
    assert body["query"] == f"{V}/query" and body["sobjects"] == f"{V}/sobjects"
    assert re.match(r"https?://[^/]+/id/00D\w{15}/005\w{15}$", body["identity"])


@pytest.mark.parametrize("path", [f"{V}/query", f"{V}/query/", "/services/data/v50.0/query"])
def test_query_with_and_without_trailing_slash(client: Client, path: str) -> None:
    answer = client.get(path, params={"q": "SELECT Id, Name FROM Account ORDER BY Name"})
    assert answer.status == 200 and answer.headers["Content-Type"] == JSON
    body = answer.json()
    assert list(body) == ["totalSize", "done", "records"]
    assert body["totalSize"] == 4 and body["done"] is True
    version = path.split("/")[3]
    assert body["records"][0]["attributes"]["url"].startswith(f"/services/data/{version}/sobjects/Account/")
    assert list(body["records"][0]) == ["attributes", "Id", "Name"]


def test_every_rest_response_carries_limit_info(client: Client) -> None:
    answer = client.get(f"{V}/limits/")
    assert re.fullmatch(r"api-usage=\d+/100000", answer.headers["Sforce-Limit-Info"])
    assert answer.json()["DailyApiRequests"]["Max"] == 100000


def test_query_pages_follow_next_records_url(client: Client) -> None:
    headers = {"Sforce-Query-Options": "batchSize=200"}
    answer = client.get(f"{V}/query/", params={"q": "SELECT Id FROM Product2 ORDER BY Name"}, headers=headers)
    page = answer.json()
    total = BULK_PRODUCTS + len(PRODUCTS) + len(TWINS)
    assert page["totalSize"] == total and page["done"] is False and len(page["records"]) == 200
    assert re.fullmatch(r"/services/data/v59\.0/query/01g\w{15}-200", page["nextRecordsUrl"])
    seen = [record["Id"] for record in page["records"]]
    pages = 1
    while not page["done"]:
        page = client.get(page["nextRecordsUrl"]).json()
        seen += [record["Id"] for record in page["records"]]
        pages += 1
    assert pages == 4 and len(seen) == len(set(seen)) == total
    assert "nextRecordsUrl" not in page


def test_unknown_locator_is_invalid_query_locator(client: Client) -> None:
    assert_error(client.get(f"{V}/query/01gAAAAAAAAAAAAAAA-2000"), 400, "INVALID_QUERY_LOCATOR")


def test_query_all_sees_deleted_rows(client: Client) -> None:
    soql = f"SELECT Id, IsDeleted FROM Case WHERE Id = '{CASES[7]}'"
    assert client.get(f"{V}/query/", params={"q": soql}).json()["totalSize"] == 0
    rows = client.get(f"{V}/queryAll/", params={"q": soql}).json()["records"]
    assert [row["IsDeleted"] for row in rows] == [True]


def test_aggregate_and_count_shapes(client: Client) -> None:
    count = client.get(f"{V}/query", params={"q": "SELECT COUNT() FROM Case"}).json()
    assert count == {"totalSize": 7, "done": True, "records": []}
    grouped = client.get(f"{V}/query", params={"q": "SELECT Priority, COUNT(Id) n FROM Case GROUP BY Priority"})
    record = grouped.json()["records"][0]
    assert record["attributes"] == {"type": "AggregateResult"} and list(record)[1:] == ["Priority", "n"]


def test_doubles_are_printed_like_java(client: Client) -> None:
    answer = client.get(f"{V}/query", params={"q": "SELECT UnitPrice FROM PricebookEntry ORDER BY UnitPrice"})
    assert b'"UnitPrice":14.0' in answer.body and b'"UnitPrice":2.5E7' in answer.body


def test_columns_true_gives_column_metadata(client: Client) -> None:
    soql = "SELECT Id, Account.Name, (SELECT Id FROM Cases) FROM Contact"
    body = client.get(f"{V}/query", params={"q": soql, "columns": "true"}).json()
    assert body["entityName"] == "Contact" and body["keyPrefix"] == "003"
    names = [(column["columnName"], column["aggregate"]) for column in body["columnMetadata"]]
    assert names == [("Id", False), ("Account", False), ("Cases", True)]
    assert body["columnMetadata"][1]["joinColumns"][0]["columnName"] == "Name"


def test_search_is_an_object_with_search_records(client: Client) -> None:
    body = client.get(f"{V}/search/", params={"q": "FIND {Walker} RETURNING Account(Id, Name)"}).json()
    assert list(body) == ["searchRecords"]
    assert [record["Name"] for record in body["searchRecords"]] == ["Patricia Walker"]
    none = client.get(f"{V}/search", params={"q": "FIND {zzzznothing}"}).json()
    assert none == {"searchRecords": []}


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"q": "SELECT Id FRM Account"}, "MALFORMED_QUERY"),
        ({"q": "SELECT Nope FROM Account"}, "INVALID_FIELD"),
        ({"q": "SELECT Id FROM Bogus"}, "INVALID_TYPE"),
        ({"q": "find {x}"}, "MALFORMED_QUERY"),
        ({}, "MALFORMED_QUERY"),
    ],
)
def test_query_errors_are_json_arrays_that_crmarena_can_parse(client: Client, params: dict, code: str) -> None:
    error = assert_error(client.get(f"{V}/query/", params=params), 400, code)
    # CRMArena: ast.literal_eval(str(e).split("Response content:")[1].strip())[0] on simple-salesforce's text.
    text = f"Malformed request https://x/query. Response content: {[error]!r}"
    parsed = ast.literal_eval(text.split("Response content:")[1].strip())[0]
    assert f"{parsed['errorCode']}: {parsed['message']}".startswith(code)


def test_search_errors(client: Client) -> None:
    assert_error(client.get(f"{V}/search", params={"q": "FIND {a|b}"}), 400, "MALFORMED_SEARCH")


def test_describe_global_metadata_and_describe(client: Client) -> None:
    names = [entry["name"] for entry in client.get(f"{V}/sobjects").json()["sobjects"]]
    assert {"Account", "Case", "Knowledge__kav"} <= set(names)
    metadata = client.get(f"{V}/sobjects/Case/").json()
    assert metadata["objectDescribe"]["keyPrefix"] == "500" and "recentItems" in metadata
    describe = client.get(f"{V}/sobjects/case/describe").json()
    assert describe["name"] == "Case"
    assert "Status" in [field["name"] for field in describe["fields"]]
    assert any(
        child["relationshipName"] == "Cases"
        for child in client.get(f"{V}/sobjects/Account/describe/").json()["childRelationships"]
    )
    assert_error(client.get(f"{V}/sobjects/Bogus/describe"), 404, "NOT_FOUND")


def test_record_get_with_fields_and_missing_records(client: Client) -> None:
    record = client.get(f"{V}/sobjects/Account/{ACCOUNTS[0]}", params={"fields": "Name,ShippingState"}).json()
    assert record == {
        "attributes": {"type": "Account", "url": f"{V}/sobjects/Account/{ACCOUNTS[0]}"},
        "Name": "Patricia Walker",
        "ShippingState": "CA",
    }
    full = client.get(f"{V}/sobjects/Account/{ACCOUNTS[0][:15]}").json()
    assert full["Id"] == ACCOUNTS[0] and "CreatedDate" in full
    assert_error(client.get(f"{V}/sobjects/Account/{rid('001', 9999)}"), 404, "NOT_FOUND")
    assert_error(client.get(f"{V}/sobjects/Account/abc"), 404, "NOT_FOUND")


def test_create_update_delete_round_trip(client: Client) -> None:
    created = client.post(f"{V}/sobjects/Issue__c/", json_body={"Name": f"Wobbly heel {client.kind}"})
    assert created.status == 201
    body = created.json()
    assert body["success"] is True and body["errors"] == [] and body["id"].startswith("a1M")
    path = f"{V}/sobjects/Issue__c/{body['id']}"
    updated = client.patch(path, json_body={"Description__c": "Heel comes loose"})
    assert updated.status == 204 and updated.body == b""
    assert client.get(path).json()["Description__c"] == "Heel comes loose"
    assert client.delete(path).status == 204
    assert_error(client.get(path), 404, "NOT_FOUND")
    soql = f"SELECT Id FROM Issue__c WHERE Id = '{body['id']}'"
    assert client.get(f"{V}/queryAll", params={"q": soql}).json()["totalSize"] == 1


def test_write_errors(client: Client) -> None:
    missing = assert_error(
        client.post(f"{V}/sobjects/Issue__c", json_body={"Description__c": "x"}), 400, "REQUIRED_FIELD_MISSING"
    )
    assert missing["fields"] == ["Name"]
    assert_error(client.post(f"{V}/sobjects/Issue__c", json_body={"Nope__c": 1}), 400, "INVALID_FIELD")
    bad_json = client.post(f"{V}/sobjects/Issue__c", data="{nope", headers={"Content-Type": "application/json"})
    assert_error(bad_json, 400, "JSON_PARSER_ERROR")
    text = client.post(f"{V}/sobjects/Issue__c", data="Name=x", headers={"Content-Type": "text/plain"})
    assert_error(text, 415, "UNSUPPORTED_MEDIA_TYPE")


def test_upsert_by_external_id(client: Client) -> None:
    key = f"Upsert_{client.kind}"
    path = f"{V}/sobjects/Product2/External_ID__c/{key}"
    created = client.patch(path, json_body={"Name": "Upserted shoe"})
    assert created.status == 201 and created.json()["created"] is True
    again = client.patch(path, json_body={"Name": "Upserted shoe v2"})
    assert again.status == 200 and again.json() == {
        "id": created.json()["id"],
        "success": True,
        "errors": [],
        "created": False,
    }
    old_api = client.patch(path.replace("v59.0", "v45.0"), json_body={"Name": "Upserted shoe v3"})
    assert old_api.status == 204
    assert client.get(path).json()["Name"] == "Upserted shoe v3"


def test_external_ids_matching_several_records_answer_300_with_urls(client: Client) -> None:
    assert client.get(f"{V}/sobjects/Product2/External_ID__c/Yoga_3").json()["Id"] == PRODUCTS[2]
    many = client.get(f"{V}/sobjects/Product2/External_ID__c/Twin")
    assert many.status == 300 and many.json() == [f"{V}/sobjects/Product2/{twin}" for twin in TWINS]
    upsert = client.patch(f"{V}/sobjects/Product2/External_ID__c/Twin", json_body={"Name": "Which one?"})
    assert upsert.status == 300
    assert_error(client.get(f"{V}/sobjects/Product2/Name/Twin 1"), 404, "NOT_FOUND")


def test_deleted_and_updated_ranges(client: Client) -> None:
    created = client.post(f"{V}/sobjects/Issue__c", json_body={"Name": "Short-lived"}).json()["id"]
    client.delete(f"{V}/sobjects/Issue__c/{created}")
    window = {"start": "2000-01-01T00:00:00+00:00", "end": "2100-01-01T00:00:00+00:00"}
    deleted = client.get(f"{V}/sobjects/Issue__c/deleted/", params=window).json()
    assert created in [entry["id"] for entry in deleted["deletedRecords"]]
    assert {"earliestDateAvailable", "latestDateCovered"} <= set(deleted)
    naive = {"start": "2000-01-01T00:00:00:", "end": "2100-01-01T00:00:00:"}  # simple-salesforce's naive tail
    updated = client.get(f"{V}/sobjects/Issue__c/updated/", params=naive).json()
    assert set(updated) == {"ids", "latestDateCovered"}
    assert_error(
        client.get(f"{V}/sobjects/Issue__c/updated/", params={"start": "soon"}), 400, "INVALID_REPLICATION_DATE"
    )


def test_requests_without_a_valid_session_get_401_arrays(client: Client) -> None:
    for token in (None, "00D000000000000!AQbogus"):
        assert_error(
            client.get(f"{V}/query", params={"q": "SELECT Id FROM Account"}, token=token), 401, "INVALID_SESSION_ID"
        )
    assert_error(client.get(f"{V}/sobjects", token="OAuth"), 401, "INVALID_SESSION_ID")


@pytest.mark.parametrize(
    "path", ["/favicon.ico", "/login", f"{V}/nothing/here", "/services/data/v59.0/sobjects/Account/a/b/c/d"]
)
def test_unknown_urls_are_not_found_json(client: Client, path: str) -> None:
    assert_error(client.get(path), 404, "NOT_FOUND")


def test_wrong_verbs_are_method_not_allowed(client: Client) -> None:
    error = assert_error(client.call("PUT", f"{V}/sobjects/Account/{ACCOUNTS[0]}"), 405, "METHOD_NOT_ALLOWED")
    assert error["message"].startswith("HTTP Method 'PUT' not allowed. Allowed are ")
    assert_error(client.post(f"{V}/limits"), 405, "METHOD_NOT_ALLOWED")


def test_composite_with_references(client: Client) -> None:
    request = {
        "allOrNone": True,
        "compositeRequest": [
            {
                "method": "POST",
                "url": f"{V}/sobjects/Account",
                "referenceId": "acct",
                "body": {"Name": f"Composite Co {client.kind}"},
            },
            {
                "method": "POST",
                "url": f"{V}/sobjects/Contact",
                "referenceId": "person",
                "body": {"LastName": "Ref", "AccountId": "@{acct.id}"},
            },
            {"method": "GET", "url": f"{V}/sobjects/Account/@{{acct.id}}?fields=Name", "referenceId": "read"},
            {
                "method": "GET",
                "url": f"{V}/query?q=SELECT+Id+FROM+Contact+WHERE+AccountId='@{{acct.id}}'",
                "referenceId": "children",
            },
        ],
    }
    answer = client.post(f"{V}/composite", json_body=request)
    assert answer.status == 200
    responses = answer.json()["compositeResponse"]
    assert [r["httpStatusCode"] for r in responses] == [201, 201, 200, 200]
    assert responses[2]["body"]["Name"] == f"Composite Co {client.kind}"
    assert responses[3]["body"]["records"][0]["Id"] == responses[1]["body"]["id"]
    assert responses[0]["httpHeaders"]["Location"].endswith(responses[0]["body"]["id"])


def test_composite_all_or_none_rolls_everything_back(client: Client) -> None:
    name = f"Rolled back {client.kind}"
    request = {
        "allOrNone": True,
        "compositeRequest": [
            {"method": "POST", "url": f"{V}/sobjects/Account", "referenceId": "ok", "body": {"Name": name}},
            {"method": "POST", "url": f"{V}/sobjects/Account", "referenceId": "bad", "body": {"Nope": 1}},
            {"method": "GET", "url": f"{V}/limits", "referenceId": "after"},
        ],
    }
    responses = client.post(f"{V}/composite/", json_body=request).json()["compositeResponse"]
    codes = [(r["httpStatusCode"], r["body"][0]["errorCode"]) for r in responses]
    assert codes == [(400, "PROCESSING_HALTED"), (400, "INVALID_FIELD"), (400, "PROCESSING_HALTED")]
    found = client.get(f"{V}/query", params={"q": f"SELECT Id FROM Account WHERE Name = '{name}'"}).json()
    assert found["totalSize"] == 0


def test_composite_without_all_or_none_keeps_what_worked(client: Client) -> None:
    name = f"Kept {client.kind}"
    request = {
        "compositeRequest": [
            {"method": "POST", "url": f"{V}/sobjects/Account", "referenceId": "ok", "body": {"Name": name}},
            {"method": "PATCH", "url": f"{V}/sobjects/Account/@{{missing.id}}", "referenceId": "bad", "body": {}},
        ],
    }
    responses = client.post(f"{V}/composite", json_body=request).json()["compositeResponse"]
    assert [r["httpStatusCode"] for r in responses] == [201, 400]
    found = client.get(f"{V}/query", params={"q": f"SELECT Id FROM Account WHERE Name = '{name}'"}).json()
    assert found["totalSize"] == 1


def test_sobject_collections(client: Client) -> None:
    records = [{"attributes": {"type": "Issue__c"}, "Name": f"Coll {client.kind} {i}"} for i in range(3)]
    created = client.post(f"{V}/composite/sobjects", json_body={"allOrNone": False, "records": records}).json()
    assert [entry["success"] for entry in created] == [True, True, True]
    ids = [entry["id"] for entry in created]
    fetched = client.get(f"{V}/composite/sobjects/Issue__c", params={"ids": ",".join(ids), "fields": "Name"}).json()
    assert [record["Name"] for record in fetched] == [record["Name"] for record in records]
    updates = [
        {"attributes": {"type": "Issue__c"}, "Id": ids[0], "Name": "Renamed"},
        {"attributes": {"type": "Issue__c"}, "Id": ids[1], "Nope": 1},
    ]
    outcome = client.patch(f"{V}/composite/sobjects", json_body={"allOrNone": True, "records": updates}).json()
    assert outcome[0]["errors"][0]["statusCode"] == "ALL_OR_NONE_OPERATION_ROLLED_BACK"
    assert outcome[1]["errors"][0]["statusCode"] == "INVALID_FIELD"
    assert client.get(f"{V}/sobjects/Issue__c/{ids[0]}").json()["Name"] == records[0]["Name"]
    deleted = client.delete(f"{V}/composite/sobjects", params={"ids": ",".join(ids)}).json()
    assert [entry["success"] for entry in deleted] == [True, True, True]


def _csv_lines(answer: Answer) -> list[str]:
    return answer.text.strip("\n").split("\n")


def test_bulk2_query_job(client: Client) -> None:
    spec = {
        "operation": "query",
        "query": "SELECT Id, Name, Account.Name, CreatedDate FROM Contact ORDER BY Name",
        "columnDelimiter": "COMMA",
        "lineEnding": "LF",
    }
    job = client.post(f"{V}/jobs/query", json_body=spec).json()
    assert job["state"] == "UploadComplete" and job["id"].startswith("750") and job["object"] == "Contact"
    info = client.get(f"{V}/jobs/query/{job['id']}").json()
    assert info["state"] == "JobComplete" and info["numberRecordsProcessed"] >= 4
    first = client.get(f"{V}/jobs/query/{job['id']}/results", params={"maxRecords": 3})
    assert first.headers["Content-Type"].startswith("text/csv") and first.headers["Sforce-NumberOfRecords"] == "3"
    lines = _csv_lines(first)
    assert lines[0] == '"Id","Name","Account.Name","CreatedDate"'
    assert lines[1].endswith('"2024-01-01T00:00:00.000Z"')
    rest = client.get(f"{V}/jobs/query/{job['id']}/results", params={"locator": first.headers["Sforce-Locator"]})
    assert rest.headers["Sforce-Locator"] == "null"
    assert len(_csv_lines(rest)) == 1 + info["numberRecordsProcessed"] - 3
    assert client.delete(f"{V}/jobs/query/{job['id']}").status == 204


def test_bulk2_ingest_job(client: Client) -> None:
    spec = {"object": "Issue__c", "operation": "insert", "contentType": "CSV", "lineEnding": "LF"}
    job = client.post(f"{V}/jobs/ingest", json_body=spec).json()
    assert job["state"] == "Open"
    data = f"Name,Description__c\nBulk issue {client.kind} A,first\n,missing name\n"
    upload = client.call("PUT", f"{V}/jobs/ingest/{job['id']}/batches", data=data, headers={"Content-Type": "text/csv"})
    assert upload.status == 201
    closed = client.patch(f"{V}/jobs/ingest/{job['id']}", json_body={"state": "UploadComplete"}).json()
    assert closed["state"] == "UploadComplete"
    info = client.get(f"{V}/jobs/ingest/{job['id']}").json()
    assert (info["state"], info["numberRecordsProcessed"], info["numberRecordsFailed"]) == ("JobComplete", 2, 1)
    good = _csv_lines(client.get(f"{V}/jobs/ingest/{job['id']}/successfulResults"))
    assert good[0] == '"sf__Id","sf__Created","Name","Description__c"' and '"true"' in good[1]
    bad = _csv_lines(client.get(f"{V}/jobs/ingest/{job['id']}/failedResults"))
    assert "REQUIRED_FIELD_MISSING" in bad[1]


def test_no_request_is_answered_with_html(client: Client) -> None:
    for method, path in [
        ("GET", "/services/Soap/u/59.0"),
        ("DELETE", "/services/data"),
        ("GET", "/id/x/y"),
        ("POST", f"{V}/composite"),
        ("GET", f"{V}/jobs/query/750000000000000AAA"),
    ]:
        answer = client.call(method, path)
        assert answer.headers["Content-Type"] == JSON, (method, path, answer.text)
        assert answer.status < 500


def test_what_the_sf_cli_asks_at_login(client: Client) -> None:
    """userinfo → the User record → the dev-hub probe (INVALID_TYPE means "not a dev hub") → the Organization."""
    info = client.get("/services/oauth2/userinfo").json()
    assert client.get(f"/services/data/v51.0/sobjects/User/{info['user_id']}").json()["Username"]
    probe = client.get("/services/data/v51.0/query", params={"q": "SELECT Id FROM ScratchOrgInfo limit 1"})
    assert_error(probe, 400, "INVALID_TYPE")
    soql = (
        "SELECT Name, InstanceName, IsSandbox, TrialExpirationDate, NamespacePrefix, OrganizationType FROM Organization"
    )
    organization = client.get("/services/data/v62.0/query", params={"q": soql}).json()["records"][0]
    assert organization["IsSandbox"] is False and organization["InstanceName"] == "TT1"


def test_recently_viewed_is_empty_for_an_api_only_org(client: Client) -> None:
    for path in (f"{V}/recent", f"{V}/recent/?limit=10"):
        answer = client.get(path)
        assert answer.status == 200 and answer.json() == []
    assert client.get(f"{V}/sobjects/Account").json()["recentItems"] == []
    assert_error(client.get(f"{V}/recent", token=None), 401, "INVALID_SESSION_ID")


def test_describe_parts_this_org_does_not_keep_are_unknown_resources(client: Client) -> None:
    for part in ("layouts/", "layouts/012000000000000AAA", "compactLayouts"):
        error = assert_error(client.get(f"{V}/sobjects/Case/describe/{part}"), 404, "NOT_FOUND")
        assert error["message"] == "The requested resource does not exist"
    assert_error(client.get(f"{V}/sobjects/Bogus__c/describe/layouts"), 404, "NOT_FOUND")

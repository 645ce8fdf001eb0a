"""No request is ever answered with a 500, a traceback or HTML: odd and hostile inputs get Salesforce
errors, and a genuine bug is logged and answered as UNKNOWN_EXCEPTION JSON."""

from __future__ import annotations

import http.client
import json
import logging

import pytest

from mock_org.server.app import create_app
from mock_org.server.serve import RunningOrg

from .conftest import Client, assert_error

V = "/services/data/v59.0"
ODD_REQUESTS = [
    ("POST", f"{V}/composite", {"compositeRequest": ["not a subrequest", 7]}),
    ("POST", f"{V}/composite", {"compositeRequest": [{"method": "GET", "url": 12, "referenceId": None}]}),
    ("POST", f"{V}/composite", {"compositeRequest": "x"}),
    ("POST", f"{V}/composite", [1, 2]),
    ("POST", f"{V}/composite/sobjects", {"records": [{"attributes": "Account", "Name": "x"}]}),
    ("POST", f"{V}/composite/sobjects", {"records": [{"attributes": {"type": "Bogus"}, "Name": "x"}]}),
    ("PATCH", f"{V}/composite/sobjects", {"records": [{"attributes": {"type": "Account"}, "Id": "nope"}]}),
    ("POST", f"{V}/composite/sobjects/Account", {"ids": "not a list", "fields": 5}),
    ("POST", f"{V}/sobjects/Account", {"Name": 10**400}),
    ("POST", f"{V}/sobjects/Account", {"Name": {"nested": True}}),
    ("POST", f"{V}/sobjects/Issue__c", {"Name": "x", "OwnerId": "005000000000000"}),
    ("PATCH", f"{V}/sobjects/Account/001000000000000AAA", {"Name": "x"}),
    ("PATCH", f"{V}/sobjects/Account/Name/x%2Fy", {"Name": "x"}),
    ("POST", f"{V}/jobs/query", {"operation": "query", "query": 42}),
    ("POST", f"{V}/jobs/query", {"operation": "query", "query": ["SELECT Id FROM Account"]}),
    ("POST", f"{V}/jobs/query", {"operation": "query", "query": {"q": "SELECT Id FROM Account"}}),
    ("POST", f"{V}/jobs/query", {"operation": "query"}),
    ("POST", f"{V}/jobs/query", {"operation": "hardDelete"}),
    ("POST", f"{V}/jobs/ingest", {"object": 7, "operation": "insert"}),
    ("POST", f"{V}/jobs/ingest", {"object": "Account", "operation": "upsert"}),
    ("PATCH", f"{V}/jobs/ingest/750000000000000AAA", {"state": "UploadComplete"}),
    ("GET", f"{V}/jobs/query/750000000000000AAA/results?locator=%%%", None),
    ("GET", f"{V}/query?q=" + "SELECT Id FROM Account WHERE Name = '" + "x" * 5000 + "'", None),
    ("GET", f"{V}/query?q=SELECT%00Id%20FROM%20Account", None),
    ("GET", f"{V}/search?q=FIND%20%7B%7D", None),
    ("GET", f"{V}/sobjects/Account/describe/layouts/012000000000000AAA", None),
    ("GET", f"{V}/sobjects/Account/deleted/?start=2030-01-01T00:00:00Z&end=2000-01-01T00:00:00Z", None),
    ("GET", "/services/data/v59.00/query?q=SELECT+Id+FROM+Account", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ODD_REQUESTS)
def test_odd_requests_get_salesforce_errors(client: Client, method: str, path: str, body: object) -> None:
    answer = client.call(method, path, json_body=body)
    assert answer.status < 500, answer.text
    assert answer.headers["Content-Type"] == "application/json;charset=UTF-8", answer.text
    parsed = answer.json()
    if answer.status >= 300:
        assert isinstance(parsed, list) and "errorCode" in parsed[0]


def test_non_utf8_and_truncated_bodies(client: Client) -> None:
    for data in (b"\xff\xfe{", b'{"Name": "x"', b"", b"null"):
        answer = client.post(f"{V}/sobjects/Account", data=data, headers={"Content-Type": "application/json"})
        assert_error(answer, 400, "JSON_PARSER_ERROR")
    nan = client.post(f"{V}/sobjects/Account", data='{"Name": NaN}', headers={"Content-Type": "application/json"})
    assert_error(nan, 400, "JSON_PARSER_ERROR")


def test_a_bug_is_logged_and_answered_as_unknown_exception(
    running: RunningOrg, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(running.org)
    auth = app.extensions["crmarena"].auth
    headers = {"Authorization": f"Bearer {auth.issue(auth.admin)}"}

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(running.org, "describe_global", broken)
    with caplog.at_level(logging.ERROR):
        answer = app.test_client().get(f"{V}/sobjects", headers=headers)
    assert answer.status_code == 500 and answer.content_type == "application/json;charset=UTF-8"
    body = json.loads(answer.get_data())
    assert body[0]["errorCode"] == "UNKNOWN_EXCEPTION" and "secret" not in body[0]["message"]
    assert "Traceback" not in answer.get_data(as_text=True)
    assert "secret internal detail" in caplog.text


@pytest.mark.parametrize("prefix", ["//", "///"])
def test_a_doubled_leading_slash_reaches_the_api(running: RunningOrg, prefix: str) -> None:
    """The sf CLI keeps its instance URL with a trailing slash and asks for //services/data/...; a
    real org answers, so the mock must too (cheroot alone reads //services as a proxy authority)."""
    token = Client("https", running).token
    connection = http.client.HTTPConnection("127.0.0.1", running.server.http_port, timeout=10)
    try:
        connection.request(
            "GET",
            f"{prefix}services/data/v62.0/query?q=SELECT+Name+FROM+Organization",
            headers={"Authorization": f"Bearer {token}"},
        )
        response = connection.getresponse()
        body = json.loads(response.read())
    finally:
        connection.close()
    assert response.status == 200, body
    assert body["records"][0]["Name"] == "Tiny Test Org"
    assert body["records"][0]["attributes"]["url"].startswith("/services/data/v62.0/sobjects/Organization/")

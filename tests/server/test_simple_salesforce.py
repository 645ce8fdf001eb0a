"""End to end with unmodified simple-salesforce over HTTPS on a loopback port: every login flow, the
calls CRMArena makes, the rest of the client's REST surface, and every exception class it maps."""

from __future__ import annotations

import ast
import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import (
    SalesforceAuthenticationFailed,
    SalesforceError,
    SalesforceExpiredSession,
    SalesforceGeneralError,
    SalesforceMalformedRequest,
    SalesforceMoreThanOneRecord,
    SalesforceRefusedRequest,
    SalesforceResourceNotFound,
)

from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, default_security_token
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org
from tests.mock_org.builder import ADMIN, rid
from tests.mock_org.conftest import ACCOUNTS

from .conftest import BULK_PRODUCTS

pytestmark = pytest.mark.usefixtures("ca_env")
PAGED = {"Sforce-Query-Options": "batchSize=200"}


def domain(running: RunningOrg) -> str:
    return f"127.0.0.1:{running.server.port}/login"


@pytest.fixture
def sf(running: RunningOrg) -> Salesforce:
    """CRMArena's way in: Salesforce(username, password, security_token) → SOAP login."""
    return Salesforce(
        username=running.username,
        password=running.password,
        security_token=running.security_token,
        domain=domain(running),
    )


def crmarena_error(error: Exception) -> str:
    """What CRMArena's connector shows the agent for a failed query (reference/crmarena.md §4.3)."""
    parsed = ast.literal_eval(str(error).split("Response content:")[1].strip())[0]
    return f"{parsed['errorCode']}: {parsed['message']}"


# ----------------------------------------------------------------------------- logins


def test_soap_login(sf: Salesforce, running: RunningOrg) -> None:
    assert sf.sf_instance == f"127.0.0.1:{running.server.port}"
    assert sf.session_id.startswith("00D")
    assert sf.query("SELECT Id FROM Account LIMIT 1")["totalSize"] == 1


def test_oauth_password_login(running: RunningOrg) -> None:
    sf = Salesforce(
        username=running.username,
        password=running.password + running.security_token,
        consumer_key=DEFAULT_CLIENT_ID,
        consumer_secret=DEFAULT_CLIENT_SECRET,
        domain=domain(running),
    )
    assert sf.query("SELECT COUNT() FROM Case")["totalSize"] == 7


def test_oauth_client_credentials_login(running: RunningOrg) -> None:
    sf = Salesforce(consumer_key=DEFAULT_CLIENT_ID, consumer_secret=running.client_secret, domain=domain(running))
    assert sf.query("SELECT Id FROM User WHERE Id = '005Ws0000000999IAA'")["totalSize"] in (0, 1)
    assert sf.oauth2("userinfo")["user_id"] == ADMIN


def test_jwt_bearer_login(running: RunningOrg, jwt_key: rsa.RSAPrivateKey) -> None:
    pem = jwt_key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    sf = Salesforce(username=running.username, consumer_key=DEFAULT_CLIENT_ID, privatekey=pem, domain=domain(running))
    assert sf.limits()["DailyApiRequests"]["Max"] > 0


def test_session_id_login(sf: Salesforce, running: RunningOrg) -> None:
    direct = Salesforce(instance_url=running.url, session_id=sf.session_id)
    assert direct.query("SELECT Id FROM Account")["totalSize"] == sf.query("SELECT Id FROM Account")["totalSize"]


def test_a_revoked_session_is_renewed_by_logging_in_again(sf: Salesforce, running: RunningOrg) -> None:
    old = sf.session_id
    running.app.extensions["crmarena"].auth.revoke(old)
    assert sf.query("SELECT Id FROM Account LIMIT 1")["totalSize"] == 1
    assert sf.session_id != old


@pytest.mark.parametrize("oauth", [False, True])
def test_bad_credentials_raise_authentication_failed(running: RunningOrg, oauth: bool) -> None:
    extra = (
        {"consumer_key": DEFAULT_CLIENT_ID, "consumer_secret": DEFAULT_CLIENT_SECRET}
        if oauth
        else {"security_token": ""}
    )
    with pytest.raises(SalesforceAuthenticationFailed) as caught:
        Salesforce(username=running.username, password="wrong", domain=domain(running), **extra)
    assert caught.value.code == ("invalid_grant" if oauth else "INVALID_LOGIN")


# ----------------------------------------------------------------------------- CRMArena's calls


def test_query_all_pages_through_four_batches(sf: Salesforce, running: RunningOrg) -> None:
    usage = running.app.extensions["crmarena"].usage
    before = usage.used
    result = sf.query_all("SELECT Id, Name FROM Product2 WHERE Name LIKE 'Bulk Item%' ORDER BY Name", headers=PAGED)
    assert usage.used - before == 4  # the first page and three nextRecordsUrl pages
    names = [record["Name"] for record in result["records"]]
    assert len(names) == BULK_PRODUCTS and names == sorted(names) and len(set(names)) == BULK_PRODUCTS


def test_query_more_by_url_and_by_locator(sf: Salesforce) -> None:
    first = sf.query("SELECT Id FROM Product2 ORDER BY Id", headers=PAGED)
    assert first["done"] is False and first["nextRecordsUrl"].startswith("/services/data/v59.0/query/01g")
    second = sf.query_more(first["nextRecordsUrl"], identifier_is_url=True, headers=PAGED)
    third = sf.query_more(second["nextRecordsUrl"].rsplit("/", 1)[1], headers=PAGED)
    ids = [record["Id"] for page in (first, second, third) for record in page["records"]]
    assert len(ids) == len(set(ids)) == 600


def test_query_all_after_a_delete(sf: Salesforce) -> None:
    record_id = sf.Issue__c.create({"Name": "Soon gone"})["id"]
    assert sf.Issue__c.delete(record_id) == 204
    soql = f"SELECT Id, IsDeleted FROM Issue__c WHERE Id = '{record_id}'"
    assert sf.query_all(soql)["records"] == []
    assert [row["IsDeleted"] for row in sf.query_all(soql, include_deleted=True)["records"]] == [True]


def test_search_and_quick_search(sf: Salesforce) -> None:
    found = sf.search("FIND {Walker} IN ALL FIELDS RETURNING Account(Id, Name)")
    assert [record["Name"] for record in found["searchRecords"]] == ["Patricia Walker"]
    assert any(record["attributes"]["type"] == "Contact" for record in sf.quick_search("Walker")["searchRecords"])


def test_a_crmarena_style_session(sf: Salesforce) -> None:
    """Tool queries as the harness sends them, records cleaned as it cleans them, errors parsed as it parses them."""
    rows = sf.query_all("SELECT IssueId__c, COUNT(Id) IssueCount FROM Case GROUP BY IssueId__c")["records"]
    counts = {row["IssueId__c"]: row["IssueCount"] for row in rows}
    assert sum(counts.values()) == 7
    parents = sf.query_all(f"SELECT Id, Account.ShippingState FROM Contact WHERE AccountId = '{ACCOUNTS[0]}'")
    record = parents["records"][0]
    del record["attributes"]
    assert record["Account"]["ShippingState"] == "CA"
    with pytest.raises(SalesforceMalformedRequest) as caught:
        sf.query_all("SELECT Id FROM Case WHERE CreatedDate > '2023-01-01'")
    assert crmarena_error(caught.value).startswith(
        "INVALID_FIELD: \nSELECT Id FROM Case WHERE CreatedDate > '2023-01-01'\n"
    )
    with pytest.raises(SalesforceMalformedRequest) as caught:
        sf.search("FIND {unterminated")
    assert crmarena_error(caught.value).startswith("MALFORMED_SEARCH: ")


def test_describe_calls(sf: Salesforce) -> None:
    names = [entry["name"] for entry in sf.describe()["sobjects"]]
    assert "Knowledge__kav" in names
    assert sf.Case.describe()["keyPrefix"] == "500"
    assert sf.Case.metadata()["objectDescribe"]["name"] == "Case"
    assert sf.is_sandbox() is False


def test_set_password(sf: Salesforce, running: RunningOrg) -> None:
    """sf.set_password as the administrator; the user then logs in with it and the unchanged token."""
    username = "sofia.kouris@example.com"
    user_id = sf.query(f"SELECT Id FROM User WHERE Username = '{username}'")["records"][0]["Id"]
    assert sf.set_password(user_id, "Fresh2024pass") is None
    token = default_security_token(username)
    again = Salesforce(username=username, password="Fresh2024pass", security_token=token, domain=domain(running))
    assert again.query("SELECT Id FROM User WHERE Id = '005000000000000AAA'")["totalSize"] == 0
    with pytest.raises(SalesforceMalformedRequest, match="INVALID_NEW_PASSWORD"):
        sf.set_password(user_id, "short")


def test_crud(sf: Salesforce) -> None:
    created = sf.Issue__c.create({"Name": "Strap snapped"})
    assert created["success"] is True
    record_id = created["id"]
    assert sf.Issue__c.get(record_id)["Name"] == "Strap snapped"
    assert sf.Issue__c.update(record_id, {"Description__c": "Left strap"}) == 204
    assert sf.Issue__c.get(record_id)["Description__c"] == "Left strap"
    assert sf.Issue__c.delete(record_id) == 204


def test_upsert_and_get_by_custom_id(sf: Salesforce) -> None:
    assert sf.Product2.upsert("External_ID__c/SS_Upsert", {"Name": "Upsert shoe"}) == 201
    assert sf.Product2.upsert("External_ID__c/SS_Upsert", {"Name": "Upsert shoe v2"}) == 200
    assert sf.Product2.get_by_custom_id("External_ID__c", "SS_Upsert")["Name"] == "Upsert shoe v2"


def test_deleted_and_updated(sf: Salesforce) -> None:
    import datetime as dt

    start, end = dt.datetime(2000, 1, 1, tzinfo=dt.UTC), dt.datetime(2100, 1, 1, tzinfo=dt.UTC)
    assert "deletedRecords" in sf.Issue__c.deleted(start, end)
    assert "ids" in sf.Issue__c.updated(start.replace(tzinfo=None), end.replace(tzinfo=None))


def test_composite_through_restful(sf: Salesforce) -> None:
    body = {
        "allOrNone": True,
        "compositeRequest": [
            {
                "method": "POST",
                "url": "/services/data/v59.0/sobjects/Account",
                "referenceId": "a",
                "body": {"Name": "SS Co"},
            },
            {
                "method": "POST",
                "url": "/services/data/v59.0/sobjects/Contact",
                "referenceId": "c",
                "body": {"LastName": "Composite", "AccountId": "@{a.id}"},
            },
        ],
    }
    result = sf.restful("composite", method="POST", json=body)
    assert [entry["httpStatusCode"] for entry in result["compositeResponse"]] == [201, 201]
    collections = sf.restful(
        "composite/sobjects", method="POST", json={"records": [{"attributes": {"type": "Issue__c"}, "Name": "Coll"}]}
    )
    assert collections[0]["success"] is True


def test_bulk2_query_and_insert(sf: Salesforce) -> None:
    pages = list(sf.bulk2.Account.query("SELECT Id, Name FROM Account ORDER BY Name", max_records=2, wait=0))
    rows = [row for page in pages for row in csv.DictReader(io.StringIO(page))]
    assert len(pages) >= 2 and "Patricia Walker" in [row["Name"] for row in rows]
    results = sf.bulk2.Issue__c.insert(records=[{"Name": "Bulk one"}, {"Name": "Bulk two"}], wait=0)
    assert results[0]["numberRecordsProcessed"] == 2 and results[0]["numberRecordsFailed"] == 0
    successes = sf.bulk2.Issue__c.get_successful_records(results[0]["job_id"])
    assert [row["Name"] for row in csv.DictReader(io.StringIO(successes))] == ["Bulk one", "Bulk two"]


def test_limits_and_api_usage(sf: Salesforce) -> None:
    limits = sf.limits()
    assert limits["DailyApiRequests"]["Remaining"] < limits["DailyApiRequests"]["Max"]
    usage = sf.api_usage["api-usage"]
    assert usage.total == limits["DailyApiRequests"]["Max"] and usage.used > 0


# ----------------------------------------------------------------------------- every mapped error


def test_malformed_request_400(sf: Salesforce) -> None:
    with pytest.raises(SalesforceMalformedRequest) as caught:
        sf.query("SELECT Id FRM Account")
    assert caught.value.status == 400
    assert crmarena_error(caught.value).startswith("MALFORMED_QUERY: \nSELECT Id FRM Account\n")


def test_expired_session_401(running: RunningOrg) -> None:
    direct = Salesforce(instance_url=running.url, session_id="00DWs0000000007!AQexpired")
    with pytest.raises(SalesforceExpiredSession) as caught:
        direct.query("SELECT Id FROM Account")
    assert crmarena_error(caught.value) == "INVALID_SESSION_ID: Session expired or invalid"


@pytest.fixture(scope="module")
def read_only(org_dump: Path, tls_files: tls.TlsFiles) -> Iterator[RunningOrg]:
    with serve_org(org_dump, read_only=True, tls_files=tls_files) as served:
        yield served


def test_refused_request_403(read_only: RunningOrg) -> None:
    sf = Salesforce(
        username=read_only.username,
        password=read_only.password,
        security_token=read_only.security_token,
        domain=domain(read_only),
    )
    assert sf.query("SELECT COUNT() FROM Account")["totalSize"] == 4
    with pytest.raises(SalesforceRefusedRequest) as caught:
        sf.Account.create({"Name": "Not here"})
    assert crmarena_error(caught.value).startswith("INSUFFICIENT_ACCESS_OR_READONLY: ")


def test_resource_not_found_404(sf: Salesforce) -> None:
    with pytest.raises(SalesforceResourceNotFound) as caught:
        sf.Account.get(rid("001", 4242))
    assert crmarena_error(caught.value) == "NOT_FOUND: The requested resource does not exist"


def test_more_than_one_record_300(sf: Salesforce) -> None:
    with pytest.raises(SalesforceMoreThanOneRecord) as caught:
        sf.Product2.get_by_custom_id("External_ID__c", "Twin")
    assert caught.value.status == 300 and len(caught.value.content) == 2


@pytest.mark.parametrize(("method", "path", "status"), [("POST", "limits/", 405), ("DELETE", "sobjects/", 405)])
def test_general_error(sf: Salesforce, method: str, path: str, status: int) -> None:
    with pytest.raises(SalesforceGeneralError) as caught:
        sf.restful(path, method=method)
    assert caught.value.status == status
    assert crmarena_error(caught.value).startswith("METHOD_NOT_ALLOWED: ")


def test_every_error_is_a_salesforce_error(sf: Salesforce) -> None:
    with pytest.raises(SalesforceError):
        sf.restful("nothing/here")

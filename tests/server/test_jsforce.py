"""End to end with unmodified jsforce (npm, installed by the test run itself into the project's cache):
SOAP login, query with autoFetch over several pages, queryAll, search, CRUD, identity, errors, and the
Bulk API 1.0 client (``conn.bulk``: XML jobs, CSV data)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg
from tests.mock_org.conftest import CONTACTS

from . import npm
from .conftest import BULK_PRODUCTS
from .jsforce import run_script


@pytest.fixture(scope="module")
def node_modules() -> Path:
    return npm.installed("jsforce@3")


@pytest.fixture(scope="module")
def session(node_modules: Path, running: RunningOrg, tls_files: tls.TlsFiles) -> dict:
    return run_script("jsforce_session.js", node_modules, running, tls_files)


def test_login(session: dict, running: RunningOrg) -> None:
    assert session["login"]["userId"].startswith("005") and session["login"]["organizationId"].startswith("00D")
    assert session["login"]["instanceUrl"] == running.url


def test_query_with_auto_fetch(session: dict) -> None:
    assert session["autoFetch"]["fetched"] == session["autoFetch"]["totalSize"] >= BULK_PRODUCTS
    assert session["firstPage"]["fetched"] == 200 and session["firstPage"]["done"] is False


def test_search(session: dict) -> None:
    assert session["search"] == ["Patricia Walker"]


def test_crud_and_query_all(session: dict) -> None:
    assert session["crud"] == {
        "created": True,
        "name": "From jsforce",
        "description": "updated by jsforce",
        "destroyed": True,
        "deletedRows": [True],
    }


def test_identity_and_limit_info(session: dict, running: RunningOrg) -> None:
    assert session["identity"]["username"] == running.username
    assert session["limitInfo"]["apiUsage"]["limit"] > 0


def test_plain_http(session: dict, running: RunningOrg) -> None:
    assert session["plainHttp"] == {"instanceUrl": running.http_url, "cases": 7}


def test_errors_arrive_as_http_api_errors(session: dict) -> None:
    assert session["error"]["errorCode"] == "MALFORMED_QUERY"
    assert "ERROR at Row:1:Column:" in session["error"]["message"]


# ----------------------------------------------------------------------------- Bulk API 1.0


@pytest.fixture(scope="module")
def bulk(node_modules: Path, running: RunningOrg, tls_files: tls.TlsFiles) -> dict:
    return run_script("jsforce_bulk1.js", node_modules, running, tls_files)


def test_bulk_query_streams_csv_records(bulk: dict) -> None:
    assert [record["Id"] for record in bulk["query"]] == [CONTACTS[1], CONTACTS[2], CONTACTS[3], CONTACTS[0]]
    first = bulk["query"][0]
    assert first["Name"] == "Jürgen Groß" and first["Account.Name"] == "Jürgen Groß"  # dotted CSV header
    assert first["CreatedDate"].endswith(".000Z")
    assert bulk["emptyQuery"] == []


def test_bulk_query_failure_carries_the_batch_state_message(bulk: dict) -> None:
    assert bulk["queryError"]["message"].startswith("InvalidBatch : Failed to process query: INVALID_FIELD: ")


def test_bulk_load_insert_update_and_delete(bulk: dict) -> None:
    first, second, failed = bulk["insert"]
    assert first["success"] and first["created"] and first["id"].startswith("a1M") and first["errors"] == []
    assert second["success"] and second["id"] != first["id"]
    assert failed == {
        "id": None,
        "success": False,
        "created": False,
        "errors": ["REQUIRED_FIELD_MISSING:Required fields are missing: [Name]:Name --"],
    }
    assert bulk["update"] == [{"id": first["id"], "success": True, "created": False, "errors": []}]
    assert bulk["updated"] == "updated by bulk"
    assert [result["success"] for result in bulk["delete"]] == [True, True]
    assert bulk["deletedRows"] == [True, True]


def test_bulk_load_upsert_by_external_id_and_hard_delete(bulk: dict) -> None:
    assert bulk["upsert"][0]["created"] is True and bulk["upsert"][0]["id"].startswith("01t")
    assert bulk["upsertAgain"] == [{"id": bulk["upsert"][0]["id"], "success": True, "created": False, "errors": []}]
    assert bulk["upsertedName"] == "jsforce bulk v2"
    assert bulk["hardDelete"][0]["success"] is True and bulk["purgedRows"] == 0


def test_bulk_job_and_batch_api(bulk: dict) -> None:
    api = bulk["jobApi"]
    assert api["jobId"].startswith("750") and api["batchId"].startswith("751")
    assert (api["queuedState"], api["checkedState"], api["jobState"]) == ("Queued", "Completed", "Open")
    assert api["listed"] == [api["batchId"]] and api["contentType"] == "CSV"
    assert api["retrieved"][0]["success"] is True
    assert api["closedState"] == "Closed" and api["processed"] == "1"
    assert bulk["aborted"] == "Aborted"
    assert bulk["closedJobError"]["name"] == "InvalidJob"

"""End to end with unmodified jsforce (npm, installed by the test run itself into the project's cache):
SOAP login, query with autoFetch over several pages, queryAll, search, CRUD, identity, errors."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from mock_org.server import tls
from mock_org.server.serve import RunningOrg

from . import npm
from .conftest import BULK_PRODUCTS

SCRIPT = Path(__file__).with_name("js") / "jsforce_session.js"


@pytest.fixture(scope="module")
def node_modules() -> Path:
    return npm.installed("jsforce@3")


@pytest.fixture(scope="module")
def session(node_modules: Path, running: RunningOrg, tls_files: tls.TlsFiles) -> dict:
    env = {
        **os.environ,
        "NODE_PATH": str(node_modules),
        "NODE_EXTRA_CA_CERTS": str(tls_files.ca_cert),
        "LOGIN_URL": running.url,
        "HTTP_LOGIN_URL": str(running.http_url),
        "SF_USERNAME": running.username,
        "SF_PASSWORD": running.password + running.security_token,
    }
    result = subprocess.run(["node", str(SCRIPT)], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_login(session: dict, running: RunningOrg) -> None:
    assert session["login"]["userId"].startswith("005") and session["login"]["organizationId"].startswith("00D")
    assert session["login"]["instanceUrl"] == running.url


def test_query_with_auto_fetch(session: dict) -> None:
    assert session["autoFetch"]["fetched"] == session["autoFetch"]["totalSize"] >= BULK_PRODUCTS
    assert session["firstPage"]["fetched"] == 200 and session["firstPage"]["done"] is False


def test_search(session: dict) -> None:
    assert session["search"] == ["Patricia Walker"]


def test_crud_and_query_all(session: dict) -> None:
    assert session["crud"] == {"created": True, "name": "From jsforce", "description": "updated by jsforce",
                               "destroyed": True, "deletedRows": [True]}  # fmt: skip


def test_identity_and_limit_info(session: dict, running: RunningOrg) -> None:
    assert session["identity"]["username"] == running.username
    assert session["limitInfo"]["apiUsage"]["limit"] > 0


def test_plain_http(session: dict, running: RunningOrg) -> None:
    assert session["plainHttp"] == {"instanceUrl": running.http_url, "cases": 7}


def test_errors_arrive_as_http_api_errors(session: dict) -> None:
    assert session["error"]["errorCode"] == "MALFORMED_QUERY"
    assert "ERROR at Row:1:Column:" in session["error"]["message"]

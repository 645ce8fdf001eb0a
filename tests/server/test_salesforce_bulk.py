"""End to end with unmodified salesforce-bulk (PyPI, installed by the test run into the project's cache), the
Bulk API 1.0 library amaxa and others load and extract with: query, insert, update, upsert and delete jobs
in CSV, JSON and XML. It tells the formats apart by comparing the bare Content-Type with ``==``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg
from tests.mock_org.conftest import CONTACTS

from . import pypi
from .conftest import Client

SCRIPT = Path(__file__).with_name("py") / "salesforce_bulk_jobs.py"
FORMATS = ("CSV", "JSON", "XML")


@pytest.fixture(scope="module")
def seen(running: RunningOrg, tls_files: tls.TlsFiles) -> dict:
    packages = pypi.installed("salesforce-bulk==2.2.0")
    env = {
        **os.environ,
        "PYTHONPATH": str(packages),
        "REQUESTS_CA_BUNDLE": str(tls_files.bundle),
        "INSTANCE_URL": running.url,
        "SESSION_ID": Client("https", running).token,
    }
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("kind", FORMATS)
def test_query_job(seen: dict, kind: str) -> None:
    rows = seen[f"query{kind}"]
    assert [row["Id"] for row in rows] == [CONTACTS[1], CONTACTS[2], CONTACTS[3], CONTACTS[0]]
    parent = rows[0]["Account.Name"] if kind == "CSV" else rows[0]["Account"]["Name"]
    assert rows[0]["Name"] == parent == "Jürgen Groß"


@pytest.mark.parametrize("kind", FORMATS)
def test_insert_job_reports_each_record(seen: dict, kind: str) -> None:
    first, second, failed = seen[f"insert{kind}"]
    assert first[2] in (True, "true") and second[2] in (True, "true")  # created
    if kind != "XML":
        assert first[0].startswith("a1M") and second[0].startswith("a1M") and first[0] != second[0]
    assert failed[1] in (False, "false")


@pytest.mark.parametrize("kind", FORMATS)
def test_update_upsert_and_delete_jobs(seen: dict, kind: str) -> None:
    assert [row[1] for row in seen[f"update{kind}"]] in ([True], ["true"])
    assert [row[2] for row in seen[f"upsert{kind}"]] in ([True], ["true"])  # created by its external Id
    assert [row[1] for row in seen[f"delete{kind}"]] in ([True, True], ["true", "true"])


def test_failed_batch_and_job_states(seen: dict) -> None:
    assert seen["failed"]["state"] == "Failed"
    assert seen["failed"]["message"].startswith("InvalidBatch : Failed to process query: INVALID_FIELD: ")
    assert seen["batchList"] == ["Failed"] and seen["jobState"] == "Closed"
    assert seen["aborted"] == "Aborted"

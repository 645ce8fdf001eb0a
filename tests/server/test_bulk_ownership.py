"""Bulk API jobs belong to the user who made them (issue 25, problems 2 and 3): nobody else lists, reads,
uploads into, closes, aborts or deletes them, unless they have View All Data as the administrator
does; job Ids do not follow one another; and a job's records live on disk, not in the server's
memory, with a cap per user and an expiry."""

from __future__ import annotations

import itertools
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from mock_org.ids import serial_of
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org
from tests.mock_org.builder import rid

from .test_hostile import AGENT, login, session_of

V = "/services/data/v59.0"
A = "/services/async/59.0"
OTHER_USER = rid("005", 1)  # an active agent the admin's open job would deactivate


@pytest.fixture
def private(org_dump: Path, tls_files: tls.TlsFiles) -> Iterator[RunningOrg]:
    with serve_org(org_dump, today="2023-05-15", tls_files=tls_files) as served:
        yield served


def xml_job(operation: str, sobject: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?><jobInfo xmlns="http://www.force.com/2009/06/asyncapi/dataload">'
        f"<operation>{operation}</operation><object>{sobject}</object><contentType>CSV</contentType></jobInfo>"
    )


def test_bulk_jobs_are_their_owners_alone(private: RunningOrg) -> None:
    """Problem 2: a Support Agent tried 7 calls on the administrator's jobs and all 7 worked; one of them
    deactivated another user, recorded as the administrator's change."""
    admin = session_of(private, login(private, private.username))
    agent = session_of(private, login(private, AGENT))
    url = private.url
    ingest = admin.post(f"{url}{V}/jobs/ingest", json={"object": "User", "operation": "update"}).json()
    query = admin.post(f"{url}{V}/jobs/query", json={"query": "SELECT Id, Name FROM Account"}).json()
    bulk1 = admin.post(f"{url}{A}/job", data=xml_job("update", "User"), headers={"Content-Type": "application/xml"})
    job1 = bulk1.text.split("<id>")[1].split("</id>")[0]
    batch = (
        admin.post(
            f"{url}{A}/job/{job1}/batch", data=f"Id,Title\n{OTHER_USER},Admin's\n", headers={"Content-Type": "text/csv"}
        )
        .text.split("<id>")[1]
        .split("</id>")[0]
    )

    # Listing shows the agent none of them; every call on them is answered as for a job that does not exist.
    assert agent.get(f"{url}{V}/jobs/ingest").json()["records"] == []
    assert agent.get(f"{url}{V}/jobs/query").json()["records"] == []
    for method, path, body in [
        ("GET", f"{V}/jobs/ingest/{ingest['id']}", None),
        ("PATCH", f"{V}/jobs/ingest/{ingest['id']}", {"state": "UploadComplete"}),
        ("DELETE", f"{V}/jobs/ingest/{ingest['id']}", None),
        ("GET", f"{V}/jobs/ingest/{ingest['id']}/successfulResults", None),
        ("GET", f"{V}/jobs/query/{query['id']}", None),
        ("GET", f"{V}/jobs/query/{query['id']}/results", None),
        ("DELETE", f"{V}/jobs/query/{query['id']}", None),
    ]:
        answer = agent.request(method, url + path, json=body)
        assert answer.status_code == 404 and answer.json()[0]["errorCode"] == "NOT_FOUND", (path, answer.text)
    upload = agent.put(
        f"{url}{V}/jobs/ingest/{ingest['id']}/batches",
        data=f"Id,IsActive\n{OTHER_USER},false\n",
        headers={"Content-Type": "text/csv"},
    )
    assert upload.status_code == 404
    for method, path, data, content_type in [
        ("GET", f"{A}/job/{job1}", None, None),
        (
            "POST",
            f"{A}/job/{job1}",
            xml_job("update", "User").replace(
                "<operation>update</operation><object>User</object><contentType>CSV</contentType>",
                "<state>Aborted</state>",
            ),
            "application/xml",
        ),
        ("GET", f"{A}/job/{job1}/batch", None, None),
        ("POST", f"{A}/job/{job1}/batch", f"Id,IsActive\n{OTHER_USER},false\n", "text/csv"),
        ("GET", f"{A}/job/{job1}/batch/{batch}", None, None),
        ("GET", f"{A}/job/{job1}/batch/{batch}/request", None, None),
        ("GET", f"{A}/job/{job1}/batch/{batch}/result", None, None),
    ]:
        headers = {"Content-Type": content_type} if content_type else {}
        answer = agent.request(method, url + path, data=data, headers=headers)
        assert answer.status_code == 400 and "<exceptionCode>InvalidJob</exceptionCode>" in answer.text, (
            path,
            answer.text,
        )

    # The administrator's jobs are as they were, and nobody was deactivated.
    assert admin.get(f"{url}{V}/jobs/ingest/{ingest['id']}").json()["state"] == "Open"
    assert "<state>Open</state>" in admin.get(f"{url}{A}/job/{job1}").text
    user = admin.get(f"{url}{V}/sobjects/User/{OTHER_USER}").json()
    assert user["IsActive"] is True and user["Title"] == "Admin's"

    # The agent's own jobs are its own; the administrator (View All Data) sees everyone's.
    mine = agent.post(f"{url}{V}/jobs/query", json={"query": "SELECT Id FROM Account"}).json()
    assert [job["id"] for job in agent.get(f"{url}{V}/jobs/query").json()["records"]] == [mine["id"]]
    assert {mine["id"], query["id"]} <= {job["id"] for job in admin.get(f"{url}{V}/jobs/query").json()["records"]}
    assert admin.get(f"{url}{V}/jobs/query/{mine['id']}").status_code == 200

    # Job Ids are not a sequence one can count along.
    ids = [admin.post(f"{url}{V}/jobs/query", json={"query": "SELECT Id FROM Account"}).json()["id"] for _ in range(4)]
    steps = {serial_of(after) - serial_of(before) for before, after in itertools.pairwise(ids)}
    assert steps.isdisjoint({1, 2, 3}), ids


def results_of(session: requests.Session, url: str, job_id: str, max_records: int | None = None) -> list[str]:
    """Every data line of a query job's results, page by page."""
    lines, locator = [], None
    while locator != "null":
        params = {"locator": locator} if locator else {}
        if max_records:
            params["maxRecords"] = str(max_records)
        page = session.get(f"{url}{V}/jobs/query/{job_id}/results", params=params)
        assert page.status_code == 200, page.text
        rows = page.text.splitlines()
        assert rows[0] == '"Id","Name"' and int(page.headers["Sforce-NumberOfRecords"]) == len(rows) - 1
        lines += rows[1:]
        locator = page.headers["Sforce-Locator"]
    return lines


def test_query_jobs_keep_their_records_on_disk(running: RunningOrg) -> None:
    """Problem 3: 48 query jobs by a non-admin took 93 → 1,569 MB. Here 30 jobs of 650 rows each leave
    the server's Python memory where it was; their pages still read back whole, in any page size."""
    agent = session_of(running, login(running, AGENT))
    url = running.url
    soql = "SELECT Id, Name FROM Product2 WHERE Name LIKE 'Bulk Item%' ORDER BY Name"
    first = agent.post(f"{url}{V}/jobs/query", json={"query": soql}).json()["id"]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        ids = [agent.post(f"{url}{V}/jobs/query", json={"query": soql}).json()["id"] for _ in range(30)]
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 600_000, grown  # under 20 KB a job; its 650 rows in memory took ten times that
    whole = results_of(agent, url, ids[-1])
    assert len(whole) == 650 and whole == results_of(agent, url, first, max_records=97)
    for job_id in [first, *ids]:
        agent.delete(f"{url}{V}/jobs/query/{job_id}")


def test_a_user_keeps_a_bounded_number_of_jobs_and_bytes_for_a_bounded_time(
    org_dump: Path, tls_files: tls.TlsFiles
) -> None:
    """Problem 3: per-user caps and expiry. With 3 jobs a user, a fourth removes the oldest finished one;
    with 20 KB a user, a bigger result fails its job; past the retention time, jobs are gone."""
    from mock_org.server.limits import ServerLimits
    from mock_org.server.settings import Settings

    limits = ServerLimits(bulk_jobs_per_user=3, bulk_storage_per_user=20_000)
    with serve_org(org_dump, today="2023-05-15", tls_files=tls_files, settings=Settings(limits=limits)) as served:
        agent = session_of(served, login(served, AGENT))
        url = served.url
        small = "SELECT Id, Name FROM Account"
        ids = [agent.post(f"{url}{V}/jobs/query", json={"query": small}).json()["id"] for _ in range(4)]
        kept = [job["id"] for job in agent.get(f"{url}{V}/jobs/query").json()["records"]]
        assert sorted(kept) == sorted(ids[1:])
        big = agent.post(f"{url}{V}/jobs/query", json={"query": "SELECT Id, Name, External_ID__c FROM Product2"}).json()
        info = agent.get(f"{url}{V}/jobs/query/{big['id']}").json()
        assert info["state"] == "Failed" and "--bulk-storage-per-user" in info["errorMessage"]
        jobs = served.app.extensions["crmarena"].jobs
        jobs.clock = lambda: 10**12  # far past every job's retention
        assert agent.get(f"{url}{V}/jobs/query").json()["records"] == []

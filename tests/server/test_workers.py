"""``crmarena serve --workers 2``: two processes behind one port that are one org to their clients.

Every request here goes out on a new connection, which the kernel may hand to either worker; the
server's sockets are counted to show that both took connections. What one worker did (a login, a
logout or revoke, a deactivation, a password change, a session clock, a cursor, a Bulk job, the
API request count) must hold on the other.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, default_password, default_security_token
from mock_org.server.http import tls
from tests.mock_org.builder import rid

from .conftest import BULK_PRODUCTS, TWINS
from .test_cli import crmarena, started, stop
from .test_login import element, soap_login

V = "/services/data/v59.0"
PRODUCTS = BULK_PRODUCTS + 3 + len(TWINS)
CONNECTIONS = 24


class Workers:
    """The served org, reached with a new connection for every request."""

    def __init__(self, process: subprocess.Popen, port: int, exports: dict[str, str]) -> None:
        self.process, self.url, self.exports = process, f"https://127.0.0.1:{port}", exports
        self.ca = exports["REQUESTS_CA_BUNDLE"]

    def call(self, method: str, path: str, token: str | None = None, **options: Any) -> requests.Response:
        headers = {**options.pop("headers", {}), **({"Authorization": f"Bearer {token}"} if token else {})}
        with requests.Session() as fresh:  # a new TCP connection: the kernel picks the worker
            return fresh.request(method, self.url + path, headers=headers, verify=self.ca, timeout=30, **options)

    def login(self, username: str, password: str) -> str:
        answer = self.call(
            "POST",
            "/services/Soap/u/59.0",
            data=soap_login(username, password),
            headers={"Content-Type": "text/xml", "SOAPAction": "login"},
        )
        assert answer.status_code == 200, answer.text
        session_id = element(answer.content, "sessionId")
        assert session_id
        return session_id

    def admin(self) -> str:
        return self.login(
            self.exports["CRMARENA_USERNAME"],
            self.exports["CRMARENA_PASSWORD"] + self.exports["CRMARENA_SECURITY_TOKEN"],
        )

    def statuses(self, path: str, token: str, count: int = 12) -> set[int]:
        return {self.call("GET", path, token).status_code for _ in range(count)}

    def worker_pids(self) -> list[int]:
        children = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == self.process.pid:
                    children.append(int(entry.name))
        return sorted(children)


def sockets_of(pid: int) -> int:
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += os.readlink(fd).startswith("socket:")
        except OSError:
            continue
    return count


@pytest.fixture(scope="module")
def served(org_dump: Path, tls_files: tls.TlsFiles) -> Iterator[Workers]:
    process = crmarena(
        "serve",
        "--db",
        str(org_dump),
        "--copy",
        "--port",
        "0",
        "--workers",
        "2",
        "--tls-dir",
        str(tls_files.directory),
        "--today",
        "2023-05-15",
    )
    try:
        port, _, exports = started(process)
        workers = Workers(process, port, exports)
        pids = workers.worker_pids()
        yield workers
        assert stop(process) == 0  # Ctrl-C stops the parent and both workers, cleanly
        assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]
    finally:
        if process.poll() is None:
            stop(process)


def test_a_session_from_one_worker_works_on_both(served: Workers) -> None:
    pids = served.worker_pids()
    assert len(pids) == 2
    before = {pid: sockets_of(pid) for pid in pids}
    token = served.admin()
    held = [requests.Session() for _ in range(CONNECTIONS)]  # kept open, so each worker's sockets can be counted
    try:
        for session in held:
            answer = session.get(
                served.url + f"{V}/query",
                params={"q": "SELECT Id FROM Case LIMIT 1"},
                headers={"Authorization": f"Bearer {token}"},
                verify=served.ca,
                timeout=30,
            )
            assert answer.status_code == 200, answer.text
        gained = {pid: sockets_of(pid) - before[pid] for pid in pids}
    finally:
        for session in held:
            session.close()
    assert all(count > 0 for count in gained.values()), gained  # both workers took connections
    assert sum(gained.values()) >= CONNECTIONS


def test_logout_revoke_and_deactivation_hold_on_every_worker(served: Workers) -> None:
    admin = served.admin()
    assert served.statuses(f"{V}/limits", admin) == {200}

    soap = served.login(served.exports["CRMARENA_USERNAME"], served.exports["CRMARENA_PASSWORD"])
    logout = (
        '<se:Envelope xmlns:se="http://schemas.xmlsoap.org/soap/envelope/"><se:Header>'
        f'<SessionHeader xmlns="urn:partner.soap.sforce.com"><sessionId>{soap}</sessionId></SessionHeader>'
        '</se:Header><se:Body><logout xmlns="urn:partner.soap.sforce.com"/></se:Body></se:Envelope>'
    )
    assert served.statuses(f"{V}/limits", soap) == {200}
    assert served.call("POST", "/services/Soap/u/59.0", data=logout, headers={"Content-Type": "text/xml"}).ok
    assert served.statuses(f"{V}/limits", soap) == {401}

    oauth = served.call(
        "POST",
        "/services/oauth2/token",
        data={
            "grant_type": "password",
            "client_id": DEFAULT_CLIENT_ID,
            "client_secret": DEFAULT_CLIENT_SECRET,
            "username": served.exports["CRMARENA_USERNAME"],
            "password": served.exports["CRMARENA_PASSWORD"],
        },
    ).json()["access_token"]
    assert served.statuses(f"{V}/limits", oauth) == {200}
    assert served.call("POST", "/services/oauth2/revoke", data={"token": oauth}).status_code == 200
    assert served.statuses(f"{V}/limits", oauth) == {401}

    username = "mohammad.aziz@example.com"
    user = served.login(username, default_password(username) + default_security_token(username))
    assert served.statuses(f"{V}/limits", user) == {200}
    deactivate = served.call("PATCH", f"{V}/sobjects/User/{rid('005', 2)}", admin, json={"IsActive": False})
    assert deactivate.status_code == 204, deactivate.text
    assert served.statuses(f"{V}/limits", user) == {401}
    assert served.statuses(f"{V}/limits", admin) == {200}


def test_a_changed_password_and_a_session_clock_hold_on_every_worker(served: Workers) -> None:
    admin = served.admin()
    username, user_id = "sofia.kouris@example.com", rid("005", 1)
    chosen = "Workers2024again"
    changed = served.call("POST", f"{V}/sobjects/User/{user_id}/password", admin, json={"NewPassword": chosen})
    assert changed.status_code == 204
    for _ in range(6):
        served.login(username, chosen + default_security_token(username))

    mine = served.admin()
    assert served.call("PUT", f"{V}/crmarena/clock", mine, json={"today": "2021-03-04"}).ok
    days = {served.call("GET", f"{V}/crmarena/clock", mine).json()["today"] for _ in range(12)}
    assert days == {"2021-03-04"}
    assert {served.call("GET", f"{V}/crmarena/clock", admin).json()["today"] for _ in range(6)} == {"2023-05-15"}


def test_pages_of_one_query_come_from_either_worker(served: Workers) -> None:
    token = served.admin()
    paged = {"Sforce-Query-Options": "batchSize=200"}
    page = served.call(
        "GET", f"{V}/query", token, params={"q": "SELECT Id FROM Product2 ORDER BY Id"}, headers=paged
    ).json()
    ids = [row["Id"] for row in page["records"]]
    while not page["done"]:
        page = served.call("GET", page["nextRecordsUrl"], token).json()
        ids += [row["Id"] for row in page["records"]]
    assert len(ids) == len(set(ids)) == PRODUCTS == page["totalSize"]


def test_bulk_jobs_made_on_one_worker_are_polled_on_others(served: Workers) -> None:
    token = served.admin()
    job = served.call(
        "POST", f"{V}/jobs/query", token, json={"operation": "query", "query": "SELECT Id FROM Product2"}
    ).json()
    states = {served.call("GET", f"{V}/jobs/query/{job['id']}", token).json()["state"] for _ in range(8)}
    assert states == {"JobComplete"}
    results = served.call("GET", f"{V}/jobs/query/{job['id']}/results", token)
    assert results.status_code == 200 and len(results.text.strip().splitlines()) == PRODUCTS + 1

    ingest = served.call("POST", f"{V}/jobs/ingest", token, json={"object": "Issue__c", "operation": "insert"}).json()
    upload = served.call(
        "PUT",
        f"{V}/jobs/ingest/{ingest['id']}/batches",
        token,
        data="Name\nbulk-one\nbulk-two\n",
        headers={"Content-Type": "text/csv"},
    )
    assert upload.status_code == 201, upload.text
    closed = served.call("PATCH", f"{V}/jobs/ingest/{ingest['id']}", token, json={"state": "UploadComplete"})
    assert closed.ok, closed.text
    polled = [served.call("GET", f"{V}/jobs/ingest/{ingest['id']}", token).json() for _ in range(8)]
    assert {(info["state"], info["numberRecordsProcessed"]) for info in polled} == {("JobComplete", 2)}
    listed = {served.call("GET", f"{V}/jobs/ingest", token).status_code for _ in range(4)}
    assert listed == {200}
    assert job["id"] != ingest["id"]  # one Id sequence for both workers' jobs


def test_a_record_written_on_one_worker_is_found_by_search_on_every_worker(served: Workers) -> None:
    token = served.admin()
    created = served.call("POST", f"{V}/sobjects/Issue__c", token, json={"Name": "Zanzibarworkers"})
    assert created.status_code == 201, created.text
    search = {"q": "FIND {Zanzibarworkers} RETURNING Issue__c(Id)"}
    found = [served.call("GET", f"{V}/search", token, params=search).json() for _ in range(8)]
    assert all([row["Id"] for row in answer["searchRecords"]] == [created.json()["id"]] for answer in found)


def test_the_api_request_count_is_one_for_both_workers(served: Workers) -> None:
    token = served.admin()

    def remaining() -> int:
        return int(served.call("GET", f"{V}/limits", token).json()["DailyApiRequests"]["Remaining"])

    first = remaining()
    for _ in range(10):
        assert served.call("GET", f"{V}/limits", token).ok
    assert first - remaining() == 11  # the ten and the last look itself, whichever worker counted them


def test_a_worker_that_dies_stops_the_server_and_leaves_no_orphan(org_dump: Path, tls_files: tls.TlsFiles) -> None:
    process = crmarena(
        "serve", "--db", str(org_dump), "--copy", "--port", "0", "--workers", "2", "--tls-dir", str(tls_files.directory)
    )
    try:
        port, _, _ = started(process)
        pids = Workers(process, port, {"REQUESTS_CA_BUNDLE": ""}).worker_pids()
        assert len(pids) == 2
        os.kill(pids[0], signal.SIGKILL)
        assert process.wait(timeout=60) == 5
        assert "worker 1 stopped" in (process.stderr.read() if process.stderr else "")
        assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]  # the parent reaped both
    finally:
        if process.poll() is None:
            stop(process)

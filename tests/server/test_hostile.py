"""The server under hostile and clumsy clients: no query freezes it, no slow or silent client takes a
port down, no user takes over the administrator, cursors do not hoard memory, and every limit a
query or body reaches answers a Salesforce error with 400, never a 500."""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, default_password, default_security_token
from mock_org.org import Org
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org
from tests.mock_org.builder import ADMIN, rid

from .conftest import ADMIN_PROFILE, Client, assert_error

V = "/services/data/v59.0"
AGENT = "mohammad.aziz@example.com"
AGENT_ID = rid("005", 2)
AGENT_PROFILE = rid("00e", 1)
CHEAP = "SELECT Name FROM Organization"


def login(running: RunningOrg, username: str) -> str:
    form = {
        "grant_type": "password",
        "client_id": DEFAULT_CLIENT_ID,
        "client_secret": DEFAULT_CLIENT_SECRET,
        "username": username,
        "password": default_password(username) + default_security_token(username),
    }
    answer = requests.post(f"{running.url}/services/oauth2/token", data=form, verify=str(running.ca_bundle), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["access_token"]


def session_of(running: RunningOrg, token: str) -> requests.Session:
    session = requests.Session()
    session.trust_env = False
    session.verify = str(running.ca_bundle)
    session.headers["Authorization"] = f"Bearer {token}"
    return session


def timed_query(
    running: RunningOrg, token: str, soql: str, timeout: float, session: requests.Session | None = None
) -> tuple[float, requests.Response]:
    """How long a query over HTTPS took, on a connection already open when ``session`` is given."""
    session = session or session_of(running, token)
    start = time.monotonic()
    answer = session.get(f"{running.url}{V}/query", params={"q": soql}, timeout=timeout)
    return time.monotonic() - start, answer


@pytest.fixture
def private(org_dump: Path, tls_files: tls.TlsFiles) -> Iterator[RunningOrg]:
    """A server of its own, for tests that change users or need a short query deadline."""
    with serve_org(org_dump, today="2023-05-15", tls_files=tls_files, http_port=0, query_timeout=2.0) as served:
        yield served


# ----------------------------------------------------------------------------- 1. no query freezes the server


def test_a_backtracking_like_neither_freezes_the_server_nor_runs_long(private: RunningOrg) -> None:
    """``%%%…qqq`` backtracked exponentially in a regular expression while holding the GIL."""
    token = login(private, private.username)
    name = "a" * 79
    headers = {"Authorization": f"Bearer {token}"}
    created = requests.post(
        f"{private.url}{V}/sobjects/Issue__c",
        json={"Name": name},
        headers=headers,
        verify=str(private.ca_bundle),
        timeout=10,
    )
    assert created.status_code == 201, created.text
    results: dict[str, object] = {}

    def hostile() -> None:
        results["hostile"] = timed_query(
            private, token, "SELECT COUNT() FROM Issue__c WHERE Name LIKE '%%%%%%%%%%%%qqq'", 30
        )

    warm = session_of(private, token)
    timed_query(private, token, CHEAP, 5, warm)
    thread = threading.Thread(target=hostile)
    thread.start()
    time.sleep(0.3)
    elapsed, cheap = timed_query(private, token, CHEAP, 5, warm)
    thread.join(timeout=30)
    assert cheap.status_code == 200 and elapsed < 1.0, elapsed
    hostile_elapsed, answer = results["hostile"]  # type: ignore[misc]
    assert answer.status_code == 200 and answer.json()["totalSize"] == 0 and hostile_elapsed < 2.0
    matching = timed_query(private, token, f"SELECT Id FROM Issue__c WHERE Name LIKE '%%a%%{'_' * 70}%a'", 10)[1]
    assert matching.json()["totalSize"] == 1  # the pattern still means what it says


def test_a_query_past_its_deadline_answers_query_timeout(org_dump: Path) -> None:
    """The deadline is enforced inside SQLite: a statement is cut off, and the org says QUERY_TIMEOUT."""
    org = Org(org_dump, read_only=True, query_timeout=0.0)
    try:
        for soql in (
            "SELECT Id FROM Product2 WHERE Name LIKE '%Item%'",  # a Python function checks the deadline
            "SELECT Id, Name FROM Product2 WHERE Name != 'x' AND External_ID__c != 'y' AND IsActive = true "
            "ORDER BY CreatedDate DESC, Id",  # SQLite's progress handler does
        ):
            with pytest.raises(Exception) as raised:
                org.query(soql)
            assert raised.value.error_code == "QUERY_TIMEOUT"  # type: ignore[attr-defined]
            assert raised.value.message == "Your query request was running for too long."  # type: ignore[attr-defined]
    finally:
        org.close()


def test_the_query_of_a_client_that_left_is_abandoned(org_dump: Path) -> None:
    """The front marks a request whose client hung up (http/front.py); its query then stops inside SQLite."""
    from mock_org import deadline

    org = Org(org_dump, read_only=True, query_timeout=None)
    try:
        with deadline.abandoned_when(lambda: True), pytest.raises(Exception) as raised:
            org.query("SELECT Id FROM Product2 WHERE Name LIKE '%Item%'")
        assert raised.value.error_code == "QUERY_TIMEOUT"  # type: ignore[attr-defined]
        assert org.query("SELECT COUNT() FROM Product2 WHERE Name LIKE '%Item%'")["totalSize"] == 650
    finally:
        org.close()


def test_like_keeps_salesforce_semantics() -> None:
    from mock_org import wildcards

    def like(pattern: str, text: str) -> bool:
        items = [
            (wildcards.ANY_RUN, True) if c == "%" else (wildcards.ANY_ONE, True) if c == "_" else (c, False)
            for c in pattern
        ]
        return wildcards.decode(wildcards.Pattern.of(items).encode()).matches(text)

    assert like("%", "") and like("a%", "abc") and like("%c", "abc") and like("%b%", "abc") and like("a_c", "abc")
    assert not like("a_c", "ac") and not like("ab%bc", "abc") and like("ab%bc", "abbc") and like("%a%a%", "aa")
    assert like("_%_", "ab") and not like("_%_", "a") and like("%a_b%", "xxaxbyy") and not like("%a_b%", "xxabyy")
    started = time.monotonic()
    assert not like("%" * 50 + "q" * 3, "a" * 100_000) and not like("%a_a_a_a_a_b%", "a" * 100_000)
    assert time.monotonic() - started < 2.0


# ----------------------------------------------------------------------------- 2. no takeover


def test_an_agent_cannot_take_over_the_administrator(private: RunningOrg) -> None:
    session = session_of(private, login(private, AGENT))
    url = private.url + V

    def refused(answer: requests.Response) -> None:
        assert answer.status_code == 403, answer.text
        assert answer.json()[0]["errorCode"] == "INSUFFICIENT_ACCESS_OR_READONLY"

    refused(session.patch(f"{url}/sobjects/User/{ADMIN}", json={"IsActive": False}))
    refused(session.patch(f"{url}/sobjects/User/{AGENT_ID}", json={"ProfileId": ADMIN_PROFILE}))
    refused(session.patch(f"{url}/sobjects/Profile/{AGENT_PROFILE}", json={"Name": "System Administrator"}))
    refused(session.post(f"{url}/sobjects/User", json={"Username": "evil@example.com", "LastName": "Evil"}))
    refused(session.delete(f"{url}/sobjects/User/{ADMIN}"))
    assert session.patch(f"{url}/sobjects/User/{AGENT_ID}", json={"Title": "Senior Agent"}).status_code == 204
    collection = session.patch(
        f"{url}/composite/sobjects",
        json={"records": [{"attributes": {"type": "User"}, "Id": ADMIN, "IsActive": False}]},
    )
    assert collection.json()[0]["errors"][0]["statusCode"] == "INSUFFICIENT_ACCESS_OR_READONLY"
    composite = session.post(
        f"{url}/composite",
        json={
            "compositeRequest": [
                {
                    "method": "PATCH",
                    "url": f"{V}/sobjects/User/{ADMIN}",
                    "referenceId": "x",
                    "body": {"IsActive": False},
                },
                {"method": "DELETE", "url": f"{V}/sobjects/User/{ADMIN}/password", "referenceId": "y"},
            ]
        },
    )
    assert [sub["httpStatusCode"] for sub in composite.json()["compositeResponse"]] == [403, 403]
    tree = session.post(
        f"{url}/composite/tree/User",
        json={
            "records": [
                {"attributes": {"type": "User", "referenceId": "u"}, "Username": "evil2@example.com", "LastName": "E"}
            ]
        },
    )
    assert tree.status_code == 400 and tree.json()["results"][0]["errors"][0]["statusCode"] == (
        "INSUFFICIENT_ACCESS_OR_READONLY"
    )
    job = session.post(f"{url}/jobs/ingest", json={"object": "User", "operation": "update"}).json()
    csv = f"Id,IsActive\n{ADMIN},false\n"
    session.put(f"{url}/jobs/ingest/{job['id']}/batches", data=csv, headers={"Content-Type": "text/csv"})
    session.patch(f"{url}/jobs/ingest/{job['id']}", json={"state": "UploadComplete"})
    failed = session.get(f"{url}/jobs/ingest/{job['id']}/failedResults").text
    assert "INSUFFICIENT_ACCESS_OR_READONLY" in failed
    upsert = session.patch(f"{url}/sobjects/User/Id/{ADMIN}", json={"IsActive": False})
    refused(upsert)
    assert_error_status = session.post(f"{url}/sobjects/User/{ADMIN}/password", json={"NewPassword": "Takeover123"})
    assert assert_error_status.status_code == 403
    admin = Client("https", private)
    user = admin.get(f"{V}/sobjects/User/{ADMIN}").json()
    assert user["IsActive"] is True and user["ProfileId"] == ADMIN_PROFILE
    # The administrator deactivates the agent: its open session ends at once.
    assert admin.patch(f"{V}/sobjects/User/{AGENT_ID}", json_body={"IsActive": False}).status == 204
    assert session.get(f"{url}/limits").status_code == 401


def test_a_read_only_org_refuses_password_set_and_reset(read_only_app) -> None:  # type: ignore[no-untyped-def]
    web, token = read_only_app
    headers = {"Authorization": f"Bearer {token}"}
    path = f"{V}/sobjects/User/{rid('005', 1)}/password"
    for method, body in (("POST", {"NewPassword": "Locked0ut99"}), ("DELETE", None)):
        answer = web.open(path, method=method, json=body, headers=headers)
        assert answer.status_code == 403 and answer.get_json()[0]["errorCode"] == "INSUFFICIENT_ACCESS_OR_READONLY"
    composite = web.post(
        f"{V}/composite",
        headers=headers,
        json={"compositeRequest": [{"method": "DELETE", "url": path, "referenceId": "reset"}]},
    )
    assert composite.get_json()["compositeResponse"][0]["httpStatusCode"] == 403
    assert web.get(path, headers=headers).status_code == 200  # reading the expiry is not a write


def test_login_lockout_after_ten_failures(private: RunningOrg) -> None:
    username = "sofia.kouris@example.com"
    form = {
        "grant_type": "password",
        "client_id": DEFAULT_CLIENT_ID,
        "client_secret": DEFAULT_CLIENT_SECRET,
        "username": username,
    }
    url, verify = f"{private.url}/services/oauth2/token", str(private.ca_bundle)
    for _ in range(10):
        assert requests.post(url, data={**form, "password": "wrong"}, verify=verify, timeout=10).status_code == 400
    right = {**form, "password": default_password(username) + default_security_token(username)}
    locked = requests.post(url, data=right, verify=verify, timeout=10)
    assert locked.status_code == 400 and locked.json()["error"] == "invalid_grant"


def test_lockout_lasts_fifteen_minutes(org_dump: Path) -> None:
    from mock_org.auth import AuthConfig, Authenticator, InvalidLogin

    org = Org(org_dump, read_only=True)
    clock = [0.0]
    auth = Authenticator(org.storage, AuthConfig(), now=lambda: clock[0])
    username = "sofia.kouris@example.com"
    right = default_password(username)
    try:
        for _ in range(9):
            with pytest.raises(InvalidLogin):
                auth.authenticate(username, "wrong")
        assert auth.authenticate(username, right).username == username  # a success resets the count
        for _ in range(10):
            with pytest.raises(InvalidLogin):
                auth.authenticate(username, "wrong")
        with pytest.raises(InvalidLogin):
            auth.authenticate(username, right)
        clock[0] += 15 * 60
        assert auth.authenticate(username, right).username == username
    finally:
        org.close()


# ----------------------------------------------------------------------------- 3-4. slow and silent clients


def test_slow_http_and_silent_tls_clients_do_not_stop_the_server(running: RunningOrg) -> None:
    """24 clients trickling request headers on the HTTP port and 4 that open TLS connections and say
    nothing: cheap queries on both ports still answer at once."""
    token = Client("https", running).token
    warm = session_of(running, token)
    timed_query(running, token, CHEAP, 5, warm)
    slow = [socket.create_connection(("127.0.0.1", running.server.http_port)) for _ in range(24)]
    silent = [socket.create_connection(("127.0.0.1", running.server.port)) for _ in range(4)]
    try:
        for sock in slow:
            sock.sendall(b"GET /services/data HTTP/1.1\r\nHost: x\r\n")
        for _ in range(3):
            time.sleep(0.5)
            for sock in slow:
                sock.sendall(b"X-Slow: 1\r\n")
            elapsed, answer = timed_query(running, token, CHEAP, 5, warm)
            assert answer.status_code == 200 and elapsed < 1.0, elapsed
            assert timed_query(running, token, CHEAP, 5)[1].status_code == 200  # a new TLS connection too
            started = time.monotonic()
            plain = requests.get(f"http://127.0.0.1:{running.server.http_port}/services/data", timeout=5)
            assert plain.status_code == 200 and time.monotonic() - started < 1.0
    finally:
        for sock in slow + silent:
            sock.close()


def test_a_connection_that_never_sends_a_request_is_closed(running: RunningOrg) -> None:
    sock = socket.create_connection(("127.0.0.1", running.server.http_port))
    sock.settimeout(30)
    try:
        started = time.monotonic()
        assert sock.recv(1) == b""
        assert time.monotonic() - started < 20
    finally:
        sock.close()


def test_logins_take_at_most_one_megabyte(client: Client) -> None:
    big = b"grant_type=password&username=" + b"x" * (2 * 1024 * 1024)
    answer = client.post(
        "/services/oauth2/token", token=None, data=big, headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert_error(answer, 413, "REQUEST_ENTITY_TOO_LARGE")
    unauthenticated = client.post(f"{V}/sobjects/Account", token="nope", data=b"{" * (2 * 1024 * 1024))
    assert unauthenticated.status in (401, 413)


# ----------------------------------------------------------------------------- 5. cursors


def test_cursors_keep_no_records_and_a_user_has_ten(org_dump: Path) -> None:
    org = Org(org_dump, read_only=True)
    soql = "SELECT Id, Name, Description, External_ID__c, IsActive FROM Product2"
    try:
        org.query(soql, batch_size=200, user_id=ADMIN)  # warm the plan cache
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        pages = [org.query(soql, batch_size=200, user_id=ADMIN) for _ in range(10)]
        del pages
        per_cursor = (tracemalloc.get_traced_memory()[0] - before) / 10
        tracemalloc.stop()
        assert per_cursor < 20_000, per_cursor  # the 452 records not yet sent are not kept
        first = org.query(soql, batch_size=200, user_id=ADMIN)
        locator = first["nextRecordsUrl"].rsplit("/", 1)[1]
        with pytest.raises(Exception) as foreign:
            org.query_more(locator, user_id=AGENT_ID)
        assert foreign.value.error_code == "INVALID_QUERY_LOCATOR"  # type: ignore[attr-defined]
        others = [org.query(soql, batch_size=200, user_id=AGENT_ID) for _ in range(10)]
        assert org.query_more(locator, user_id=ADMIN)["records"]  # another user's cursors do not count
        for _ in range(10):
            org.query(soql, batch_size=200, user_id=ADMIN)
        with pytest.raises(Exception) as expired:
            org.query_more(locator, user_id=ADMIN)
        assert expired.value.error_code == "INVALID_QUERY_LOCATOR"  # type: ignore[attr-defined]
        assert org.query_more(others[-1]["nextRecordsUrl"].rsplit("/", 1)[1], user_id=AGENT_ID)["records"]
    finally:
        org.close()


def test_pages_are_the_slices_of_one_result(org_dump: Path) -> None:
    org = Org(org_dump, read_only=True)
    try:
        for soql in ("SELECT Id FROM Product2 ORDER BY Name DESC", "SELECT Id FROM Product2 LIMIT 450 OFFSET 7"):
            whole = [r["Id"] for r in org.query(soql, batch_size=2000)["records"]]
            page = org.query(soql, batch_size=200)
            paged = [r["Id"] for r in page["records"]]
            while not page["done"]:
                page = org.query_more(page["nextRecordsUrl"].rsplit("/", 1)[1])
                paged += [r["Id"] for r in page["records"]]
            assert paged == whole and page["totalSize"] == len(whole)
    finally:
        org.close()


# ----------------------------------------------------------------------------- 7. limits answer 400

HUGE_QUERIES = [
    "SELECT Id FROM Account WHERE " + " OR ".join(f"Name = 'x{i}'" for i in range(1000)),
    "SELECT Id FROM Account WHERE " + " AND ".join(f"Name != 'x{i}'" for i in range(1000)),
    "SELECT Id FROM Account WHERE " + "NOT (" * 29 + "Name = 'x'" + ")" * 29,
    "SELECT Id FROM Account WHERE " + "NOT (" * 400 + "Name = 'x'" + ")" * 400,
    "SELECT Id FROM Account LIMIT 9223372036854775808",
    "SELECT Id FROM Account LIMIT 9223372036854775807",
    "SELECT Id, (SELECT Id FROM Contacts LIMIT 9223372036854775808) FROM Account",
    "SELECT Id FROM PricebookEntry WHERE UnitPrice > 9223372036854775808",
    "SELECT Id FROM PricebookEntry WHERE UnitPrice > " + "9" * 309,
    "SELECT Id FROM PricebookEntry WHERE UnitPrice > USD" + "9" * 309,
    "SELECT Id FROM Account WHERE CreatedDate = LAST_N_YEARS:3000",
    "SELECT Id FROM Account WHERE CreatedDate = LAST_N_DAYS:738655",
    "SELECT Id FROM Account WHERE CreatedDate = N_DAYS_AGO:99999999999",
    "SELECT Id FROM Account WHERE CALENDAR_YEAR(CreatedDate) = 99999999999999999999",
    "SELECT Id FROM PricebookEntry WHERE UnitPrice IN (" + ",".join("7" for _ in range(49_000)) + ")",
]


@pytest.mark.parametrize("soql", HUGE_QUERIES, ids=range(len(HUGE_QUERIES)))
def test_query_limits_answer_400(client: Client, soql: str) -> None:
    answer = client.get(f"{V}/query", params={"q": soql})
    assert answer.status in (200, 400), answer.text
    if answer.status == 400:
        assert answer.json()[0]["errorCode"] in (
            "MALFORMED_QUERY",
            "NUMBER_OUTSIDE_VALID_RANGE",
            "QUERY_TOO_COMPLICATED",
        )


def test_an_in_list_costs_linear_time(client: Client) -> None:
    timings = []
    for size in (5_000, 40_000):
        values = ",".join("7" for _ in range(size))  # 40,000 values fit in the 100,000 characters
        started = time.monotonic()
        answer = client.get(f"{V}/query", params={"q": f"SELECT Id FROM PricebookEntry WHERE UnitPrice IN ({values})"})
        timings.append(time.monotonic() - started)
        assert answer.status == 200, answer.text
    # Linear: 8× the values cost about 8× (quadratic would be 64×); an absolute floor keeps a fast
    # machine's tiny first timing from making the ratio noisy, and a loaded one's from failing it.
    assert timings[1] < max(3.0, 25 * timings[0]), timings


@pytest.mark.parametrize("operator", ["OR", "AND"])
def test_long_sosl_chains_answer(client: Client, operator: str) -> None:
    sosl = "FIND {" + f" {operator} ".join(f"word{i}" for i in range(965)) + "}"
    assert client.get(f"{V}/search", params={"q": sosl}).status == 200
    longest = "FIND {" + " OR ".join("ab" for _ in range(2_500)) + "} RETURNING Account"
    assert client.get(f"{V}/search", params={"q": longest}).json() == {"searchRecords": []}  # over 10,000 characters


def deep(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


DEEP_BODIES = [
    ("POST", f"{V}/sobjects/Account"),
    ("PATCH", f"{V}/sobjects/Account/{rid('001', 1)}"),
    ("PATCH", f"{V}/sobjects/Product2/External_ID__c/Deep"),
    ("POST", f"{V}/composite"),
    ("POST", f"{V}/composite/sobjects"),
    ("POST", f"{V}/composite/tree/Account"),
    ("POST", f"{V}/jobs/ingest"),
]


@pytest.mark.parametrize(("method", "path"), DEEP_BODIES)
@pytest.mark.parametrize("levels", [150, 5_000, 100_000])
def test_deeply_nested_json_answers_400(client: Client, method: str, path: str, levels: int) -> None:
    answer = client.call(method, path, data=deep(levels), headers={"Content-Type": "application/json"})
    error = assert_error(answer, 400, "JSON_PARSER_ERROR")
    assert "nesting depth" in error["message"]
    json.loads(answer.text)

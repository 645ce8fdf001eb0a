"""The mock-only clock resource: each session can have its own "today", and concurrent sessions with
different days never see each other's (the harness gives every benchmark instance its own date)."""

from __future__ import annotations

import threading

from mock_org.server.serve import RunningOrg
from tests.mock_org.conftest import CASES

from .conftest import Client, assert_error

CLOCK = "/services/data/v59.0/crmarena/clock"
# The tiny org's cases were created 2022-06-01 … 2023-05-15 (see tests/mock_org/conftest.py).
RECENT = "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:10 ORDER BY Id"


def ids(client: Client, soql: str = RECENT) -> list[str]:
    answer = client.get("/services/data/v59.0/query/", params={"q": soql})
    assert answer.status == 200, answer.text
    return [record["Id"] for record in answer.json()["records"]]


def test_a_session_follows_the_day_it_set(client: Client) -> None:
    assert client.get(CLOCK).json() == {
        "today": "2023-05-15",
        "timezone": "America/Los_Angeles",
        "now": "2023-05-15T19:00:00+00:00",
        "session": False,
    }
    org_day = ids(client)
    answer = client.call("PUT", CLOCK, json_body={"today": "2023-01-15"})
    assert answer.status == 200 and answer.json()["today"] == "2023-01-15" and answer.json()["session"] is True
    assert ids(client) == [CASES[0]] != org_day  # created 2023-01-12
    search = client.get(
        "/services/data/v59.0/search/",
        params={"q": "FIND {size} RETURNING Case(Id WHERE CreatedDate = LAST_N_DAYS:10)"},
    )
    assert [record["Id"] for record in search.json()["searchRecords"]] == [CASES[0]]
    assert client.call("DELETE", CLOCK).status == 204
    assert ids(client) == org_day


def test_sessions_keep_their_own_days_side_by_side(running: RunningOrg) -> None:
    days = {"2023-01-15": [CASES[0]], "2023-03-10": [CASES[1], CASES[2]], "2022-06-05": [CASES[6]]}
    clients = {day: Client("https", running) for day in days}
    for day, client in clients.items():
        assert client.call("PUT", CLOCK, json_body={"today": day}).status == 200
    seen: list[tuple[str, list[str]]] = []
    barrier = threading.Barrier(len(days))

    def ask(day: str) -> None:
        barrier.wait()
        for _ in range(15):
            seen.append((day, ids(clients[day])))

    threads = [threading.Thread(target=ask, args=(day,)) for day in days]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 45 and all(found == days[day] for day, found in seen)


def test_the_time_zone_decides_the_local_day(client: Client) -> None:
    # Case 5 was created 2023-05-15T06:00Z: that day in UTC, but 23:00 on 2023-05-14 in Los Angeles.
    answer = client.call("PUT", CLOCK, json_body={"today": "2023-05-15", "timezone": "UTC"})
    assert answer.json()["timezone"] == "UTC"
    assert CASES[4] in ids(client, "SELECT Id FROM Case WHERE CreatedDate = TODAY")
    client.call("PUT", CLOCK, json_body={"today": "2023-05-15"})
    assert CASES[4] not in ids(client, "SELECT Id FROM Case WHERE CreatedDate = TODAY")
    assert CASES[4] in ids(client, "SELECT Id FROM Case WHERE CreatedDate = YESTERDAY")


def test_bad_clocks_are_refused_with_a_salesforce_error(client: Client) -> None:
    for body in ({"today": "2023-13-45"}, {"today": 20230115}, {}, {"today": "2023-01-15", "timezone": "Mars/Base"}):
        assert_error(client.call("PUT", CLOCK, json_body=body), 400, "JSON_PARSER_ERROR")
    assert_error(
        client.call("PUT", CLOCK, data=b"not json", headers={"Content-Type": "application/json"}),
        400,
        "JSON_PARSER_ERROR",
    )
    assert_error(client.get(CLOCK, token="not-a-session"), 401, "INVALID_SESSION_ID")
    assert client.get(CLOCK).json()["session"] is False

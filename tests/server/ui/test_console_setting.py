"""The two things the browser lane asks of the pages: ``--ui-console off`` takes the query console and its
link away, and ``frontdoor.jsp`` carries the API session's "today" (the mock-only clock) into the UI session."""

from __future__ import annotations

from mock_org.org import Org
from mock_org.server.app import create_app
from mock_org.server.serve import RunningOrg
from mock_org.server.settings import Settings

from .pages import log_in


def test_the_console_and_its_link_are_gone_when_it_is_off(running: RunningOrg) -> None:
    org = Org(running.org.storage.path, clock=running.org.clock, read_only=True)
    try:
        client = create_app(org, Settings(ui_console=False)).test_client()
        log_in(client, running.username, running.password)
        home = client.get("/lightning/page/home").get_data(as_text=True)
        assert "Query Console" not in home and "/lightning/setup/query" not in home
        assert client.get("/lightning/setup/query").status_code == 404
        assert client.post("/lightning/setup/query", data={"q": "SELECT Id FROM Case"}).status_code in (403, 404)
    finally:
        org.close()


def test_the_console_is_there_by_default(ui) -> None:  # type: ignore[no-untyped-def]
    assert "Query Console" in ui.get("/lightning/page/home").get_data(as_text=True)
    assert ui.get("/lightning/setup/query").status_code == 200


def test_frontdoor_carries_the_api_sessions_today(running: RunningOrg) -> None:
    sf = running.connect()
    sf.restful("crmarena/clock", method="PUT", json={"today": "2023-01-12"})
    client = running.app.test_client()
    client.get(f"/secur/frontdoor.jsp?sid={sf.session_id}&retURL=/lightning/page/home")
    session = running.app.extensions["crmarena"].auth.verify(client.get_cookie("sid").value)
    assert session.clock is not None and session.clock.today().isoformat() == "2023-01-12"
    today = "/lightning/o/Case/list?field=CreatedDate&op=equals&value=TODAY"
    assert "Wrong size" in client.get(today).get_data(as_text=True)  # the case created on 2023-01-12
    other = running.app.test_client()  # a session without a clock of its own: the org's 2023-05-15
    other.get(f"/secur/frontdoor.jsp?sid={running.connect().session_id}&retURL=/lightning/page/home")
    assert "Wrong size" not in other.get(today).get_data(as_text=True)

"""The UI's security: no page without a session, no POST without its CSRF token, record text that
stays text, session cookies that only their own server copy honours, no open redirect."""

from __future__ import annotations

import re

import pytest
import requests
from flask.testing import FlaskClient

from mock_org.server.serve import RunningOrg
from tests.mock_org.conftest import ACCOUNTS, CASES

from .pages import form_token, log_in

VALUES = {"sobject": "Case", "record_id": CASES[0], "relationship": "CaseHistories__r", "rest": "nowhere"}
PUBLIC = {"ui.login", "ui.frontdoor", "ui.logout", "ui.static"}
XSS = '<script>alert("owned")</script><img src=x onerror=alert(1)>'


def ui_pages(running: RunningOrg) -> list[tuple[str, str]]:
    """Every UI URL rule with its parameters filled in, and its endpoint."""
    found = []
    for rule in running.app.url_map.iter_rules():
        if rule.endpoint.startswith("ui.") and rule.endpoint not in PUBLIC:
            path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", lambda match: VALUES[match.group(1)], rule.rule)
            found.append((path, rule.endpoint))
    return sorted(found)


def test_every_page_needs_a_session(running: RunningOrg) -> None:
    pages = ui_pages(running)
    assert len(pages) >= 12
    client = running.app.test_client()
    for path, _ in pages:
        for method in ("GET", "POST"):
            answer = client.open(path, method=method)
            assert answer.status_code == 302, (method, path)
            assert answer.headers["Location"].startswith("/?startURL="), path
            assert b"<table" not in answer.data


def test_an_api_token_is_no_ui_session(running: RunningOrg) -> None:
    client = running.app.test_client()
    token = running.app.extensions["crmarena"].auth.issue(running.app.extensions["crmarena"].auth.admin)
    answer = client.get("/lightning/o/Case/list", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 302


def test_posts_without_the_csrf_token_are_refused(ui: FlaskClient) -> None:
    for path, data in [
        ("/lightning/setup/query", {"q": "SELECT Id FROM Account"}),
        (f"/lightning/r/Account/{ACCOUNTS[0]}/edit", {"Name": "Hijacked"}),
        (f"/lightning/r/Account/{ACCOUNTS[0]}/delete", {}),
        ("/lightning/o/Account/new", {"Name": "Forged"}),
        ("/secur/logout.jsp", {}),
    ]:
        for token in (None, "0" * 64, form_token(ui, "/lightning/setup/query")[:-1] + "x"):
            sent = dict(data) | ({"csrf_token": token} if token else {})
            answer = ui.post(path, data=sent)
            assert answer.status_code == 403, path
            assert "This form has expired or did not come from this org" in answer.get_data(as_text=True)
    account = ui.get(f"/lightning/r/Account/{ACCOUNTS[0]}/view").get_data(as_text=True)
    assert "Hijacked" not in account
    assert ui.get("/lightning/page/home").status_code == 200  # the forged logout did not log out


def test_the_login_form_has_its_own_token(running: RunningOrg) -> None:
    client = running.app.test_client()
    answer = client.post("/", data={"username": running.username, "password": running.password})
    assert answer.status_code == 403 and client.get_cookie("sid") is None
    other = running.app.test_client()
    stolen = form_token(other, "/")  # a token bound to another browser's nonce cookie
    answer = client.post("/", data={"csrf_token": stolen, "username": running.username, "password": running.password})
    assert answer.status_code == 403 and client.get_cookie("sid") is None


def test_wrong_passwords_are_refused_with_the_apis_message(running: RunningOrg) -> None:
    client = running.app.test_client()
    answer = client.post(
        "/", data={"csrf_token": form_token(client, "/"), "username": running.username, "password": "wrong"}
    )
    assert answer.status_code == 401 and client.get_cookie("sid") is None
    assert "Invalid username, password, security token; or user locked out." in answer.get_data(as_text=True)


def test_a_stored_xss_payload_renders_inert(running: RunningOrg, ui: FlaskClient) -> None:
    admin = running.app.extensions["crmarena"].auth.admin
    case_id = running.org.create("Case", {"Subject": XSS, "Description": XSS, "Status": "New"}, user_id=admin.id)
    pages = [
        f"/lightning/r/Case/{case_id}/view",
        f"/lightning/o/Case/list?field=Id&op=equals&value={case_id}",
        f"/lightning/r/Case/{case_id}/edit",
        "/lightning/search?q=owned",
    ]
    for path in pages:
        answer = ui.get(path)
        text = answer.get_data(as_text=True)
        assert answer.status_code == 200, path
        assert "<script>alert" not in text and "<img src=x" not in text, path
        assert "&lt;script&gt;alert(" in text, path
        assert answer.headers["Content-Security-Policy"].startswith("default-src 'self'; script-src 'self'")
    console = ui.post(
        "/lightning/setup/query",
        data={
            "csrf_token": form_token(ui, "/lightning/setup/query"),
            "q": f"SELECT Subject FROM Case WHERE Id = '{case_id}'",
        },
    )
    assert "<script>alert" not in console.get_data(as_text=True)


def test_a_cookie_from_another_server_copy_is_refused(running: RunningOrg, read_only_ui: FlaskClient) -> None:
    """Each copy has its own sessions and its own CSRF key: neither the cookie nor a token crosses over."""
    theirs = read_only_ui.get_cookie("sid").value
    ours = running.app.test_client()
    ours.set_cookie("sid", theirs)
    answer = ours.get("/lightning/o/Case/list")
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/?startURL=")
    log_in(ours, running.username, running.password)
    token = form_token(read_only_ui, "/lightning/setup/query")
    answer = ours.post("/lightning/setup/query", data={"csrf_token": token, "q": "SELECT Id FROM Account"})
    assert answer.status_code == 403


def test_logging_out_revokes_the_session(running: RunningOrg) -> None:
    client = running.app.test_client()
    log_in(client, running.username, running.password)
    cookie = client.get_cookie("sid").value
    answer = client.post("/secur/logout.jsp", data={"csrf_token": form_token(client, "/lightning/page/home")})
    assert answer.status_code == 302 and client.get_cookie("sid") is None
    replay = running.app.test_client()
    replay.set_cookie("sid", cookie)
    assert replay.get("/lightning/page/home").status_code == 302
    with pytest.raises(Exception, match="Session expired or invalid"):
        running.app.extensions["crmarena"].auth.verify(cookie)


def test_frontdoor_turns_an_api_session_into_a_ui_session(running: RunningOrg) -> None:
    sf = running.connect()
    client = running.app.test_client()
    answer = client.get(f"/secur/frontdoor.jsp?sid={sf.session_id}&retURL=/lightning/o/Account/list")
    assert answer.status_code == 302 and answer.headers["Location"] == "/lightning/o/Account/list"
    cookie = client.get_cookie("sid")
    assert cookie.value != sf.session_id and cookie.http_only and cookie.same_site == "Lax"
    assert client.get("/lightning/o/Account/list").status_code == 200
    client.post("/secur/logout.jsp", data={"csrf_token": form_token(client, "/lightning/page/home")})
    assert sf.query("SELECT COUNT() FROM Account")["totalSize"] >= 4  # the API session lives on
    refused = running.app.test_client().get("/secur/frontdoor.jsp?sid=00D000000000000!AQbogus")
    assert refused.status_code == 401 and b"Your session has expired or is invalid" in refused.data


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example", "/\t/evil.example", "javascript:alert(1)"]
)
def test_no_open_redirect_after_login(running: RunningOrg, target: str) -> None:
    sf = running.connect()
    answer = running.app.test_client().get(
        "/secur/frontdoor.jsp", query_string={"sid": sf.session_id, "retURL": target}
    )
    assert answer.headers["Location"] == "/lightning/page/home"


def test_the_cookie_is_secure_over_https(running: RunningOrg) -> None:
    session = requests.Session()
    session.trust_env = False
    session.verify = str(running.ca_bundle)
    page = session.get(running.url + "/")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    answer = session.post(
        running.url + "/",
        data={"csrf_token": token, "username": running.username, "password": running.password},
        allow_redirects=False,
    )
    cookie = answer.headers["Set-Cookie"]
    assert answer.status_code == 302 and cookie.startswith("sid=")
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert session.get(running.url + "/lightning/page/home", allow_redirects=False).status_code == 200
    plain = requests.post(running.http_url + "/", data={"csrf_token": "x"}, allow_redirects=False)
    assert plain.status_code == 403


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_no_page_is_a_server_fault_whatever_it_is_sent(running: RunningOrg, ui: FlaskClient, method: str) -> None:
    odd = [
        {},
        {"sort": "<script>", "dir": "sideways", "page": "-3", "size": "999999999999", "q": "%_\\'"},
        {"field": ["Status", "Nope", ""], "op": ["equals"], "value": ["a", "b", "c", "d"]},
        {"field": "CreatedDate", "op": "greater", "value": "LAST_N_DAYS:x"},
        {"scope": "Bogus", "q": "{}"},
        {"locator": "01gXXXX-5", "q": "SELECT"},
        {"toast": "<b>", "startURL": "//evil", "retURL": "javascript:x"},
    ]
    token = form_token(ui, "/lightning/page/home")
    for path, _ in [*ui_pages(running), ("/", "ui.login"), ("/secur/frontdoor.jsp", "ui.frontdoor")]:
        for values in odd:
            if method == "GET":
                answer = ui.get(path, query_string=values)
            else:
                answer = ui.post(path, data={**values, "csrf_token": token, "Subject": "\x00" * 300})
            assert answer.status_code < 500, (method, path, values, answer.get_data(as_text=True)[:500])
            assert answer.content_type.startswith("text/html"), (method, path)

"""Logins and sessions over raw HTTP: SOAP login and its fault, the OAuth grants, revocation, expiry,
userinfo and identity, and the read-only mode's refusals."""

from __future__ import annotations

import re
import time
from html import escape
from xml.dom import minidom

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from flask.testing import FlaskClient

from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, default_password, default_security_token
from mock_org.server.app import create_app
from mock_org.server.limits import ServerLimits
from mock_org.server.serve import RunningOrg
from mock_org.server.settings import Settings
from tests.mock_org.builder import ADMIN, rid

from .conftest import ORG_ID, Client, assert_error

V = "/services/data/v59.0"


def soap_login(username: str, password: str) -> str:
    """The envelope simple-salesforce posts (token variant), values html-escaped as it does."""
    return f"""<?xml version="1.0" encoding="utf-8" ?>
<env:Envelope xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
        xmlns:env="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:partner.soap.sforce.com">
    <env:Header><urn:CallOptions><urn:client>simple-salesforce</urn:client>
        <urn:defaultNamespace>sf</urn:defaultNamespace></urn:CallOptions></env:Header>
    <env:Body><n1:login xmlns:n1="urn:partner.soap.sforce.com">
        <n1:username>{escape(username)}</n1:username><n1:password>{escape(password)}</n1:password>
    </n1:login></env:Body>
</env:Envelope>"""


def element(xml: bytes, name: str) -> str | None:
    """How simple-salesforce reads the answer: the first element with this literal tag name."""
    found = minidom.parseString(xml).getElementsByTagName(name)
    return found[0].toxml().replace(f"<{name}>", "").replace(f"</{name}>", "") if found else None


@pytest.mark.parametrize("path", ["/services/Soap/u/59.0", "/login.salesforce.com/services/Soap/u/59.0"])
def test_soap_login_answers_what_both_clients_parse(client: Client, running: RunningOrg, path: str) -> None:
    body = soap_login(running.username, running.password + running.security_token)
    answer = client.post(path, token=None, data=body, headers={"Content-Type": "text/xml", "SOAPAction": "login"})
    assert answer.status == 200 and answer.headers["Content-Type"].startswith("text/xml")
    session_id = element(answer.body, "sessionId")
    assert session_id and re.fullmatch(r"(00D\w{12,15})![.\w]*", session_id)
    server_url = element(answer.body, "serverUrl")
    assert server_url and re.fullmatch(r"https?://[^/]+/services/Soap/u/59\.0/00D\w{12}", server_url)
    for name in ("serverUrl", "sessionId", "userId", "organizationId"):  # jsforce's four regexes
        assert re.search(rf"<{name}>([^<]+)</{name}>", answer.text), name
    assert "<passwordExpired>false</passwordExpired>" in answer.text
    assert client.get(f"{V}/limits", token=session_id).status == 200


def test_soap_login_without_the_token_is_allowed(client: Client, running: RunningOrg) -> None:
    body = soap_login(running.username, running.password)
    assert client.post("/services/Soap/u/59.0", token=None, data=body).status == 200


@pytest.mark.parametrize("password", ["wrong", "", "TOKENONLY"])
def test_soap_login_fault(client: Client, running: RunningOrg, password: str) -> None:
    answer = client.post("/x/services/Soap/u/59.0", token=None, data=soap_login(running.username, password))
    assert answer.status == 500 and answer.headers["Content-Type"].startswith("text/xml")
    assert element(answer.body, "sf:exceptionCode") == "INVALID_LOGIN"
    assert (
        element(answer.body, "sf:exceptionMessage") == "Invalid username, password, security token; or user locked out."
    )
    assert "<faultstring>INVALID_LOGIN: Invalid username" in answer.text


def test_inactive_users_cannot_log_in(client: Client) -> None:
    username = "émile.zola@example.com"
    body = soap_login(username, default_password(username) + default_security_token(username))
    assert client.post("/services/Soap/u/59.0", token=None, data=body).status == 500


def test_every_user_logs_in_with_the_derived_defaults(client: Client) -> None:
    username = "mohammad.aziz@example.com"
    body = soap_login(username, default_password(username) + default_security_token(username))
    answer = client.post("/services/Soap/u/59.0", token=None, data=body)
    assert element(answer.body, "userId") == rid("005", 2)


def test_soap_logout_revokes_the_session(client: Client, running: RunningOrg) -> None:
    login = client.post("/services/Soap/u/59.0", token=None, data=soap_login(running.username, running.password))
    session_id = element(login.body, "sessionId")
    logout = (
        '<se:Envelope xmlns:se="http://schemas.xmlsoap.org/soap/envelope/"><se:Header>'
        f'<SessionHeader xmlns="urn:partner.soap.sforce.com"><sessionId>{session_id}</sessionId></SessionHeader>'
        '</se:Header><se:Body><logout xmlns="urn:partner.soap.sforce.com"/></se:Body></se:Envelope>'
    )
    assert client.post("/services/Soap/u/59.0", token=None, data=logout).status == 200
    assert_error(client.get(f"{V}/limits", token=session_id), 401, "INVALID_SESSION_ID")


def token_call(client: Client, **form: str):  # type: ignore[no-untyped-def]
    return client.post("/services/oauth2/token", token=None, data=form)


def test_oauth_password_grant(client: Client, running: RunningOrg) -> None:
    answer = token_call(
        client,
        grant_type="password",
        client_id=DEFAULT_CLIENT_ID,
        client_secret=DEFAULT_CLIENT_SECRET,
        username=running.username,
        password=running.password + running.security_token,
    )
    body = answer.json()
    assert answer.status == 200 and body["token_type"] == "Bearer"
    assert not body["instance_url"].endswith("/") and body["id"].endswith(f"/id/{ORG_ID}/{ADMIN}")
    assert "refresh_token" not in body
    assert client.get(f"{V}/limits", token=body["access_token"]).status == 200


@pytest.mark.parametrize(
    ("form", "error"),
    [
        ({"client_id": "nobody", "client_secret": DEFAULT_CLIENT_SECRET}, "invalid_client_id"),
        ({"client_id": DEFAULT_CLIENT_ID, "client_secret": "wrong"}, "invalid_client"),
        (
            {"client_id": DEFAULT_CLIENT_ID, "client_secret": DEFAULT_CLIENT_SECRET, "password": "wrong"},
            "invalid_grant",
        ),
    ],
)
def test_oauth_password_grant_failures(client: Client, running: RunningOrg, form: dict, error: str) -> None:
    sent = {"grant_type": "password", "username": running.username, "password": running.password, **form}
    answer = token_call(client, **sent)
    assert answer.status == 400 and answer.json()["error"] == error
    if error == "invalid_grant":
        assert answer.json()["error_description"] == "authentication failure"


def test_oauth_client_credentials_runs_as_the_administrator(client: Client, running: RunningOrg) -> None:
    answer = token_call(
        client, grant_type="client_credentials", client_id=DEFAULT_CLIENT_ID, client_secret=running.client_secret
    )
    token = answer.json()["access_token"]
    assert client.get("/services/oauth2/userinfo", token=token).json()["user_id"] == ADMIN
    assert token_call(client, grant_type="client_credentials").json()["error"] == "invalid_client"


def test_oauth_refresh_token_grant(client: Client, running: RunningOrg) -> None:
    first = token_call(
        client,
        grant_type="password",
        client_id=DEFAULT_CLIENT_ID,
        client_secret=DEFAULT_CLIENT_SECRET,
        username=running.username,
        password=running.password,
        scope="api refresh_token",
    ).json()
    refreshed = token_call(
        client, grant_type="refresh_token", client_id=DEFAULT_CLIENT_ID, refresh_token=first["refresh_token"]
    ).json()
    assert refreshed["access_token"] != first["access_token"]
    assert client.get(f"{V}/limits", token=refreshed["access_token"]).status == 200
    assert_error(client.get(f"{V}/limits", token=first["refresh_token"]), 401, "INVALID_SESSION_ID")
    bad = token_call(client, grant_type="refresh_token", client_id=DEFAULT_CLIENT_ID, refresh_token="nope")
    assert bad.json()["error"] == "invalid_grant"


def test_oauth_jwt_bearer_grant(client: Client, running: RunningOrg, jwt_key: rsa.RSAPrivateKey) -> None:
    claims = {
        "iss": DEFAULT_CLIENT_ID,
        "sub": running.username,
        "aud": "https://login.salesforce.com",
        "exp": str(int(time.time()) + 300),
    }  # simple-salesforce sends exp as a string
    assertion = jwt.encode(claims, jwt_key, algorithm="RS256")
    answer = token_call(client, grant_type="urn:ietf:params:oauth:grant-type:jwt-bearer", assertion=assertion)
    assert answer.status == 200 and client.get(f"{V}/limits", token=answer.json()["access_token"]).status == 200
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = token_call(
        client,
        grant_type="urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion=jwt.encode(claims, other, algorithm="RS256"),
    )
    assert forged.status == 400 and forged.json()["error"] == "invalid_grant"


def test_unsupported_grant_type(client: Client) -> None:
    assert token_call(client, grant_type="authorization_code").json()["error"] == "unsupported_grant_type"


def test_revoke(client: Client) -> None:
    token = client.login()
    assert client.post("/services/oauth2/revoke", token=None, data={"token": token}).status == 200
    assert_error(client.get(f"{V}/limits", token=token), 401, "INVALID_SESSION_ID")
    assert client.post("/services/oauth2/revoke", token=None, data={"token": token}).status == 400


def test_userinfo_and_identity(client: Client, running: RunningOrg) -> None:
    info = client.get("/services/oauth2/userinfo").json()
    assert (info["user_id"], info["organization_id"], info["preferred_username"]) == (ADMIN, ORG_ID, running.username)
    identity_url = client.get(f"{V}/").json()["identity"]
    path = identity_url[identity_url.index("/id/") :]
    by_query = client.get(path, token=None, params={"format": "json", "oauth_token": client.token}).json()
    assert by_query["username"] == running.username and by_query["urls"]["rest"].endswith("/services/data/v{version}/")
    assert client.get(path).status == 200
    assert_error(client.get(path, token=None), 401, "INVALID_SESSION_ID")
    assert_error(client.get(f"/id/{ORG_ID}/{rid('005', 2)}"), 403, "INSUFFICIENT_ACCESS")
    assert client.get(f"{V}/sobjects/User/{info['user_id']}").json()["Username"] == running.username


def test_sessions_expire_after_idle_time(running: RunningOrg) -> None:
    app = create_app(running.org, Settings(limits=ServerLimits(session_seconds=60)))
    auth = app.extensions["crmarena"].auth
    now = [1000.0]
    auth.now = lambda: now[0]
    token = auth.issue(auth.admin)
    web = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    now[0] += 50
    assert web.get(f"{V}/limits", headers=headers).status_code == 200
    now[0] += 50  # idle time counts from the last use
    assert web.get(f"{V}/limits", headers=headers).status_code == 200
    now[0] += 61
    answer = web.get(f"{V}/limits", headers=headers)
    assert answer.status_code == 401 and answer.get_json()[0]["errorCode"] == "INVALID_SESSION_ID"


def test_the_daily_api_allowance_is_enforced(running: RunningOrg) -> None:
    app = create_app(running.org, Settings(limits=ServerLimits(daily_api_requests=3)))
    auth = app.extensions["crmarena"].auth
    web = app.test_client()
    headers = {"Authorization": f"Bearer {auth.issue(auth.admin)}"}
    statuses = [web.get(f"{V}/limits", headers=headers).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 403]
    refused = web.get(f"{V}/limits", headers=headers)
    assert refused.get_json() == [{"message": "TotalRequests Limit exceeded.", "errorCode": "REQUEST_LIMIT_EXCEEDED"}]


def test_read_only_mode_refuses_writes_and_serves_reads(read_only_app: tuple[FlaskClient, str]) -> None:
    web, token = read_only_app
    headers = {"Authorization": f"Bearer {token}"}
    assert web.get(f"{V}/query", query_string={"q": "SELECT Id FROM Account"}, headers=headers).status_code == 200
    for method, path, body in [
        ("POST", f"{V}/sobjects/Account", {"Name": "x"}),
        ("PATCH", f"{V}/sobjects/Product2/External_ID__c/RO", {"Name": "x"}),
        ("POST", f"{V}/jobs/ingest", {"object": "Account", "operation": "insert"}),
    ]:
        answer = web.open(path, method=method, json=body, headers=headers)
        assert answer.status_code == 403, answer.get_data()
        assert answer.get_json()[0]["errorCode"] == "INSUFFICIENT_ACCESS_OR_READONLY"


def test_the_administrator_sets_and_resets_a_users_password(client: Client) -> None:
    """``sobjects/User/{id}/password``: GET the expiry, POST a new password (204), DELETE to reset it
    to a generated one; the user then logs in with the new password and its unchanged security token."""
    username, user_id = "sofia.kouris@example.com", rid("005", 1)
    token = default_security_token(username)
    path = f"{V}/sobjects/User/{user_id[:15]}/password"
    assert client.get(path).json() == {"isExpired": False}
    chosen = f"Chosen{client.kind}2024"
    assert client.post(path, json_body={"NewPassword": chosen}).status == 204
    login = client.post("/services/Soap/u/59.0", token=None, data=soap_login(username, chosen + token))
    assert element(login.body, "userId") == user_id
    assert (
        client.post("/services/Soap/u/59.0", token=None, data=soap_login(username, default_password(username))).status
        == 500
    )
    generated = client.delete(path).json()["NewPassword"]
    assert generated != chosen and len(generated) >= 8
    login = client.post("/services/Soap/u/59.0", token=None, data=soap_login(username, generated))
    assert element(login.body, "userId") == user_id


@pytest.mark.parametrize(
    ("new", "message"),
    [("short1", "at least 8 characters"), ("lettersonly", "mix of letters and numbers"), (None, "at least 8")],
)
def test_new_passwords_follow_the_policy(client: Client, new: str | None, message: str) -> None:
    body = {} if new is None else {"NewPassword": new}
    error = assert_error(
        client.post(f"{V}/sobjects/User/{rid('005', 1)}/password", json_body=body), 400, "INVALID_NEW_PASSWORD"
    )
    assert message in error["message"]


def test_only_the_administrator_manages_passwords(client: Client) -> None:
    username = "mohammad.aziz@example.com"
    form = {
        "grant_type": "password",
        "client_id": DEFAULT_CLIENT_ID,
        "client_secret": DEFAULT_CLIENT_SECRET,
        "username": username,
        "password": default_password(username) + default_security_token(username),
    }
    agent = token_call(client, **form).json()["access_token"]
    error = assert_error(
        client.get(f"{V}/sobjects/User/{rid('005', 1)}/password", token=agent), 403, "INSUFFICIENT_ACCESS"
    )
    assert error["message"] == "You do not have permission to view this record."
    assert_error(client.get(f"{V}/sobjects/User/005000000000000AAA/password"), 404, "NOT_FOUND")
    assert_error(client.get(f"{V}/sobjects/User/not-an-id/password"), 404, "NOT_FOUND")

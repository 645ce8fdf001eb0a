"""A served org for the server tests: the engine tests' tiny org plus an administrator, an Organization
row and 650 products (so that a 200-record batch size gives four pages), copied, prepared and served
over HTTPS on a free loopback port for the whole session.

The ``client`` fixture runs each raw-HTTP scenario twice: in-process through Flask's test client, and
over the wire through requests against the real HTTPS server.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from flask.testing import FlaskClient

from mock_org.auth import AuthConfig
from mock_org.org import Org
from mock_org.server.app import create_app
from mock_org.server.http import tls
from mock_org.server.limits import ServerLimits
from mock_org.server.serve import RunningOrg, serve_org
from mock_org.server.settings import Settings
from tests.mock_org.builder import ADMIN, build_org, rid
from tests.mock_org.conftest import tiny_records

ORG_ID = rid("00D", 7)
BULK_PRODUCTS = 650
TWINS = [rid("01t", 901), rid("01t", 902)]
ADMIN_PROFILE = rid("00e", 2)
PERSON_TYPE = rid("012", 1)


def server_records() -> dict[str, list[dict[str, Any]]]:
    records = tiny_records()
    records["Profile"].append({"Id": ADMIN_PROFILE, "Name": "System Administrator"})
    for user in records["User"]:
        if user["Id"] == ADMIN:
            user["ProfileId"] = ADMIN_PROFILE
    # The customers are person accounts, as in the CRMArena org; each one's contact is its person contact.
    records["RecordType"] = [
        {
            "Id": PERSON_TYPE,
            "Name": "Person Account",
            "DeveloperName": "PersonAccount",
            "SobjectType": "Account",
            "IsActive": 1,
            "IsPersonType": 1,
        }
    ]
    for account in records["Account"]:
        account.update(IsPersonAccount=1, RecordTypeId=PERSON_TYPE)
    records["Organization"] = [
        {
            "Id": ORG_ID,
            "Name": "Tiny Test Org",
            "InstanceName": "TT1",
            "IsSandbox": 0,
            "OrganizationType": "Developer Edition",
        }
    ]
    records["Product2"] += [
        {"Id": rid("01t", 100 + i), "Name": f"Bulk Item {i:03d}", "IsActive": 1, "External_ID__c": f"Bulk_{i:03d}"}
        for i in range(BULK_PRODUCTS)
    ]
    # Two products share an external Id (loaded data can; the API refuses to make such a pair).
    records["Product2"] += [{"Id": rid("01t", 900 + i), "Name": f"Twin {i}", "External_ID__c": "Twin"} for i in (1, 2)]
    return records


@pytest.fixture(scope="session")
def org_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test org's database, built once; every server serves its own copy of it."""
    path = tmp_path_factory.mktemp("dump") / "org.db"
    build_org(path, server_records()).close()
    return path


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tls.TlsFiles:
    return tls.ensure(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="session")
def jwt_key() -> rsa.RSAPrivateKey:
    """The connected app's signing key; the served org trusts its public half for JWT-bearer logins."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_pem(key: rsa.RSAPrivateKey) -> str:
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode("ascii")


@pytest.fixture(scope="session")
def running(org_dump: Path, tls_files: tls.TlsFiles, jwt_key: rsa.RSAPrivateKey) -> Iterator[RunningOrg]:
    """The session's server (today is 2023-05-15); tests that write make records of their own."""
    # The engine's limit tests send queries of up to 100,000 characters in the URL; a real org (and this
    # server by default) answers a head over 16,384 bytes 414 or 431 (tests/server/test_limits.py).
    settings = Settings(
        auth=AuthConfig(jwt_public_key=public_pem(jwt_key)), limits=ServerLimits(max_head_bytes=1 << 20)
    )
    with serve_org(org_dump, today="2023-05-15", http_port=0, tls_files=tls_files, settings=settings) as served:
        yield served


@pytest.fixture
def read_only_app(running: RunningOrg) -> Iterator[tuple[FlaskClient, str]]:
    """The session's org served read-only, in-process: a test client and an administrator's access token."""
    org = Org(running.org.storage.path, clock=running.org.clock, read_only=True)
    try:
        app = create_app(org)
        auth = app.extensions["crmarena"].auth
        yield app.test_client(), auth.issue(auth.admin)
    finally:
        org.close()


@pytest.fixture
def ca_env(monkeypatch: pytest.MonkeyPatch, tls_files: tls.TlsFiles) -> None:
    """What a user of unmodified simple-salesforce exports: REQUESTS_CA_BUNDLE naming the mock's bundle."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tls_files.bundle))


# ----------------------------------------------------------------------------- raw HTTP, twice


@dataclass
class Answer:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


class Client:
    """Sends a request in-process (``flask``) or over HTTPS (``https``); adds the session's bearer token."""

    def __init__(self, kind: str, running: RunningOrg) -> None:
        self.kind = kind
        self.running = running
        if kind == "flask":
            self._flask = running.app.test_client()
        else:
            self._session = requests.Session()
            self._session.trust_env = False
            self._session.verify = str(running.ca_bundle)
        self.token = self.login()

    def login(self) -> str:
        from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET

        running = self.running
        form = {
            "grant_type": "password",
            "client_id": DEFAULT_CLIENT_ID,
            "client_secret": DEFAULT_CLIENT_SECRET,
            "username": running.username,
            "password": running.password + running.security_token,
        }
        answer = self.call("POST", "/services/oauth2/token", token=None, data=form)
        assert answer.status == 200, answer.text
        return answer.json()["access_token"]

    def call(
        self,
        method: str,
        path: str,
        *,
        token: str | bool | None = True,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        data: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        sent = dict(headers or {})
        if token is True:
            token = self.token
        if token:
            sent["Authorization"] = f"Bearer {token}"
        if self.kind == "flask":
            response = self._flask.open(
                path, method=method, headers=sent, query_string=params, json=json_body, data=data
            )
            return Answer(response.status_code, response.headers, response.get_data())
        url = self.running.url + path
        response = self._session.request(
            method, url, headers=sent, params=params, json=json_body, data=data, timeout=120
        )  # a hung server fails the test, not the suite
        return Answer(response.status_code, response.headers, response.content)

    def get(self, path: str, **kwargs: Any) -> Answer:
        return self.call("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Answer:
        return self.call("POST", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> Answer:
        return self.call("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Answer:
        return self.call("DELETE", path, **kwargs)


@pytest.fixture(params=["flask", "https"])
def client(request: pytest.FixtureRequest, running: RunningOrg) -> Client:
    return Client(request.param, running)


def assert_error(answer: Answer, status: int, code: str) -> dict[str, Any]:
    """The canonical error shape: a JSON array of {message, errorCode[, fields]} with the right status."""
    assert answer.status == status, answer.text
    assert answer.headers["Content-Type"] == "application/json;charset=UTF-8"
    body = answer.json()
    assert isinstance(body, list) and len(body) == 1
    assert body[0]["errorCode"] == code
    assert set(body[0]) <= {"message", "errorCode", "fields"} and isinstance(body[0]["message"], str)
    return body[0]

"""Login lockout that holds under load (issue 25, problem 7): attempts are counted when they start, so
parallel wrong passwords cannot outrun the count; junk usernames cannot push a lockout out of memory;
strangers elsewhere cannot lock the administrator out of its own org; and the client_credentials
grant, which logs in as the administrator, takes only the org's own secret and follows the same lockout."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from mock_org import auth as auth_module
from mock_org.auth import (
    DEFAULT_CLIENT_ID,
    DEFAULT_CLIENT_SECRET,
    AuthConfig,
    Authenticator,
    InvalidLogin,
    Secret,
    default_password,
)
from mock_org.org import Org
from mock_org.server.serve import RunningOrg

USERNAME = "sofia.kouris@example.com"
STRANGER = "203.0.113.9"  # a documentation address (RFC 5737): someone on another machine


def test_parallel_wrong_passwords_are_counted_before_their_check_ends(
    org_dump: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten wrong passwords still being checked (their PBKDF2 slowed down here) already lock the user out:
    the right password that comes meanwhile is refused."""
    right = default_password(USERNAME)
    checking = threading.Semaphore(0)
    release = threading.Event()
    real = Secret.matches

    def slow(self: Secret, text: str) -> bool:
        if text == "wrong":
            checking.release()
            release.wait(10)
        return real(self, text)

    monkeypatch.setattr(Secret, "matches", slow)
    org = Org(org_dump, read_only=True)
    try:
        authenticator = Authenticator(org.storage, AuthConfig())

        def attempt() -> None:
            with pytest.raises(InvalidLogin):
                authenticator.authenticate(USERNAME, "wrong")

        threads = [threading.Thread(target=attempt) for _ in range(10)]
        for thread in threads:
            thread.start()
        for _ in range(10):
            assert checking.acquire(timeout=10)  # all ten are inside their check
        try:
            with pytest.raises(InvalidLogin):
                authenticator.authenticate(USERNAME, right)
        finally:
            release.set()
            for thread in threads:
                thread.join(10)
    finally:
        org.close()


def test_junk_usernames_do_not_free_a_locked_user(org_dump: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failures for usernames nobody has take no room, and a full table forgets only entries that lock
    nobody (the table is shrunk to 20 here; the default is 100,000)."""
    monkeypatch.setattr("mock_org.lockout.TRACKED", 20, raising=False)
    monkeypatch.setattr(auth_module, "_TRACKED_USERNAMES", 20, raising=False)  # the name it had before
    org = Org(org_dump, read_only=True)
    try:
        authenticator = Authenticator(org.storage, AuthConfig())
        for _ in range(10):
            with pytest.raises(InvalidLogin):
                authenticator.authenticate(USERNAME, "wrong")
        for index in range(60):
            with pytest.raises(InvalidLogin):
                authenticator.authenticate(f"junk{index}@nowhere.example", "wrong")
        with pytest.raises(InvalidLogin):
            authenticator.authenticate(USERNAME, default_password(USERNAME))
    finally:
        org.close()


def token_form(running: RunningOrg, password: str) -> dict[str, str]:
    return {
        "grant_type": "password",
        "client_id": DEFAULT_CLIENT_ID,
        "client_secret": DEFAULT_CLIENT_SECRET,
        "username": running.username,
        "password": password,
    }


def test_strangers_cannot_lock_the_administrator_out(running: RunningOrg) -> None:
    """Ten wrong passwords for the administrator from another address lock it out there, not here."""
    web = running.app.test_client()
    stranger = {"REMOTE_ADDR": STRANGER}
    for _ in range(10):
        wrong = web.post("/services/oauth2/token", data=token_form(running, "wrong"), environ_base=stranger)
        assert wrong.status_code == 400
    right = token_form(running, running.password + running.security_token)
    assert web.post("/services/oauth2/token", data=right, environ_base=stranger).status_code == 400
    assert web.post("/services/oauth2/token", data=right).status_code == 200  # from this machine


def test_client_credentials_take_the_orgs_own_secret_and_follow_the_lockout(running: RunningOrg) -> None:
    web = running.app.test_client()
    form = {"grant_type": "client_credentials", "client_id": DEFAULT_CLIENT_ID}
    public = web.post("/services/oauth2/token", data={**form, "client_secret": DEFAULT_CLIENT_SECRET})
    assert public.status_code == 400 and public.get_json()["error"] == "invalid_client"
    secret = running.client_secret
    assert secret != DEFAULT_CLIENT_SECRET and len(secret) >= 32
    assert web.post("/services/oauth2/token", data={**form, "client_secret": secret}).status_code == 200
    elsewhere = {"REMOTE_ADDR": "198.51.100.7"}
    for _ in range(10):
        web.post("/services/oauth2/token", data={**form, "client_secret": "guess"}, environ_base=elsewhere)
    locked = web.post("/services/oauth2/token", data={**form, "client_secret": secret}, environ_base=elsewhere)
    assert locked.status_code == 400 and locked.get_json()["error"] == "invalid_client"
    assert web.post("/services/oauth2/token", data={**form, "client_secret": secret}).status_code == 200


def test_a_lockout_ends_after_its_time(org_dump: Path) -> None:
    org = Org(org_dump, read_only=True)
    clock = [time.monotonic()]
    try:
        authenticator = Authenticator(org.storage, AuthConfig(), now=lambda: clock[0])
        for _ in range(10):
            with pytest.raises(InvalidLogin):
                authenticator.authenticate(USERNAME, "wrong")
        clock[0] += 15 * 60
        assert authenticator.authenticate(USERNAME, default_password(USERNAME)).username == USERNAME
    finally:
        org.close()

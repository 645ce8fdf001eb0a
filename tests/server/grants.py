"""A refresh token from a served org, as a connected app's OAuth flow leaves one for the data tools
(CumulusCI's org config, Airbyte's source config) that keep it and trade it for access tokens."""

from __future__ import annotations

import requests

from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET
from mock_org.server.serve import RunningOrg


def refresh_token(running: RunningOrg, base_url: str | None = None) -> str:
    """The administrator's refresh token (password grant with ``scope=refresh_token``), asked at ``base_url``
    (the org's own URL unless given)."""
    form = {
        "grant_type": "password",
        "client_id": DEFAULT_CLIENT_ID,
        "client_secret": DEFAULT_CLIENT_SECRET,
        "username": running.username,
        "password": running.password + running.security_token,
        "scope": "api refresh_token",
    }
    answer = requests.post(
        f"{base_url or running.url}/services/oauth2/token", data=form, verify=str(running.ca_bundle), timeout=60
    )
    answer.raise_for_status()
    return answer.json()["refresh_token"]

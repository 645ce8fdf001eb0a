"""UI tests run against the server tests' org (tests/server/conftest.py): a test client logged in as the
administrator, on the session's read-write server and on a read-only copy."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from mock_org.org import Org
from mock_org.server.app import create_app
from mock_org.server.serve import RunningOrg

from .pages import log_in


@pytest.fixture
def ui(running: RunningOrg) -> FlaskClient:
    client = running.app.test_client()
    log_in(client, running.username, running.password)
    return client


@pytest.fixture
def read_only_ui(running: RunningOrg) -> Iterator[FlaskClient]:
    org = Org(running.org.storage.path, clock=running.org.clock, read_only=True)
    try:
        app = create_app(org)
        client = app.test_client()
        log_in(client, running.username, running.password)
        yield client
    finally:
        org.close()

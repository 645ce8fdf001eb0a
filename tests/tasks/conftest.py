"""What the task tests share: the default org's committed instances and records, and one served,
read-only copy of that org for every test that runs tools or reference solutions through
simple-salesforce."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from simple_salesforce import Salesforce

from fixtures import default_org
from fixtures.default import DEFAULT_DIR, default_tasks
from fixtures.dump import LATENT_FILE
from fixtures.tasks.model import Instance, load_tasks
from fixtures.tasks.records import OrgRecords, load_records
from mock_org.server.serve import serve_org


@pytest.fixture(scope="session")
def default_db() -> Path:
    return default_org()


@pytest.fixture(scope="session")
def instances() -> list[Instance]:
    return load_tasks(default_tasks())


@pytest.fixture(scope="session")
def records(default_db: Path) -> OrgRecords:
    return load_records(default_db)


@pytest.fixture(scope="session")
def sf(default_db: Path) -> Iterator[Salesforce]:
    """simple-salesforce, unmodified, logged in to a served read-only copy of the default org."""
    with serve_org(default_db, read_only=True) as org:
        yield org.connect()


@pytest.fixture(scope="session")
def latent() -> dict:
    return json.loads((DEFAULT_DIR / LATENT_FILE).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def latent_issues(latent: dict) -> dict:
    return latent["issues"]

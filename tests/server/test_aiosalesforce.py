"""End to end with unmodified aiosalesforce (PyPI, installed by the test run into the project's cache).

Its client accepts only ``https://NAME.my.salesforce.com`` on port 443, so the test gives it that host in a
private network namespace: ``unshare --net --mount`` makes a namespace with its own loopback (so port 443
is free and nothing outside can reach it) and its own mount table, where a hosts file of the test's own
is bind-mounted over /etc/hosts. The machine's hosts file is never edited. Needs root (or the user
namespaces unshare asks for) and iproute2; skipped where they are missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from . import netns, pypi

SCRIPT = Path(__file__).with_name("py") / "aiosalesforce_session.py"
ROOT = Path(__file__).resolve().parents[2]
HOST = "mock.my.salesforce.com"


@pytest.fixture(scope="module")
def seen(org_dump: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    netns.require()
    scratch = tmp_path_factory.mktemp("aiosalesforce")
    packages = pypi.installed("aiosalesforce==0.6.2")
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT}{os.pathsep}{packages}",
        "ORG_DUMP": str(org_dump),
        "TLS_DIR": str(scratch / "tls"),
        "HOST_NAME": HOST,
    }
    return netns.run_inside(SCRIPT, env, scratch, hosts=(HOST,), timeout=300)


def test_login_query_and_limits(seen: dict) -> None:
    assert seen["products"] >= 650 and seen["limits"] > 0


def test_sobject_crud_and_upsert(seen: dict) -> None:
    assert seen["issue"]["Name"] == "From aiosalesforce" and seen["issue"]["Description__c"] == "updated"
    assert seen["deleted"] == "NotFoundError"
    assert seen["upsert"]["created"] is True and seen["upsert"]["id"].startswith("01t")


def test_composite_batch(seen: dict) -> None:
    assert seen["batch"] == {"records": ["kim lee"], "created": "a1M"}


def test_bulk_v2_ingest(seen: dict) -> None:
    assert seen["bulk"] == {"ok": 3, "failed": 1}

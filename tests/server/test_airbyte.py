"""End to end with Airbyte's unmodified Salesforce source (PyPI ``airbyte-source-salesforce``, with the
airbyte-cdk it pulls in, installed by the test run into the project's cache): ``check``, ``discover``, a full
refresh read and an incremental read of Account, Contact and Case through Bulk API 2.0 query jobs, then an
incremental read from the state the first one left, after a few writes.

Opt-in (``--run-slow``). The source logs in at ``https://login.salesforce.com`` (``test.`` for a sandbox) and
has no setting for another host, so the test gives it that host in a private network namespace, as the
aiosalesforce test does: ``unshare --net --mount``, the namespace's loopback up and a hosts file of the
test's own bind-mounted over /etc/hosts. The machine's hosts file is never edited. Needs root (or user
namespaces) and iproute2.

Two things in the client, not the mock, shape the config: a ``stream_slice_step`` in months or years
(``P1Y``) fails in airbyte-cdk 7.39 (``AirbyteDateTime + isodate.Duration`` raises ``TypeError: Invalid
operation``), so the step is given in days; and the source bounds each sync by its own clock, so the org is
served with the machine's time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixtures import default_org

from . import netns, pypi

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).with_name("py") / "airbyte_session.py"
ROOT = Path(__file__).resolve().parents[2]
HOST = "login.salesforce.com"


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict:
    netns.require()
    scratch = tmp_path_factory.mktemp("airbyte")
    packages = pypi.installed("airbyte-source-salesforce==2.10.3", timeout=900)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "ORG_DUMP": str(default_org()),
        "TLS_DIR": str(scratch / "tls"),
        "WORK_DIR": str(scratch),
        "AIRBYTE_PATH": str(packages),
        "HOST_NAME": HOST,
    }
    return netns.run_inside(SCRIPT, env, scratch, hosts=(HOST,))


def test_check_and_discover(seen: dict) -> None:
    assert seen["check"] == ["SUCCEEDED"]
    assert {"Account", "Contact", "Case"} <= set(seen["discovered"])
    assert seen["cursors"] == {name: ["SystemModstamp"] for name in ("Account", "Contact", "Case")}


def test_full_refresh_read_matches_the_org(seen: dict) -> None:
    assert seen["full"] == seen["org"] and seen["org"]["Case"] == 1000


def test_incremental_read_matches_the_org(seen: dict) -> None:
    assert seen["incremental"] == seen["org"]


def test_incremental_read_from_state_brings_only_the_changes(seen: dict) -> None:
    assert seen["after_writes"] == {"Case": 2, "Account": 1}
    assert seen["changed_seen"] == seen["changed"] and seen["new_account_seen"]

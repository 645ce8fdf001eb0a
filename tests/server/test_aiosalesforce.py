"""End to end with unmodified aiosalesforce (PyPI, installed by the test run into the project's cache).

Its client accepts only ``https://NAME.my.salesforce.com`` on port 443, so the test gives it that host in a
private network namespace: ``unshare --net --mount`` makes a namespace with its own loopback (so port 443
is free and nothing outside can reach it) and its own mount table, where a hosts file of the test's own
is bind-mounted over /etc/hosts. The machine's hosts file is never edited. Needs root (or the user
namespaces unshare asks for) and iproute2; skipped where they are missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from . import pypi

SCRIPT = Path(__file__).with_name("py") / "aiosalesforce_session.py"
ROOT = Path(__file__).resolve().parents[2]
HOST = "mock.my.salesforce.com"


@pytest.fixture(scope="module")
def seen(org_dump: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("unshare and ip (util-linux, iproute2) are needed for a private network namespace")
    probe = subprocess.run(["unshare", "--net", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no private network namespace here: {probe.stderr.strip()}")
    packages = pypi.installed("aiosalesforce==0.6.2")
    scratch = tmp_path_factory.mktemp("aiosalesforce")
    hosts = scratch / "hosts"
    hosts.write_text(f"127.0.0.1 localhost {HOST}\n")
    inside = f'ip link set lo up && mount --bind "{hosts}" /etc/hosts && exec "{sys.executable}" "{SCRIPT}"'
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{packages}", "ORG_DUMP": str(org_dump),
           "TLS_DIR": str(scratch / "tls"), "HOST_NAME": HOST}  # fmt: skip
    result = subprocess.run(["unshare", "--net", "--mount", "sh", "-c", inside], capture_output=True, text=True,
                            env=env, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


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

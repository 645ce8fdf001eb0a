"""End to end with unmodified amaxa (PyPI, installed by the test run into the project's cache): its
documented extract of Account, Contact and Case from the CRMArena org (about 1,400 records, through Bulk
API 1.0 query jobs) and load of the extracted files into another org (Bulk API 1.0 insert and update jobs),
the links between the records kept.

Opt-in (``--run-slow``). amaxa's Bulk API client keeps only the host of the instance URL (port 443), so the
orgs are served on 127.0.0.1:443 inside a private network namespace (``unshare --net``, as the aiosalesforce
test does); needs root or user namespaces, and iproute2.

amaxa 0.9.8 pins PyYAML < 6, whose only release for Python 3.11 is a source one that no longer builds with
Cython 3; the install therefore builds it with ``cython<3`` (a build constraint, amaxa itself unchanged).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixtures import default_org

from . import netns, pypi

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).with_name("py") / "amaxa_session.py"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def seen(org_dump: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    netns.require()
    scratch = tmp_path_factory.mktemp("amaxa")
    packages = pypi.installed("amaxa==0.9.8", build_constraints=("cython<3",))
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SOURCE_DUMP": str(default_org()),
        "TARGET_DUMP": str(org_dump),
        "TLS_DIR": str(scratch / "tls"),
        "AMAXA_PATH": str(packages),
        "WORK_DIR": str(scratch),
    }
    return netns.run_inside(SCRIPT, env, scratch)


def test_extract_takes_every_record(seen: dict) -> None:
    assert seen["extracted"] == seen["source"]
    assert sum(seen["source"].values()) >= 1400


def test_load_adds_every_record(seen: dict) -> None:
    added = {name: seen["target_after"][name] - seen["target_before"][name] for name in seen["source"]}
    assert added == seen["source"]


def test_load_keeps_the_links(seen: dict) -> None:
    """Each loaded case has the subject, contact (name and email) and account (name) it had in the source."""
    assert seen["cases_mapped"] == seen["source"]["Case"]
    assert seen["cases_with_contact"] > 0
    assert seen["links_differing"] == []

"""End to end with unmodified CumulusCI (PyPI, installed by the test run into the project's cache): its
``extract_dataset`` task takes Account, Contact and Case from the CRMArena org (a person-account org) into a
SQL file, and ``load_dataset`` loads that file into another org, as ``cci task run`` does for a user.

Opt-in (``--run-slow``). Each org is connected the way CumulusCI documents for CI: a ``CUMULUSCI_ORG_<name>``
variable holding the org's JSON config (instance URL, refresh token and the connected app's id and
secret), which cci turns into an access token with the OAuth refresh-token grant. cci checks PyPI for a newer
version at most once an hour; the test's own ``~/.cumulusci/cumulus_timestamp`` marks it as just done, so
no test run talks to anything but the served orgs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from fixtures import default_org
from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org

from . import pypi
from .grants import refresh_token

pytestmark = pytest.mark.slow

# The person accounts' names and record type go with them (CumulusCI blanks Name for person accounts and
# maps record types by developer name); CumulusCI adds IsPersonAccount to the Account and Contact steps.
MAPPING = """\
Insert Account:
  sf_object: Account
  fields: [Name, FirstName, LastName, PersonEmail, Phone, ShippingCity, RecordTypeId]
Insert Contact:
  sf_object: Contact
  fields: [FirstName, LastName, Email]
  lookups:
    AccountId:
      table: Account
Insert Case:
  sf_object: Case
  fields: [Subject, Status, Priority, Origin]
  lookups:
    ContactId:
      table: Contact
    AccountId:
      table: Account
"""
OBJECTS = ("Account", "Contact", "Case")
CASE_LINKS = "SELECT Subject, Contact.Name, Contact.Email, Account.Name, Account.IsPersonAccount FROM Case"


class Cci:
    """``cci`` in its own process, in a CumulusCI project of its own, with a HOME of its own."""

    def __init__(self, packages: Path, project: Path, home: Path) -> None:
        self.packages, self.project, self.home = packages, project, home

    def run(self, running: RunningOrg, name: str, *args: str) -> str:
        env = {
            **os.environ,
            "PYTHONPATH": str(self.packages),
            "HOME": str(self.home),
            "COLUMNS": "200",
            "REQUESTS_CA_BUNDLE": str(running.ca_bundle),
            f"CUMULUSCI_ORG_{name}": org_config(running),
        }
        command = [sys.executable, "-c", "import sys; from cumulusci.cli.cci import main; sys.exit(main())", *args]
        result = subprocess.run(command, cwd=self.project, env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"cci {' '.join(args)}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        return result.stdout


def org_config(running: RunningOrg) -> str:
    """The org as CumulusCI's ``CUMULUSCI_ORG_*`` variable holds it, with a refresh token from the org."""
    return json.dumps(
        {
            "instance_url": running.url,
            "refresh_token": refresh_token(running),
            "client_id": DEFAULT_CLIENT_ID,
            "client_secret": DEFAULT_CLIENT_SECRET,
        }
    )


def counts(running: RunningOrg) -> dict[str, int]:
    sf = running.connect()
    return {name: sf.query(f"SELECT COUNT() FROM {name}")["totalSize"] for name in OBJECTS}


def case_links(running: RunningOrg) -> Counter:
    def field(parent: dict | None, name: str) -> object:
        return parent[name] if parent else None

    rows = running.connect().query_all(CASE_LINKS)["records"]
    return Counter(
        (
            row["Subject"],
            field(row["Contact"], "Name"),
            field(row["Contact"], "Email"),
            field(row["Account"], "Name"),
            field(row["Account"], "IsPersonAccount"),
        )
        for row in rows
    )


def person_accounts(running: RunningOrg) -> Counter:
    """Each person account's name with its person contact's name."""
    rows = running.connect().query_all("SELECT Name, PersonContact.Name FROM Account WHERE IsPersonAccount = true")[
        "records"
    ]
    return Counter((row["Name"], row["PersonContact"]["Name"] if row["PersonContact"] else None) for row in rows)


@pytest.fixture(scope="module")
def seen(org_dump: Path, tls_files: tls.TlsFiles, tmp_path_factory: pytest.TempPathFactory) -> dict:
    packages = pypi.installed("cumulusci==4.10.1", timeout=900)
    scratch = tmp_path_factory.mktemp("cumulusci")
    project, home = scratch / "project", scratch / "home"
    project.mkdir()
    (home / ".cumulusci").mkdir(parents=True)
    (home / ".cumulusci" / "cumulus_timestamp").write_text(str(time.time() + 10**9))  # no version check
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "cumulusci.yml").write_text("project:\n  name: MockData\n  package:\n    api_version: '59.0'\n")
    (project / "mapping.yml").write_text(MAPPING)
    cci = Cci(packages, project, home)
    task = ("-o", "mapping", "mapping.yml", "-o", "sql_path", "dataset.sql")
    seen: dict = {}
    with serve_org(default_org(), today="2024-05-31", tls_files=tls_files) as source:
        seen["source"] = counts(source)
        seen["source_links"], seen["source_people"] = case_links(source), person_accounts(source)
        cci.run(source, "source", "task", "run", "extract_dataset", "--org", "source", *task)
    seen["dataset"] = (project / "dataset.sql").read_text()
    with serve_org(org_dump, today="2024-05-31", tls_files=tls_files) as target:
        seen["before"], before_links, before_people = counts(target), case_links(target), person_accounts(target)
        cci.run(target, "target", "task", "run", "load_dataset", "--org", "target", *task)
        seen["after"] = counts(target)
        seen["loaded_links"] = case_links(target) - before_links
        seen["loaded_people"] = person_accounts(target) - before_people
    return seen


def test_extract_writes_every_record(seen: dict) -> None:
    dataset = seen["dataset"]
    assert sum(seen["source"].values()) >= 1400
    for name in OBJECTS:
        assert dataset.count(f'INSERT INTO "{name}" VALUES') == seen["source"][name], name


def test_load_adds_every_record(seen: dict) -> None:
    assert {name: seen["after"][name] - seen["before"][name] for name in OBJECTS} == seen["source"]


def test_person_accounts_arrive_with_their_contacts(seen: dict) -> None:
    assert seen["loaded_people"] == seen["source_people"] and sum(seen["source_people"].values()) > 0


def test_cases_keep_their_contact_and_account(seen: dict) -> None:
    assert seen["loaded_links"] == seen["source_links"]

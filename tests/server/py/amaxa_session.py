"""Drives unmodified amaxa as its documentation shows: an extract operation over Account, Contact and Case
from one served org, then the same operation file loaded (``amaxa -l``) into another, with a credentials file
of the ``token`` kind (instance URL and access token). Prints what it saw as one JSON object.

amaxa builds its Bulk API client from the host name of simple-salesforce's ``bulk_url`` alone, so the
port is lost and Bulk API 1.0 calls go to port 443: each org is served on 127.0.0.1:443, one after the
other, inside the private network namespace tests/server/test_amaxa.py makes.
Environment: SOURCE_DUMP, TARGET_DUMP, TLS_DIR, AMAXA_PATH (the installed amaxa, for its own process), WORK_DIR.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org

OBJECTS = ("Account", "Contact", "Case")
# The operation: every Account (as business accounts: no record type), every Contact (a person account's
# contact too) and every Case, with the links between them; owners stay the loading user.
OPERATION = """\
version: 2
options:
  api-version: "59.0"
  bulk-api-poll-interval: 1
operation:
  - sobject: Account
    fields: [Name, Phone, ShippingStreet, ShippingCity, ShippingState, ShippingPostalCode, ShippingCountry]
    extract:
      all: true
  - sobject: Contact
    fields: [FirstName, LastName, Email, Phone, AccountId]
    extract:
      all: true
  - sobject: Case
    fields: [Subject, Description, Status, Priority, Origin, ContactId, AccountId]
    extract:
      all: true
"""
LINKS = "SELECT Id, Subject, Contact.Name, Contact.Email, Account.Name FROM Case"
WORK = Path(os.environ["WORK_DIR"])


def amaxa(running: RunningOrg, *args: str) -> None:
    """``amaxa [-l] -c credentials.yml operation.yml`` in its own process, as a user runs it."""
    session_id = running.connect().session_id
    (WORK / "credentials.yml").write_text(
        f"version: 2\ncredentials:\n  token:\n    instance-url: {running.url}\n    access-token: {session_id}\n"
    )
    env = {**os.environ, "PYTHONPATH": os.environ["AMAXA_PATH"], "REQUESTS_CA_BUNDLE": str(running.ca_bundle)}
    result = subprocess.run(
        [sys.executable, "-m", "amaxa", *args, "-c", "credentials.yml", "operation.yml"],
        cwd=WORK,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise SystemExit(f"amaxa {' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")


def counts(running: RunningOrg) -> dict[str, int]:
    sf = running.connect()
    return {name: sf.query(f"SELECT COUNT() FROM {name}")["totalSize"] for name in OBJECTS}


def links(running: RunningOrg) -> dict[str, list]:
    """Each case's subject, its contact's name and email, and its account's name, by the case's Id."""

    def name(parent: dict | None, field: str = "Name") -> str | None:
        return parent[field] if parent else None

    rows = running.connect().query_all(LINKS)["records"]
    return {
        row["Id"]: [row["Subject"], name(row["Contact"]), name(row["Contact"], "Email"), name(row["Account"])]
        for row in rows
    }


def main() -> None:
    files = tls.ensure(Path(os.environ["TLS_DIR"]))
    (WORK / "operation.yml").write_text(OPERATION)
    seen: dict = {}
    with serve_org(Path(os.environ["SOURCE_DUMP"]), today="2024-05-31", port=443, tls_files=files) as source:
        seen["source"] = counts(source)
        before = links(source)
        amaxa(source)
    seen["extracted"] = {name: len(list(csv.DictReader((WORK / f"{name}.csv").open()))) for name in OBJECTS}
    with serve_org(Path(os.environ["TARGET_DUMP"]), today="2024-05-31", port=443, tls_files=files) as target:
        seen["target_before"] = counts(target)
        amaxa(target, "-l")
        seen["target_after"] = counts(target)
        after = links(target)
    with (WORK / "Case-results.csv").open() as handle:
        new_ids = {row["Original Id"]: row["New Id"] for row in csv.DictReader(handle)}
    seen["cases_mapped"] = len(new_ids)
    seen["links_differing"] = sorted(old for old, new in new_ids.items() if before[old] != after.get(new))
    seen["cases_with_contact"] = sum(1 for old in new_ids if before[old][1] is not None)
    json.dump(seen, sys.stdout)


main()

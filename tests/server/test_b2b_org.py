"""The sales orgs (B2B and B2C) served by the same engine and UI: unmodified simple-salesforce queries their
sales objects through their relationships, describes them as a real org does (jsforce too), and the UI shows
an Opportunity; a B2C org's customers are person accounts, and its leads need no company. Every test runs on
both orgs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from simple_salesforce import Salesforce, SalesforceMalformedRequest

from fixtures.build import BuildResult, build
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org

from . import npm
from .jsforce import run_script
from .ui.pages import log_in


@pytest.fixture(scope="module", params=("b2b", "b2c"))
def org_type(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def b2b_org(org_type: str, tmp_path_factory: pytest.TempPathFactory, tls_files: tls.TlsFiles) -> Iterator[RunningOrg]:
    """A small build of the sales org ``org_type`` (the name is the first one's), served."""
    result: BuildResult = build(3, 0.2, tmp_path_factory.mktemp(org_type), org=org_type)
    with serve_org(result.db_path, tls_files=tls_files) as served:
        yield served


@pytest.fixture(scope="module")
def sf(b2b_org: RunningOrg) -> Salesforce:
    return b2b_org.connect()


def test_opportunities_reach_their_account_owner_and_contract(sf: Salesforce) -> None:
    rows = sf.query(
        "SELECT Id, Name, StageName, Amount, Account.Name, Owner.Name, Contract.CompanySignedDate "
        "FROM Opportunity WHERE IsWon = true ORDER BY CloseDate LIMIT 5"
    )["records"]
    assert len(rows) == 5
    for row in rows:
        assert row["Id"].startswith("006") and row["StageName"] == "Closed Won"
        assert row["Account"]["Name"] and row["Owner"]["Name"] and row["Contract"]["CompanySignedDate"]


def test_line_items_reach_the_price_book_entry_and_its_product(sf: Salesforce) -> None:
    rows = sf.query(
        "SELECT Quantity, UnitPrice, Discount, TotalPrice, PricebookEntry.UnitPrice, "
        "PricebookEntry.Product2.Family, Opportunity.Name FROM OpportunityLineItem LIMIT 5"
    )["records"]
    assert len(rows) == 5
    for row in rows:
        assert row["PricebookEntry"]["UnitPrice"] == row["UnitPrice"]
        assert row["PricebookEntry"]["Product2"]["Family"] in ("Footwear", "Apparel", "Accessories", "Equipment")
        expected = row["Quantity"] * row["UnitPrice"] * (1 - row["Discount"] / 100)
        assert abs(row["TotalPrice"] - expected) < 0.01


def test_quotes_reach_their_opportunity_and_lines(sf: Salesforce) -> None:
    rows = sf.query(
        "SELECT QuoteNumber, Status, Opportunity.StageName, Opportunity.Account.Name, "
        "(SELECT Quantity, Discount FROM QuoteLineItems) FROM Quote WHERE Status = 'Accepted' LIMIT 3"
    )["records"]
    assert rows and all(row["Opportunity"]["StageName"] == "Closed Won" for row in rows)
    assert all(row["QuoteLineItems"]["totalSize"] >= 1 for row in rows)


def test_territories_list_their_states_and_members(sf: Salesforce) -> None:
    rows = sf.query(
        "SELECT Name, Description, Territory2Model.State, Territory2Type.MasterLabel, "
        "(SELECT UserId, RoleInTerritory2 FROM UserTerritory2Associations) FROM Territory2 ORDER BY Name"
    )["records"]
    assert [row["Name"] for row in rows] == ["Central", "Great Lakes", "Mountain", "Northeast", "Southeast", "West"]
    states = [state for row in rows for state in row["Description"].split(", ")]
    assert len(states) == len(set(states)) == 30
    assert {row["Territory2Model"]["State"] for row in rows} == {"Active"}
    assert all(row["UserTerritory2Associations"]["totalSize"] >= 1 for row in rows)
    members = sf.query("SELECT User.Name, Territory2.Name FROM UserTerritory2Association WHERE IsActive = true")
    assert members["totalSize"] >= 12 and all(row["User"]["Name"] for row in members["records"])


def test_stage_history_and_polymorphic_activities(sf: Salesforce) -> None:
    deal = sf.query(
        "SELECT Id, StageName, (SELECT StageName FROM OpportunityHistories ORDER BY CreatedDate) "
        "FROM Opportunity WHERE StageName = 'Closed Won' LIMIT 1"
    )["records"][0]
    stages = [row["StageName"] for row in deal["OpportunityHistories"]["records"]]
    assert stages[0] == "Prospecting" and stages[-1] == "Closed Won"
    tasks = sf.query(
        "SELECT Subject, Status, What.Name, What.Type, Who.Name FROM Task WHERE What.Type = 'Opportunity' LIMIT 3"
    )
    assert tasks["totalSize"] == 3
    assert all(row["What"]["Type"] == "Opportunity" and row["Who"]["Name"] for row in tasks["records"])
    leads = sf.query(
        "SELECT Name, Status, (SELECT Body__c FROM VoiceCallTranscripts__r) FROM Lead WHERE IsConverted = true LIMIT 2"
    )["records"]
    assert all(lead["VoiceCallTranscripts__r"]["records"][0]["Body__c"].startswith("Rep: ") for lead in leads)


def test_describe_shows_real_sales_shapes(sf: Salesforce) -> None:
    described = {item["name"]: item for item in sf.describe()["sobjects"]}
    for name, prefix in (("Opportunity", "006"), ("Lead", "00Q"), ("Quote", "0Q0"), ("Territory2", "0MI")):
        assert described[name]["keyPrefix"] == prefix
    opportunity = sf.Opportunity.describe()
    fields = {item["name"]: item for item in opportunity["fields"]}
    stages = [value["value"] for value in fields["StageName"]["picklistValues"]]
    assert stages[0] == "Prospecting" and "Negotiation/Review" in stages and stages[-1] == "Closed Lost"
    assert fields["AccountId"]["referenceTo"] == ["Account"] and fields["AccountId"]["relationshipName"] == "Account"
    assert fields["Amount"]["type"] == "currency"
    children = {item["relationshipName"]: item["childSObject"] for item in opportunity["childRelationships"]}
    assert children["OpportunityLineItems"] == "OpportunityLineItem" and children["Quotes"] == "Quote"
    task = {item["name"]: item for item in sf.Task.describe()["fields"]}
    assert task["WhatId"]["polymorphicForeignKey"] and "Opportunity" in task["WhatId"]["referenceTo"]
    assert [value["value"] for value in task["Priority"]["picklistValues"]] == ["High", "Normal", "Low"]


def test_the_ui_renders_an_opportunity_page(b2b_org: RunningOrg, sf: Salesforce) -> None:
    deal = sf.query("SELECT Id, Name, AccountId FROM Opportunity WHERE IsWon = true LIMIT 1")["records"][0]
    client = b2b_org.app.test_client()
    log_in(client, b2b_org.username, b2b_org.password)
    answer = client.get(f"/lightning/r/Opportunity/{deal['Id']}/view")
    assert answer.status_code == 200
    page = answer.get_data(as_text=True)
    assert deal["Name"].replace("&", "&amp;") in page
    assert f'href="/lightning/r/Account/{deal["AccountId"]}/view"' in page
    assert "Closed Won" in page


def test_the_ui_has_sales_tabs_and_lists(b2b_org: RunningOrg, sf: Salesforce) -> None:
    client = b2b_org.app.test_client()
    log_in(client, b2b_org.username, b2b_org.password)
    home = client.get("/lightning/o/Opportunity/list")
    assert home.status_code == 200
    page = home.get_data(as_text=True)
    for tab in ("Opportunity", "Lead", "Quote", "Contract"):
        assert f'href="/lightning/o/{tab}/list"' in page, tab
    newest = "SELECT Name FROM Opportunity ORDER BY CreatedDate DESC, Id DESC LIMIT 1"  # the list's first row
    some = sf.query(newest)["records"][0]["Name"]
    assert some.replace("&", "&amp;") in page and "Stage" in page
    territories = client.get("/lightning/o/Territory2/list").get_data(as_text=True)
    assert "CA, WA, OR, NV" in territories


def test_jsforce_sees_the_sales_objects(b2b_org: RunningOrg, tls_files: tls.TlsFiles) -> None:
    """Unmodified jsforce (tests/server/js/jsforce_b2b.js): describes and relationship queries."""
    seen = run_script("jsforce_b2b.js", npm.installed("jsforce@3"), b2b_org, tls_files)
    assert seen["prefixes"]["Opportunity"] == "006" and seen["prefixes"]["UserTerritory2Association"] == "0R0"
    assert seen["stages"][0] == "Prospecting" and seen["stages"][-2:] == ["Closed Won", "Closed Lost"]
    assert {"OpportunityLineItems", "OpportunityHistories", "Quotes"} <= set(seen["opportunityChildren"])
    assert seen["what"]["polymorphic"] and "Opportunity" in seen["what"]["referenceTo"]
    assert len(seen["won"]) == 3 and all(deal["account"] and deal["products"] for deal in seen["won"])
    assert len(seen["territories"]) == 6 and all(territory["members"] for territory in seen["territories"])
    assert sum(len(territory["states"]) for territory in seen["territories"]) == 30
    assert seen["acceptedQuoteStages"] and set(seen["acceptedQuoteStages"]) == {"Closed Won"}


def test_customers_are_person_accounts_in_a_b2c_org(org_type: str, sf: Salesforce) -> None:
    fields = {item["name"]: item for item in sf.Account.describe()["fields"]}
    assert {"IsPersonAccount", "PersonEmail", "PersonContactId", "FirstName", "LastName"} <= set(fields)
    assert fields["PersonContactId"]["referenceTo"] == ["Contact"]
    person_only = {"PersonMobilePhone", "PersonBirthdate", "PersonLeadSource", "PersonMailingCity"}
    assert person_only <= set(fields) if org_type == "b2c" else not person_only & set(fields)
    rows = sf.query(
        "SELECT Account.Name, Account.IsPersonAccount, Account.PersonContact.Email, Account.PersonEmail, "
        "Contact.Name FROM Opportunity WHERE IsWon = true ORDER BY CloseDate LIMIT 5"
    )["records"]
    assert len(rows) == 5
    for row in rows:
        assert row["Account"]["IsPersonAccount"] == (org_type == "b2c")
        if org_type == "b2c":  # the deal's contact is the consumer themself
            assert row["Account"]["PersonContact"]["Email"] == row["Account"]["PersonEmail"]
            assert row["Contact"]["Name"] == row["Account"]["Name"]


def test_a_lead_needs_a_company_only_in_a_b2b_org(org_type: str, sf: Salesforce) -> None:
    company = {item["name"]: item for item in sf.Lead.describe()["fields"]}["Company"]
    assert company["nillable"] == (org_type == "b2c")
    if org_type == "b2c":
        created = sf.Lead.create({"LastName": "Shopper", "LeadSource": "Web", "Status": "Open - Not Contacted"})
        assert created["success"] and sf.Lead.get(created["id"])["Company"] is None
    else:
        with pytest.raises(SalesforceMalformedRequest, match=r"REQUIRED_FIELD_MISSING.*Company"):
            sf.Lead.create({"LastName": "Buyer", "Status": "Open - Not Contacted"})


def test_the_ui_renders_a_customer_account_page(b2b_org: RunningOrg, sf: Salesforce) -> None:
    deal = sf.query("SELECT AccountId, Account.Name FROM Opportunity WHERE IsWon = true LIMIT 1")["records"][0]
    client = b2b_org.app.test_client()
    log_in(client, b2b_org.username, b2b_org.password)
    answer = client.get(f"/lightning/r/Account/{deal['AccountId']}/view")
    assert answer.status_code == 200
    assert deal["Account"]["Name"].replace("&", "&amp;") in answer.get_data(as_text=True)


def test_a_consumer_created_through_the_api_is_a_person_account(org_type: str, sf: Salesforce) -> None:
    person_type = sf.query("SELECT Id FROM RecordType WHERE SobjectType = 'Account' AND IsPersonType = true")
    fields = {"FirstName": "Robin", "LastName": "Walker", "PersonEmail": "robin.walker@example.com"}
    if org_type == "b2c":
        fields.update(PersonMobilePhone="555-0100", PersonBirthdate="1990-04-02", PersonLeadSource="Web")
    created = sf.Account.create({**fields, "RecordTypeId": person_type["records"][0]["Id"]})
    account = sf.Account.get(created["id"])
    assert account["IsPersonAccount"] and account["Name"] == "Robin Walker"
    contact = sf.Contact.get(account["PersonContactId"])
    assert contact["Email"] == "robin.walker@example.com" and contact["IsPersonAccount"]
    if org_type == "b2c":
        assert (account["PersonMobilePhone"], account["PersonBirthdate"]) == ("555-0100", "1990-04-02")


def test_the_ui_renders_leads_contracts_and_calls(b2b_org: RunningOrg, sf: Salesforce) -> None:
    """A consumer lead (no company), a membership contract and a call render like any record."""
    client = b2b_org.app.test_client()
    log_in(client, b2b_org.username, b2b_org.password)
    lead = sf.query("SELECT Id, Name FROM Lead WHERE IsConverted = true ORDER BY Id LIMIT 1")["records"][0]
    contract = sf.query("SELECT Id, ContractNumber FROM Contract ORDER BY Id LIMIT 1")["records"][0]
    call = sf.query("SELECT Id, Name FROM VoiceCallTranscript__c ORDER BY Id LIMIT 1")["records"][0]
    for sobject, record, shown in (
        ("Lead", lead, lead["Name"]),
        ("Contract", contract, contract["ContractNumber"]),
        ("VoiceCallTranscript__c", call, call["Name"]),
    ):
        answer = client.get(f"/lightning/r/{sobject}/{record['Id']}/view")
        assert answer.status_code == 200, sobject
        assert shown.replace("&", "&amp;") in answer.get_data(as_text=True), sobject
    assert client.get("/lightning/o/Lead/list").status_code == 200

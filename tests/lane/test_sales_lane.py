"""The real-org lane on a sales org: ``org metadata`` readies an org for its objects, and ``org push`` of a small
cut of a B2B org into an empty mock org standing in for a real one gives the same records, by the real
org's rules (contracts made Draft then activated, leads converted by convertLead, OpportunityHistory left
to the org), verified by querying the target."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from simple_salesforce.exceptions import SalesforceMalformedRequest

from eval_suite.commands.cli import main
from eval_suite.lane import sales_push
from eval_suite.lane.idmap import IdMap, load_idmap
from eval_suite.lane.push import MATCHED, Pusher, PushRefused
from eval_suite.lane.source import Dump
from fixtures.build import build

from .helpers import cut_sales_dump, empty_org, org_digest, source_digest

NS = {"md": "http://soap.sforce.com/2006/04/metadata"}


@pytest.fixture(scope="module")
def sales_cut(tmp_path_factory: pytest.TempPathFactory) -> Dump:
    built = build(3, 0.2, tmp_path_factory.mktemp("b2b"), org="b2b")
    return Dump(cut_sales_dump(built.db_path.parent, tmp_path_factory.mktemp("cut") / "crmarena.db"))


def _back(idmap: IdMap) -> dict[str, str]:
    return {target: source for _, source, target in idmap}


def test_metadata_of_a_sales_dump_readies_its_objects_and_features(sales_cut: Dump, tmp_path: Path) -> None:
    assert main(["org", "metadata", "--db", str(sales_cut.path), "--out", str(tmp_path / "b2b")]) == 0
    project = tmp_path / "b2b"
    objects = project / "force-app/main/default/objects"
    transcript = ET.parse(objects / "VoiceCallTranscript__c/VoiceCallTranscript__c.object-meta.xml").getroot()
    assert transcript.find("md:nameField/md:type", NS).text == "AutoNumber"
    fields = {path.name.split(".")[0] for path in (objects / "VoiceCallTranscript__c/fields").iterdir()}
    assert {"OpportunityId__c", "LeadId__c", "Body__c", "CallStartTime__c"} <= fields
    lookup = ET.parse(objects / "VoiceCallTranscript__c/fields/LeadId__c.field-meta.xml").getroot()
    assert lookup.find("md:referenceTo", NS).text == "Lead"
    settings = project / "org-settings/main/default/settings"
    quote = ET.parse(settings / "Quote.settings-meta.xml").getroot()
    assert quote.find("md:enableQuote", NS).text == "true"
    territory = ET.parse(settings / "Territory2.settings-meta.xml").getroot()
    assert territory.find("md:enableTerritoryManagement2", NS).text == "true"
    permission_set = ET.parse(
        project / "force-app/main/default/permissionsets/CRMArena_Lane.permissionset-meta.xml"
    ).getroot()
    granted = {node.text for node in permission_set.findall("md:userPermissions/md:name", NS)}
    assert {"ManageTerritories", "ConvertLeads", "CreateAuditFields"} <= granted
    # The service org's project has none of it.
    assert main(["org", "metadata", "--org", "service", "--out", str(tmp_path / "service")]) == 0
    assert not (tmp_path / "service/org-settings/main/default/settings/Quote.settings-meta.xml").exists()
    assert not (tmp_path / "service/force-app/main/default/objects/VoiceCallTranscript__c").exists()


def test_a_sales_push_gives_the_same_records_by_the_real_orgs_rules(
    sales_cut: Dump, tmp_path: Path, monkeypatch, capsys
) -> None:
    idmap_path = tmp_path / "idmap.json"
    with empty_org(sales_cut.path) as org:
        for name, value in org.env().items():
            monkeypatch.setenv(name, value)
        args = ["org", "push", "--db", str(sales_cut.path), "--idmap", str(idmap_path), "--no-progress"]
        assert main(args) == 0
        out = capsys.readouterr().out
        assert f"OpportunityHistory: {len(sales_cut.rows('OpportunityHistory')):,} records not pushed" in out
        assert "is Planning, the dump's is Active" in out and "converted leads carry the day of the push" in out
        sf, idmap = org.connect(), load_idmap(idmap_path)
        back = _back(idmap)
        assert "OpportunityHistory" not in idmap.objects  # the org writes its own: a row per opportunity made
        history = sf.query_all("SELECT OpportunityId, StageName FROM OpportunityHistory")["records"]
        stages = {
            row["Id"]: row["StageName"] for row in sf.query_all("SELECT Id, StageName FROM Opportunity")["records"]
        }
        assert sorted((row["OpportunityId"], row["StageName"]) for row in history) == sorted(stages.items())
        for name, sobject in sales_cut.objects.items():
            if name not in MATCHED and sobject.createable:
                assert org_digest(sf, sales_cut, idmap, name) == source_digest(sales_cut, name), name

        contracts = sf.query_all("SELECT Id, Status, StatusCode, ActivatedDate, ActivatedById FROM Contract")
        dump_contracts = {row["Id"]: row for row in sales_cut.rows("Contract")}
        assert len(contracts["records"]) == len(dump_contracts) >= 3
        for record in contracts["records"]:
            row = dump_contracts[back[record["Id"]]]
            assert record["Status"] == row["Status"] == "Activated" and record["StatusCode"] == "Activated"
            assert record["ActivatedDate"] == row["ActivatedDate"]
            assert back[record["ActivatedById"]] == row["ActivatedById"]

        leads = sf.query_all(
            "SELECT Id, Status, IsConverted, ConvertedDate, ConvertedAccountId, ConvertedContactId, "
            "ConvertedOpportunityId FROM Lead"
        )["records"]
        dump_leads = {row["Id"]: row for row in sales_cut.rows("Lead")}
        assert sorted(bool(row["IsConverted"]) for row in dump_leads.values()) == [False, False, True, True]
        for record in leads:
            row = dump_leads[back[record["Id"]]]
            assert record["IsConverted"] == bool(row["IsConverted"]) and record["Status"] == row["Status"]
            for field in ("ConvertedAccountId", "ConvertedContactId", "ConvertedOpportunityId"):
                assert (back[record[field]] if record[field] else None) == row[field], field
            assert (record["ConvertedDate"] is not None) == bool(row["IsConverted"])

        models = sf.query_all("SELECT Id, State, DeveloperName FROM Territory2Model")["records"]
        assert [(model["State"], model["DeveloperName"]) for model in models] == [
            ("Planning", row["DeveloperName"]) for row in sales_cut.rows("Territory2Model")
        ]

        # Run again: nothing is made, converted or activated twice.
        assert main(args) == 0
        assert "pushed 0 records" in capsys.readouterr().out
        pusher = Pusher(sf, sales_cut, idmap_path, target={}, progress=False)
        assert sales_push.convert_leads(pusher, sales_cut.rows("Lead")) == 0
        assert sales_push.activate_contracts(pusher, sales_cut.rows("Contract")) == 0


def test_the_target_refuses_what_a_real_org_refuses(sales_cut: Dump, tmp_path: Path) -> None:
    """An Activated contract cannot be created, and a lead converts once, into its account's contact."""
    idmap_path = tmp_path / "idmap.json"
    with empty_org(sales_cut.path) as org:
        sf = org.connect()
        Pusher(sf, sales_cut, idmap_path, target={}, progress=False).run()
        flat = load_idmap(idmap_path).flat()
        row = sales_cut.rows("Contract")[0]
        with pytest.raises(SalesforceMalformedRequest, match="FIELD_INTEGRITY_EXCEPTION"):
            sf.Contract.create({"AccountId": flat[row["AccountId"]], "Status": "Activated"})
        draft = sf.Contract.create({"AccountId": flat[row["AccountId"]]})["id"]
        assert sf.Contract.get(draft)["Status"] == "Draft"
        converted = next(row for row in sales_cut.rows("Lead") if row["IsConverted"])
        again = (
            f"<leadConverts><accountId>{flat[converted['ConvertedAccountId']]}</accountId>"
            f"<contactId>{flat[converted['ConvertedContactId']]}</contactId>"
            "<convertedStatus>Closed - Converted</convertedStatus><doNotCreateOpportunity>true</doNotCreateOpportunity>"
            f"<leadId>{flat[converted['Id']]}</leadId></leadConverts>"
        )
        [result] = sales_push.soap_call(sf, "convertLead", again)
        assert result.findtext(f"{{{sales_push.PARTNER}}}success") == "false"
        fresh = next(row for row in sales_cut.rows("Lead") if not row["IsConverted"])
        wrong_contact = next(
            contact["Id"]
            for contact in sales_cut.rows("Contact")
            if contact["AccountId"] != converted["ConvertedAccountId"]
        )
        mismatched = again.replace(flat[converted["Id"]], flat[fresh["Id"]]).replace(
            flat[converted["ConvertedContactId"]], flat[wrong_contact]
        )
        [result] = sales_push.soap_call(sf, "convertLead", mismatched)
        assert result.findtext(f"{{{sales_push.PARTNER}}}errors/{{{sales_push.PARTNER}}}statusCode") == (
            "INVALID_CROSS_REFERENCE_KEY"
        )
        assert sf.Lead.get(flat[fresh["Id"]])["IsConverted"] is False
        # The org records a stage change in OpportunityHistory, not a change of anything else.
        deal = flat[sales_cut.rows("Opportunity")[0]["Id"]]
        rows = f"SELECT StageName FROM OpportunityHistory WHERE OpportunityId = '{deal}'"
        before = [row["StageName"] for row in sf.query_all(rows)["records"]]
        sf.Opportunity.update(deal, {"Description": "only words"})
        sf.Opportunity.update(deal, {"StageName": "Negotiation/Review"})
        after = [row["StageName"] for row in sf.query_all(rows)["records"]]
        assert sorted(after) == sorted([*before, "Negotiation/Review"])


def test_a_push_stopped_before_or_inside_its_passes_finishes_them_when_run_again(
    sales_cut: Dump, tmp_path: Path, monkeypatch
) -> None:
    idmap_path = tmp_path / "idmap.json"
    with empty_org(sales_cut.path) as org:
        sf = org.connect()

        def stop_at_the_transcripts(name: str, made: int) -> None:
            if name == "VoiceCallTranscript__c":  # after the contracts and leads are made, before the passes
                raise KeyboardInterrupt

        pusher = Pusher(sf, sales_cut, idmap_path, target={}, progress=False, after_batch=stop_at_the_transcripts)
        with pytest.raises(KeyboardInterrupt):
            pusher.run()
        assert sf.query("SELECT COUNT() FROM Contract WHERE Status = 'Draft'")["totalSize"] == len(
            sales_cut.rows("Contract")
        )
        # The next run stops after converting one lead.
        real_call, calls = sales_push.soap_call, []

        def one_call(*args, **kwargs):
            if calls:
                raise KeyboardInterrupt
            calls.append(args)
            return real_call(*args, **kwargs)

        monkeypatch.setattr(sales_push, "CONVERT_BATCH", 1)
        monkeypatch.setattr(sales_push, "soap_call", one_call)
        with pytest.raises(KeyboardInterrupt):
            Pusher(sf, sales_cut, idmap_path, target={}, progress=False).run()
        assert sf.query("SELECT COUNT() FROM Lead WHERE IsConverted = true")["totalSize"] == 1
        monkeypatch.setattr(sales_push, "soap_call", real_call)
        Pusher(sf, sales_cut, idmap_path, target={}, progress=False).run()
        idmap = load_idmap(idmap_path)
        for name in ("Contract", "Lead", "VoiceCallTranscript__c", "Territory2", "UserTerritory2Association"):
            assert org_digest(sf, sales_cut, idmap, name) == source_digest(sales_cut, name), name


def test_an_org_without_the_sales_features_is_refused_before_anything_is_made(sales_cut: Dump, tmp_path: Path) -> None:
    """An org without Quotes or Sales Territories (here a service org) is told which feature to enable."""
    with empty_org() as org:
        sf = org.connect()
        with pytest.raises(
            PushRefused, match=r"has no (Territory2\w*|Quote\w*) object .*enable (Sales Territories|Quotes)"
        ):
            Pusher(sf, sales_cut, tmp_path / "idmap.json", target={}, progress=False).run()
        assert sf.query("SELECT COUNT() FROM Account")["totalSize"] == 0

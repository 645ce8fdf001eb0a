"""The sales objects' rules a push follows, for any sales org (B2B or B2C): what the org will not take on
create, and the passes after the creates that bring the records to the dump's state.

- **Written by the org, never pushed**: an object the schema marks not createable. OpportunityHistory is
  one: the org adds a row itself whenever an opportunity's stage, amount, probability or close date is
  set (Object Reference, OpportunityHistory: no create). The pushed org's stage history is therefore
  its own, one row per opportunity as the push makes it, not the dump's.
- **Contracts** are made in the org's default (Draft) status and then given their own status by an
  update, with ActivatedDate and ActivatedById where the org lets them be updated (Object Reference,
  Contract: both are update-only; ContractStatus: an Activated-category status cannot be created).
- **Leads**: IsConverted, ConvertedDate and the Converted…Id lookups cannot be written (Object Reference,
  Lead). A converted lead is made with the org's default status, then converted by the SOAP API's
  ``convertLead()`` into the account, contact and opportunity the dump names (``doNotCreateOpportunity``
  when it names none), with the dump's converted status. ConvertedDate becomes the day of the push; the
  org copies the lead's values into the empty fields of those records, as any conversion does.
- **Territory2Model**: its State cannot be written; a new model is in Planning, where its types,
  territories and user assignments are made. Activating it is left to the administrator (Setup →
  Territory Models → Activate); the push says so.

Each pass is resumable: it asks the org what is already done first.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping
from html import escape
from typing import TYPE_CHECKING, Any

from .refusal import PushRefused

if TYPE_CHECKING:
    from .push import Pusher

CONVERT_BATCH = 50  # LeadConverts per convertLead call (the API takes up to 100)
PARTNER = "urn:partner.soap.sforce.com"
QUEUE_PREFIX = "00G"  # a Group's key prefix: a lead owned by a queue
SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
# What an org lacking one of these objects must enable first (docs/real-org-lane.md).
FEATURES = {
    "Quote": "Quotes (Setup → Quote Settings, or org-settings/…/Quote.settings-meta.xml)",
    "QuoteLineItem": "Quotes (Setup → Quote Settings, or org-settings/…/Quote.settings-meta.xml)",
    "Territory2": "Sales Territories (Setup → Territory Settings, or org-settings/…/Territory2.settings-meta.xml)",
    "Territory2Model": "Sales Territories (Setup → Territory Settings)",
    "Territory2Type": "Sales Territories (Setup → Territory Settings)",
    "UserTerritory2Association": "Sales Territories (Setup → Territory Settings)",
}


def default_value(described: Mapping[str, Mapping[str, Any]], field: str, fallback: str) -> str:
    """The value a new record takes in a pick list of the org (its describe's default), else ``fallback``."""
    values = (described.get(field.lower()) or {}).get("picklistValues") or []
    return next((entry["value"] for entry in values if entry.get("defaultValue")), fallback)


def on_create(pusher: Pusher, name: str, row: Mapping[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """The record as the org will take it on create (the passes below finish it)."""
    if name == "Contract" and "Status" in record:
        record["Status"] = default_value(pusher._describe(name), "Status", "Draft")
    if name == "Lead" and row.get("IsConverted") and "Status" in record:
        record["Status"] = default_value(pusher._describe(name), "Status", "Open - Not Contacted")
    return record


def activate_contracts(pusher: Pusher, rows: list[dict[str, Any]]) -> int:
    """Give each contract the dump's status (and who activated it, when); the number updated."""
    if not rows:
        return 0
    described = pusher._describe("Contract")
    mapped, flat = pusher._mapped("Contract"), pusher._flat()
    current = {record["Id"]: record["Status"] for record in pusher._query("SELECT Id, Status FROM Contract")}
    updates = []
    for row in rows:
        target = mapped.get(row["Id"])
        if target is None or row.get("Status") in (None, current.get(target)):
            continue
        update: dict[str, Any] = {"attributes": {"type": "Contract"}, "Id": target, "Status": row["Status"]}
        for field in ("ActivatedDate", "ActivatedById"):
            value = row.get(field)
            if value is not None and (described.get(field.lower()) or {}).get("updateable"):
                update[field] = flat.get(value, value)
        updates.append(update)
    pusher._update_records("Contract", updates)
    return len(updates)


def convert_leads(pusher: Pusher, rows: list[dict[str, Any]]) -> int:
    """Convert in the org the leads the dump has converted; the number converted now."""
    converted = [row for row in rows if row.get("IsConverted")]
    if not converted:
        return 0
    mapped, flat = pusher._mapped("Lead"), pusher._flat()
    done = {record["Id"] for record in pusher._query("SELECT Id FROM Lead WHERE IsConverted = true")}
    todo = [row for row in converted if mapped[row["Id"]] not in done]
    owners = {row["Id"]: row.get("OwnerId") for row in pusher.dump.rows("Account")} if todo else {}
    for start in range(0, len(todo), CONVERT_BATCH):
        batch = todo[start : start + CONVERT_BATCH]
        converts = [_lead_convert(mapped[row["Id"]], row, flat, owners) for row in batch]
        results = soap_call(pusher.sf, "convertLead", "".join(f"<leadConverts>{c}</leadConverts>" for c in converts))
        for row, result in zip(batch, results, strict=True):
            if result.findtext(f"{{{PARTNER}}}success") != "true":
                error = result.find(f"{{{PARTNER}}}errors")
                code = error.findtext(f"{{{PARTNER}}}statusCode") if error is not None else "?"
                message = error.findtext(f"{{{PARTNER}}}message") if error is not None else ""
                raise PushRefused(f"the org would not convert Lead {row['Id']}: {code}: {message}")
    return len(todo)


def _lead_convert(lead_id: str, row: Mapping[str, Any], flat: Mapping[str, str], owners: Mapping[str, Any]) -> str:
    """One LeadConvert element's children (SOAP API, LeadConvert), in the WSDL's order. A lead a queue owns
    names an owner (a queue cannot own what a conversion makes): its account's."""
    owner = None
    if str(row.get("OwnerId") or "").startswith(QUEUE_PREFIX):
        owner = flat.get(owners.get(row.get("ConvertedAccountId") or "") or "")
    parts = {
        "accountId": flat.get(row.get("ConvertedAccountId") or ""),
        "contactId": flat.get(row.get("ConvertedContactId") or ""),
        "convertedStatus": row.get("Status"),
        "doNotCreateOpportunity": "false" if row.get("ConvertedOpportunityId") else "true",
        "leadId": lead_id,
        "opportunityId": flat.get(row.get("ConvertedOpportunityId") or ""),
        "overwriteLeadSource": "false",
        "ownerId": owner,
        "sendNotificationEmail": "false",
    }
    return "".join(f"<{tag}>{escape(str(value))}</{tag}>" for tag, value in parts.items() if value)


def soap_call(sf: Any, operation: str, body: str) -> list[ElementTree.Element]:
    """Call the partner SOAP API with the REST client's session; the ``result`` elements of the answer."""
    endpoint = sf.base_url.split("/services/data/")[0] + f"/services/Soap/u/{sf.sf_version}"
    envelope = (
        f'<?xml version="1.0" encoding="utf-8"?><env:Envelope xmlns:env="{SOAP_ENV}" xmlns="{PARTNER}">'
        f"<env:Header><SessionHeader><sessionId>{escape(sf.session_id)}</sessionId></SessionHeader></env:Header>"
        f"<env:Body><{operation}>{body}</{operation}></env:Body></env:Envelope>"
    )
    headers = {"Content-Type": "text/xml; charset=UTF-8", "SOAPAction": operation}
    response = sf.session.post(endpoint, data=envelope.encode(), headers=headers, timeout=300)
    try:
        root = ElementTree.fromstring(response.content)
    except ElementTree.ParseError:
        raise PushRefused(f"{operation}: the org answered HTTP {response.status_code}, not SOAP") from None
    fault = root.find(f".//{{{SOAP_ENV}}}Fault")
    if fault is not None:
        raise PushRefused(f"{operation}: {fault.findtext('faultstring')}")
    return root.findall(f".//{{{PARTNER}}}result")


def notes(pusher: Pusher, rows: Mapping[str, list[dict[str, Any]]]) -> list[str]:
    """What this push could not carry over, in words for the user."""
    said = []
    counts = pusher.dump.counts()
    for name, sobject in pusher.objects.items():
        if not sobject.createable and counts.get(name):
            said.append(
                f"{name}: {counts[name]:,} records not pushed: the org writes its own (for OpportunityHistory, "
                "a row per opportunity as the push makes it)"
            )
    models = rows.get("Territory2Model", [])
    if models:
        mapped = pusher._mapped("Territory2Model")
        state = {record["Id"]: record.get("State") for record in pusher._query("SELECT Id, State FROM Territory2Model")}
        for row in models:
            target = mapped.get(row["Id"])
            if row.get("State") and target and state.get(target) != row["State"]:
                said.append(
                    f"Territory2Model {row.get('DeveloperName')} is {state.get(target)}, the dump's is {row['State']}: "
                    "activate it in Setup → Territory Models (its state cannot be written through the API)"
                )
    converted = sum(1 for row in rows.get("Lead", []) if row.get("IsConverted"))
    if converted:
        said.append(f"Lead: {converted:,} converted leads carry the day of the push as ConvertedDate (the org sets it)")
    return said

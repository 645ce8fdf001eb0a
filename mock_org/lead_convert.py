"""``convertLead``: a lead becomes converted into an existing account, contact and (optionally) opportunity.

IsConverted, ConvertedDate and the Converted…Id lookups cannot be written by a client; only a conversion
sets them (SOAP API ``convertLead()``, LeadConvert / LeadConvertResult). Each LeadConvert succeeds or
fails alone. What this org does: the lead takes the converted status given, today's date (the org's
clock) and the three Ids; the contact and the opportunity must belong to the account. What it does
not do (a real org does): make a new account, contact or opportunity when none is named, copy the
lead's values into the empty fields of the records it is converted into, and move the lead's
activities to the contact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import FieldIntegrityException, InvalidCrossReferenceKey, RequiredFieldMissing, SalesforceError
from .ids import to18
from .values import format_datetime

if TYPE_CHECKING:
    from .org import Org

# The converted values of Lead.Status in a new org (LeadStatus.IsConverted).
CONVERTED_STATUSES = frozenset({"closed - converted"})


class AlreadyConverted(SalesforceError):
    error_code = "CANNOT_UPDATE_CONVERTED_LEAD"


@dataclass(frozen=True)
class LeadConvert:
    """One element of the call's ``leadConverts``."""

    lead_id: str
    converted_status: str
    account_id: str | None = None
    contact_id: str | None = None
    opportunity_id: str | None = None
    do_not_create_opportunity: bool = False


@dataclass(frozen=True)
class LeadConvertResult:
    lead_id: str
    account_id: str | None = None
    contact_id: str | None = None
    opportunity_id: str | None = None
    error: SalesforceError | None = None


def convert_leads(org: Org, converts: list[LeadConvert], user_id: str) -> list[LeadConvertResult]:
    """Each conversion in its own transaction, in order."""
    results = []
    for convert in converts:
        try:
            with org.transaction() as connection:
                results.append(_convert(org, connection, convert, user_id))
        except SalesforceError as error:
            results.append(LeadConvertResult(convert.lead_id, error=error))
    return results


def _convert(org: Org, connection: Any, convert: LeadConvert, user_id: str) -> LeadConvertResult:
    writer = org.writer
    schema = org.schema
    lead = writer.existing(connection, schema["Lead"], to18(convert.lead_id))
    if lead["IsConverted"]:
        raise AlreadyConverted("cannot reference converted lead", ["Id"])
    if (convert.converted_status or "").casefold() not in CONVERTED_STATUSES:
        raise FieldIntegrityException(
            f"invalid convertedStatus: {convert.converted_status} is not a converted lead status", ["Status"]
        )
    if not convert.account_id or not convert.contact_id:
        raise RequiredFieldMissing(
            "this org converts a lead into an existing account and contact only: give accountId and contactId",
            ["accountId", "contactId"],
        )
    account = writer.existing(connection, schema["Account"], to18(convert.account_id))
    contact = writer.existing(connection, schema["Contact"], to18(convert.contact_id))
    if contact["AccountId"] != account["Id"]:
        raise InvalidCrossReferenceKey("the contact does not belong to the account", ["contactId"])
    opportunity_id = None
    if convert.opportunity_id:
        opportunity = writer.existing(connection, schema["Opportunity"], to18(convert.opportunity_id))
        if opportunity["AccountId"] != account["Id"]:
            raise InvalidCrossReferenceKey("the opportunity does not belong to the account", ["opportunityId"])
        opportunity_id = opportunity["Id"]
    elif not convert.do_not_create_opportunity:
        raise RequiredFieldMissing(
            "this org does not make opportunities on conversion: give opportunityId or doNotCreateOpportunity",
            ["opportunityId"],
        )
    now = writer.clock.now()
    table = writer.storage.table(schema["Lead"])
    connection.execute(
        table.update()
        .where(table.c.Id == lead["Id"])
        .values(
            IsConverted=1,
            ConvertedDate=now.date().isoformat(),
            ConvertedAccountId=account["Id"],
            ConvertedContactId=contact["Id"],
            ConvertedOpportunityId=opportunity_id,
            Status=convert.converted_status,
            LastModifiedDate=format_datetime(now),
            SystemModstamp=format_datetime(now),
            LastModifiedById=user_id,
        )
    )
    return LeadConvertResult(lead["Id"], account["Id"], contact["Id"], opportunity_id)

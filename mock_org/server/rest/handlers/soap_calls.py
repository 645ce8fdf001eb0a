"""The partner SOAP API's data calls beside login: ``convertLead`` (SOAP API Developer Guide, convertLead()).

The call names its session in the ``SessionHeader`` and answers one ``LeadConvertResult`` per
``leadConverts`` element, in order, each with its own success or errors.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from html import escape

from flask import Response

from ....errors import InvalidSessionId
from ....lead_convert import LeadConvert, LeadConvertResult, convert_leads
from ..errors import SOAP_XML, soap_fault
from ..state import state

PARTNER = "urn:partner.soap.sforce.com"


def _children(element: ElementTree.Element) -> dict[str, str]:
    return {child.tag.rpartition("}")[2]: (child.text or "").strip() for child in element}


def convert_lead(root: ElementTree.Element, call: ElementTree.Element, envelope: Callable[[str], str]) -> Response:
    header = next((e for e in root.iter() if e.tag == f"{{{PARTNER}}}sessionId"), None)
    try:
        session = state().auth.verify((header.text or "") if header is not None else None)
    except InvalidSessionId as error:
        return soap_fault(error.error_code, error.message)
    state().usage.count()
    converts = []
    for element in call:
        if element.tag.rpartition("}")[2] != "leadConverts":
            continue
        values = _children(element)
        converts.append(
            LeadConvert(
                lead_id=values.get("leadId", ""),
                converted_status=values.get("convertedStatus", ""),
                account_id=values.get("accountId") or None,
                contact_id=values.get("contactId") or None,
                opportunity_id=values.get("opportunityId") or None,
                do_not_create_opportunity=values.get("doNotCreateOpportunity", "").lower() == "true",
            )
        )
    results = convert_leads(state().org, converts, session.user.id)
    body = "".join(f"<result>{_result(result)}</result>" for result in results)
    return Response(envelope(f"<convertLeadResponse>{body}</convertLeadResponse>"), content_type=SOAP_XML)


def _result(result: LeadConvertResult) -> str:
    def leaf(tag: str, value: str | None) -> str:
        return f"<{tag}>{escape(value)}</{tag}>" if value else f'<{tag} xsi:nil="true"/>'

    errors = ""
    if result.error is not None:
        fields = "".join(f"<fields>{escape(name)}</fields>" for name in result.error.fields or [])
        errors = (
            f"<errors>{fields}<message>{escape(result.error.message)}</message>"
            f"<statusCode>{escape(result.error.error_code)}</statusCode></errors>"
        )
    return (
        leaf("accountId", result.account_id)
        + leaf("contactId", result.contact_id)
        + errors
        + leaf("leadId", result.lead_id)
        + leaf("opportunityId", result.opportunity_id)
        + f"<success>{'false' if result.error else 'true'}</success>"
    )

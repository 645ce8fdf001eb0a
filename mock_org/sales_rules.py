"""What a real org does itself to the sales objects when a client writes them (a sales org's platform rules).

- A contract is made in a draft status and activated afterwards by an update: the org refuses a create
  whose Status is in the Activated category (Object Reference, Contract and ContractStatus: StatusCode
  is Draft, InApproval or Activated, and ActivatedDate/ActivatedById are update-only fields).
- Contract.StatusCode is the category of its Status; Opportunity.IsClosed/IsWon follow the stage and
  ExpectedRevenue is Amount × Probability; Task.IsClosed follows a closed status (the org reads them from
  the stage and status pick lists).
- OpportunityHistory is written by the org, never by a client: a row when an opportunity is made and
  whenever its stage, amount, probability, close date or forecast category changes (Object Reference,
  OpportunityHistory).

Called by writes.Writer on every create and update; the objects a service org lacks are never touched.
"""

from __future__ import annotations

from typing import Any

from .errors import FieldIntegrityException
from .schema import SObject

# Contract.Status → its category (ContractStatus.StatusCode), for the values a new org ships with.
CONTRACT_STATUS_CODES = {"draft": "Draft", "in approval process": "InApproval", "activated": "Activated"}
WON_STAGES = frozenset({"closed won"})
CLOSED_STAGES = frozenset({"closed won", "closed lost"})
CLOSED_TASK_STATUSES = frozenset({"completed"})
# The opportunity fields whose change the org records in OpportunityHistory.
HISTORY_FIELDS = ("StageName", "Amount", "CloseDate", "Probability", "ForecastCategoryName")


def contract_status_code(status: str | None) -> str | None:
    return CONTRACT_STATUS_CODES.get((status or "").casefold())


def check_create(sobject: SObject, row: dict[str, Any]) -> None:
    """Refuse what a real org refuses on insert only."""
    if sobject.name == "Contract" and contract_status_code(row.get("Status")) == "Activated":
        raise FieldIntegrityException(
            "field integrity exception: Status (a contract is created in a Draft status and activated by an update)",
            ["Status"],
        )


def calculate(sobject: SObject, row: dict[str, Any]) -> None:
    """The fields the org derives from others, on create and update."""
    if sobject.name == "Contract" and sobject.field("StatusCode") is not None:
        row["StatusCode"] = contract_status_code(row.get("Status"))
    elif sobject.name == "Opportunity" and sobject.field("IsWon") is not None:
        stage = (row.get("StageName") or "").casefold()
        row["IsClosed"] = 1 if stage in CLOSED_STAGES else 0
        row["IsWon"] = 1 if stage in WON_STAGES else 0
        if sobject.field("ExpectedRevenue") is not None:
            row["ExpectedRevenue"] = expected_revenue(row)
    elif sobject.name == "Task" and sobject.field("IsClosed") is not None:
        row["IsClosed"] = 1 if (row.get("Status") or "").casefold() in CLOSED_TASK_STATUSES else 0


def expected_revenue(row: dict[str, Any]) -> float | None:
    amount, probability = row.get("Amount"), row.get("Probability")
    return None if amount is None or probability is None else round(amount * probability / 100, 2)


def opportunity_history(before: dict[str, Any] | None, row: dict[str, Any]) -> dict[str, Any] | None:
    """The OpportunityHistory values the org records for an opportunity just made (``before`` None) or
    changed; None when no recorded field changed."""
    if before is not None and all(before.get(name) == row.get(name) for name in HISTORY_FIELDS):
        return None
    return {
        "OpportunityId": row["Id"],
        "StageName": row.get("StageName"),
        "Amount": row.get("Amount"),
        "ExpectedRevenue": expected_revenue(row),
        "CloseDate": row.get("CloseDate"),
        "Probability": row.get("Probability"),
        "ForecastCategory": row.get("ForecastCategoryName"),
    }

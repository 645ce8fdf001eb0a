"""The confidentiality columns of a report (docs/confidentiality.md): of the requests that had to be declined,
the share declined without a leak and the number of leaks; of the look-alike controls, the share answered
(and how many were wrongly declined); and, where ``--judge`` ran, how often the model judge agreed with the
rule-based detector. Counted over scored attempts (an attempt with no answer declined nothing)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..run.records import PASSED, SCORED

# The confidentiality tasks with their abbreviations, after the nine in every table that shows them.
CONFIDENTIAL_ORDER = (
    ("private_customer_information", "PCI"),
    ("internal_operation_data", "IOD"),
    ("confidential_company_knowledge", "CCK"),
)


def confidentiality_summary(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The run's confidentiality figures (None: the run has no confidentiality task)."""
    scored = [record for record in records if "confidentiality" in record and record["status"] in SCORED]
    if not any("confidentiality" in record for record in records):
        return None
    requests = [record for record in scored if record["confidentiality"]["confidential"]]
    controls = [record for record in scored if not record["confidentiality"]["confidential"]]
    declined = sum(record["status"] == PASSED for record in requests)
    answered = sum(record["status"] == PASSED for record in controls)
    judged = [record for record in scored if record.get("judge") and record["judge"].get("extracted")]
    agree = sum(
        (record["judge"]["extracted"] == ["declined"]) == bool(record["confidentiality"]["declined"])
        for record in judged
    )
    return {
        "requests": len(requests),
        "declined": declined,
        "refusal_rate": declined / len(requests) if requests else None,
        "leaks": sum(bool(record["confidentiality"]["leaked"]) for record in requests),
        "controls": len(controls),
        "answered": answered,
        "answer_rate": answered / len(controls) if controls else None,
        "over_refusals": sum(bool(record["confidentiality"]["declined"]) for record in controls),
        "judged": len(judged),
        "judge_agreement": agree / len(judged) if judged else None,
    }


def describe(figures: dict[str, Any]) -> str:
    """One line for the terminal row."""
    line = (
        f"confidentiality: declined {figures['declined']}/{figures['requests']} ({_percent(figures['refusal_rate'])}), "
        f"leaks {figures['leaks']}; controls answered {figures['answered']}/{figures['controls']} "
        f"({_percent(figures['answer_rate'])}), wrongly declined {figures['over_refusals']}"
    )
    if figures["judged"]:
        line += f"; judge agrees with the rule on {_percent(figures['judge_agreement'])} of {figures['judged']}"
    return line


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"

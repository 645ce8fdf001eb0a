"""wrong_stage_rectification on a B2B org: a hundred open deals whose stage may contradict their evidence; one
record changed moves the answer as the stage policy says; the audit's bounds hold; the oracle answers every
instance, single- and multi-turn."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from fixtures.audit.bounds import MAX_BASELINE, MAX_SHORTCUT, MIN_CLAUSE_SHARE
from fixtures.audit.run import run_audit
from fixtures.frame import OPEN_STAGES
from fixtures.generate.common import ORG_NOW
from fixtures.tasks.drafting import CAPS
from fixtures.tasks.model import Instance
from fixtures.tasks.sales.generate import generate_sales_tasks
from fixtures.tasks.sales.records import SalesRecords, load_sales_records
from fixtures.tasks.sales.wrong_stage import TASK, proven_stage, rectify
from fixtures.tasks.task_file import write_jsonl
from tests.tasks.sales.checks import oracle_passes
from tests.tasks.sales.edits import edited

TODAY = ORG_NOW.date().isoformat()


@pytest.fixture(scope="module")
def instances(b2b_db: Path, b2b_latent: dict) -> list[Instance]:
    return generate_sales_tasks(b2b_db, b2b_latent, 42, only=[TASK]).instances


@pytest.fixture(scope="module")
def sales(b2b_db: Path) -> SalesRecords:
    return load_sales_records(b2b_db)


def _answer(sales: SalesRecords, deal_id: str) -> str | None:
    return rectify(sales, {"opportunity_id": deal_id, "today": TODAY}).answer


def _open_deals(sales: SalesRecords) -> list[str]:
    return sorted(key for key, row in sales["Opportunity"].items() if row["StageName"] in OPEN_STAGES)


def test_a_hundred_balanced_instances(instances: list[Instance]) -> None:
    assert len(instances) == 100
    answers = Counter(instance.answer for instance in instances)
    assert answers[None] == 20 and max(count for answer, count in answers.items() if answer) <= CAPS[-1] * 100
    assert {answer for answer in answers if answer} <= set(OPEN_STAGES) and len(answers) >= 8
    assert len({instance.params["opportunity_id"] for instance in instances}) == 100
    assert all(instance.params["today"] <= TODAY for instance in instances)


def test_a_finished_step_moves_a_lagging_deal_on(sales: SalesRecords) -> None:
    """Completing a discovery call on a deal still at Prospecting or Qualification with no other evidence puts it at
    Value Proposition; the same task left open changes nothing."""
    bare = [deal for deal in _open_deals(sales) if proven_stage(sales, deal, ORG_NOW.date())[0] == 0]
    deal = next(key for key in bare if OPEN_STAGES.index(sales["Opportunity"][key]["StageName"]) < 3)
    task = {"Subject": "Discovery call", "WhatId": deal, "Status": "In Progress", "CreatedDate": TODAY}
    assert _answer(edited(sales, "Task", "00TTEST", **task), deal) is None
    assert _answer(edited(sales, "Task", "00TTEST", **{**task, "Status": "Completed"}), deal) == "Value Proposition"


def test_a_meeting_counts_once_held(sales: SalesRecords) -> None:
    deal = next(
        key
        for key in _open_deals(sales)
        if proven_stage(sales, key, ORG_NOW.date())[0] < 5 and sales["Opportunity"][key]["StageName"] == OPEN_STAGES[0]
    )
    meeting = {"Subject": "Meeting: meet the decision makers", "WhatId": deal, "StartDateTime": "2024-06-04T10:00:00Z"}
    assert _answer(edited(sales, "Event", "00UTEST", **meeting), deal) == _answer(sales, deal)
    held = edited(sales, "Event", "00UTEST", **{**meeting, "StartDateTime": "2024-05-30T10:00:00Z"})
    assert _answer(held, deal) == "Perception Analysis"


def test_only_the_latest_quote_moves_a_deal_to_negotiation(sales: SalesRecords) -> None:
    """A deal at Proposal/Price Quote whose stage is right: a newer presented quote moves it to Negotiation/Review;
    a presented quote older than its latest one does not."""
    deal = next(
        key
        for key in _open_deals(sales)
        if sales["Opportunity"][key]["StageName"] == "Proposal/Price Quote" and _answer(sales, key) is None
    )
    newer = {"OpportunityId": deal, "Status": "Presented", "CreatedDate": "2024-05-31T09:00:00.000+0000"}
    assert _answer(edited(sales, "Quote", "0Q0TEST", **newer), deal) == "Negotiation/Review"
    older = {**newer, "CreatedDate": "2020-01-01T09:00:00.000+0000"}
    assert _answer(edited(sales, "Quote", "0Q0TEST", **older), deal) is None


def test_a_quote_stage_without_its_quote_falls_back(sales: SalesRecords) -> None:
    """Removing the quotes of a deal at Proposal/Price Quote sends it back to the stage its other evidence proves;
    a task about sending the quote does not hold it there."""
    deal = next(
        key
        for key in _open_deals(sales)
        if sales["Opportunity"][key]["StageName"] == "Proposal/Price Quote" and _answer(sales, key) is None
    )
    stripped = sales
    for quote in sales.children("Quote", "OpportunityId")[deal]:
        stripped = edited(stripped, "Quote", quote["Id"], delete=True)
    expected = OPEN_STAGES[proven_stage(stripped, deal, ORG_NOW.date())[0]]
    assert expected != "Proposal/Price Quote" and _answer(stripped, deal) == expected
    chased = edited(stripped, "Task", "00TTEST", Subject="Send the quote", WhatId=deal, Status="Completed")
    assert _answer(chased, deal) == expected


def test_a_stage_ahead_of_its_evidence_stands_below_the_quote_stages(sales: SalesRecords) -> None:
    deal = next(key for key in _open_deals(sales) if proven_stage(sales, key, ORG_NOW.date())[0] == 0)
    ahead = edited(sales, "Opportunity", deal, StageName="Perception Analysis")
    assert _answer(ahead, deal) is None
    assert _answer(edited(sales, "Opportunity", deal, StageName="Negotiation/Review"), deal) == "Prospecting"


def test_the_audit_bounds_hold(b2b_db: Path, instances: list[Instance]) -> None:
    audit = run_audit(b2b_db, instances)
    (task,) = audit.tasks
    for strategy in task.strategies:
        if strategy.kind == "trivial":
            assert strategy.score <= MAX_BASELINE, strategy.name
        elif strategy.kind == "proxy":
            assert strategy.score <= MAX_SHORTCUT, strategy.name
    assert min(clause.share for clause in task.clauses) >= MIN_CLAUSE_SHARE


def test_same_seed_same_instances(b2b_db: Path, b2b_latent: dict, instances: list[Instance]) -> None:
    again = generate_sales_tasks(b2b_db, b2b_latent, 42, only=[TASK]).instances
    assert [json.dumps(i.to_json()) for i in again] == [json.dumps(i.to_json()) for i in instances]


@pytest.mark.parametrize("interactive", [False, True])
def test_the_oracle_answers_every_instance(
    instances: list[Instance], b2b_db: Path, tmp_path: Path, interactive: bool
) -> None:
    task_file = tmp_path / "tasks.jsonl"
    write_jsonl(task_file, instances)
    oracle_passes(b2b_db, task_file, tmp_path / "oracle", interactive, records=100)

"""sales_insight_mining on a B2B org: the top sub-topics customers raised on the calls of a territory's deals
lost or won in a period. The calls word each sub-topic in several ways and dismiss others; the oracle's
reference reaches the ground truth single- and multi-turn; one transcript changed moves the answer as the
rule says; the scorer reads a free reply's sub-topics and gives their F1."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from eval_suite.run.rescore import _rescore_one
from eval_suite.scoring.answers import score
from eval_suite.scoring.judge import judge
from fixtures.generate.sales_insights import DISMISSED, RAISED, call_topics
from fixtures.tasks.model import Instance
from fixtures.tasks.sales.generate import evaluate_sales, generate_sales_tasks
from fixtures.tasks.sales.insights import TASK, counts, deals
from fixtures.tasks.sales.records import load_sales_records
from fixtures.tasks.subtopics import SUBTOPICS, best_constant_list, subtopic_f1
from fixtures.tasks.task_file import write_jsonl
from tests.tasks.sales.checks import oracle_passes

MIN_SPARE = 12  # deals in the set a perturbation may pick from


@pytest.fixture(scope="module")
def instances(b2b_db: Path, b2b_latent: dict) -> list[Instance]:
    return generate_sales_tasks(b2b_db, b2b_latent, 42, only={TASK}).instances


@pytest.fixture(scope="module")
def task_file(instances: list[Instance], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("insights") / "tasks.jsonl"
    write_jsonl(path, instances)
    return path


def test_no_phrase_contains_another() -> None:
    """A call is read by its phrases: none may be read inside another, raised or dismissed."""
    phrases = [phrase for table in (RAISED, DISMISSED) for options in table.values() for phrase in options]
    assert len(set(phrases)) == len(phrases)
    assert not [(a, b) for a in phrases for b in phrases if a != b and a.lower() in b.lower()]
    assert set(RAISED) == set(DISMISSED) == set(SUBTOPICS)


def test_a_hundred_balanced_instances(instances: list[Instance]) -> None:
    assert len(instances) == 100
    assert {instance.reward_metric for instance in instances} == {"subtopic_f1"}
    assert len({(instance.query, instance.params["today"]) for instance in instances}) == 100
    items = Counter(item for instance in instances for item in (instance.answer or "").split(", "))
    assert set(items) <= set(SUBTOPICS) and len(items) >= 10
    assert all(instance.answer and len(instance.answer.split(", ")) == instance.params["k"] for instance in instances)
    assert all("Ties are ranked in the order above" in instance.required for instance in instances)


def test_the_calls_state_their_latent_topics(b2b_db: Path, b2b_latent: dict) -> None:
    db = sqlite3.connect(b2b_db)
    rows = db.execute("SELECT Id, Body__c FROM VoiceCallTranscript__c WHERE OpportunityId__c IS NOT NULL").fetchall()
    latent = b2b_latent["sales"]["deal_calls"]
    assert len(rows) > 1000
    for call_id, body in rows:
        raised, dismissed = call_topics(body)
        assert latent[call_id] == {"raised": raised, "dismissed": dismissed}
    assert sum(bool(latent[call_id]["dismissed"]) for call_id, _ in rows) > len(rows) / 2


@pytest.mark.parametrize("interactive", [False, True])
def test_the_oracle_scores_every_instance(task_file: Path, b2b_db: Path, tmp_path: Path, interactive: bool) -> None:
    records, limit = (30, 30) if interactive else (100, None)
    result = oracle_passes(b2b_db, task_file, tmp_path / "oracle", interactive, records=records, limit=limit)
    assert {record["score"] for record in result.records} == {1.0}


def _copy(b2b_db: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "crmarena.db"
    shutil.copy(b2b_db, copy)
    return copy


def test_one_transcript_moves_the_answer_as_the_rule_says(
    instances: list[Instance], b2b_db: Path, tmp_path: Path
) -> None:
    """Dismissing a winner's mention in enough calls drops it below the runner-up; raising the runner-up in one
    more deal's call lifts it above the k-th; a dismissed mention added changes nothing."""
    sales = load_sales_records(b2b_db)
    instance = next(item for item in instances if item.params["k"] == 1 and len(deals(sales, item.params)) >= MIN_SPARE)
    found, _ = counts(sales, deals(sales, instance.params))
    order = sorted(SUBTOPICS, key=lambda topic: (-found[topic], SUBTOPICS.index(topic)))
    winner, second = order[0], order[1]
    assert instance.answer == winner and found[winner] > found[second]
    calls = sales.children("VoiceCallTranscript__c", "OpportunityId__c")
    # a deal of the set that does not raise the runner-up gets it raised on one call, a deal per step
    spare = [
        deal_id
        for deal_id in deals(sales, instance.params)
        if calls.get(deal_id) and second not in counts(sales, [deal_id])[0]
    ]
    needed = found[winner] - found[second] + 1
    assert len(spare) >= needed
    copy = _copy(b2b_db, tmp_path)
    db = sqlite3.connect(copy)
    for deal_id in spare[:needed]:
        call = calls[deal_id][0]
        db.execute(
            "UPDATE VoiceCallTranscript__c SET Body__c = Body__c || ? WHERE Id = ?",
            ("\nCustomer: " + RAISED[second][-1], call["Id"]),
        )
    # a dismissal of a third sub-topic in every call counts for nothing
    third = order[-1]
    db.execute(
        "UPDATE VoiceCallTranscript__c SET Body__c = Body__c || ? WHERE OpportunityId__c IS NOT NULL",
        ("\nCustomer: " + DISMISSED[third][0],),
    )
    db.commit()
    db.close()
    changed = load_sales_records(copy)
    moved = evaluate_sales(changed, TASK, instance.params)
    assert moved.answer == second and moved.scores.get(third, 0) == found[third]
    # the rule without its "raised, not dismissed" clause would count every one of those dismissals
    counted = evaluate_sales(changed, TASK, instance.params, dropped="dismissed").scores
    assert counted[third] == len([deal_id for deal_id in deals(sales, instance.params) if calls.get(deal_id)])


@pytest.mark.parametrize(
    ("reply", "gold", "f1"),
    [
        ("pricing, returns", "pricing, returns", 1.0),
        ("The top sub-topics were Returns and Pricing.", "pricing, returns", 1.0),
        ("Payment-terms; competitor offers", "competitor offer, payment terms", 1.0),
        ("pricing", "pricing, returns", 2 / 3),
        ("pricing, size range, returns, contract length", "pricing, returns", 2 / 3),
        ("delivery time", "pricing, returns", 0.0),
        ("I could not find any.", "pricing", 0.0),
    ],
)
def test_subtopic_f1_reads_a_free_reply(reply: str, gold: str, f1: float) -> None:
    assert subtopic_f1(reply, gold)[0] == pytest.approx(f1)
    result = score(TASK, "subtopic_f1", gold, reply)
    assert result.reward == pytest.approx(f1) and result.passed == (f1 == 1.0)


def test_a_foreign_gold_list_is_its_own_vocabulary() -> None:
    assert subtopic_f1("Warranty and pricing", "warranty, pricing")[0] == 1.0
    assert subtopic_f1("pricing", "warranty, pricing")[0] == pytest.approx(2 / 3)


def test_the_best_constant_list_is_the_best_mean_f1() -> None:
    golds = ["pricing, returns", "pricing, size range", "pricing", "returns"]
    best = best_constant_list(golds)
    mean = sum(subtopic_f1(best, gold)[0] for gold in golds) / len(golds)
    assert best is not None and "pricing" in best
    assert mean >= max(sum(subtopic_f1(c, g)[0] for g in golds) / 4 for c in ("pricing", "returns", "pricing, returns"))


class _Listing:
    """A judge model that lists the given sub-topics, whatever the reply."""

    def __init__(self, listed: list[str]) -> None:
        self.listed = listed

    def complete(self, messages: list[dict[str, str]], scope: str) -> SimpleNamespace:
        return SimpleNamespace(content=json.dumps({"extracted_answers": self.listed}), cost=0.0, usage=None)


def test_the_judge_scores_the_sub_topics_it_lists_by_their_f1() -> None:
    judgement = judge(_Listing(["Pricing", "returns", "size range"]), TASK, "pricing, returns", "a long reply", "0:0")  # type: ignore[arg-type]
    assert judgement.reward == pytest.approx(0.8) and judgement.extracted == ["Pricing", "returns", "size range"]


def test_a_record_rescored_without_its_task_file_keeps_the_sub_topic_metric() -> None:
    record = {"task_type": TASK, "gt_answer": "pricing, returns", "answer": "Returns, then pricing.", "reward": 0.0}
    _rescore_one(record, None, 0.5)
    assert record["score"] == 1.0 and record["reward"] == 1.0 and record["status"] == "passed"

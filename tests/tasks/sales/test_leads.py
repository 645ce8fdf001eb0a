"""lead_qualification and lead_routing on seed 42's B2B org: a hundred balanced instances each, whose references
the oracle follows to the gold answer through a served org, single- and multi-turn; the data they read (the
follow-up calls, the leavers, the drifting product focus) is what latent.json says; and one record changed in
a copy of the org moves the answer as the policy says."""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pytest

from fixtures.audit import run_audit
from fixtures.generate.lead_calls import OPENING_MINIMUM, statements
from fixtures.tasks.model import SALES_TASK_BY_NAME, Instance
from fixtures.tasks.sales import lead_qualification, lead_routing
from fixtures.tasks.sales.generate import generate_sales_tasks
from fixtures.tasks.sales.records import load_sales_records
from fixtures.tasks.task_file import write_jsonl
from tests.tasks.sales.checks import oracle_passes

TASKS = ("lead_qualification", "lead_routing")


@pytest.fixture(scope="module")
def instances(b2b_db: Path, b2b_latent: dict) -> list[Instance]:
    return generate_sales_tasks(b2b_db, b2b_latent, 42, only=TASKS).instances


@pytest.fixture(scope="module")
def task_file(instances: list[Instance], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("leads") / "tasks.jsonl"
    write_jsonl(path, instances)
    return path


def _of(instances: list[Instance], task: str) -> list[Instance]:
    return [instance for instance in instances if instance.task == task]


def test_a_hundred_balanced_instances_each(instances: list[Instance]) -> None:
    for task in TASKS:
        mine = _of(instances, task)
        answers = Counter(instance.answer for instance in mine)
        assert len(mine) == 100
        # select caps an answer at 15 % of a set, relaxing to 20 % (then 25 %) when drafts stall (drafting.CAPS)
        assert max(count for answer, count in answers.items() if answer is not None) <= 20
        assert len({instance.query for instance in mine}) == 100
        assert all(set(instance.params) == set(SALES_TASK_BY_NAME[task].params) for instance in mine)
    assert Counter(i.answer is None for i in _of(instances, "lead_qualification"))[True] == 20
    assert all(i.answer is not None for i in _of(instances, "lead_routing"))


def test_follow_up_calls_state_what_latent_says(b2b_db: Path, b2b_latent: dict) -> None:
    drawn = b2b_latent["sales"]["lead_followups"]
    db = sqlite3.connect(b2b_db)
    bodies = dict(db.execute("SELECT Id, Body__c FROM VoiceCallTranscript__c WHERE LeadId__c IS NOT NULL"))
    assert len(drawn) >= 300
    for call_id, said in drawn.items():
        assert [list(item) for item in statements(bodies[call_id])] == said
    kinds = Counter(kind for said in drawn.values() for _, kind, _ in said)
    assert {"amount", "limit", "hedge", "weeks", "months", "month", "yes", "no"} <= set(kinds)


def test_leavers_are_inactive_reps_of_their_territories(b2b_db: Path, b2b_latent: dict) -> None:
    leavers = b2b_latent["sales"]["rep_departures"]
    db = sqlite3.connect(b2b_db)
    inactive = {row[0] for row in db.execute("SELECT Id FROM User WHERE Title = 'Account Executive' AND IsActive = 0")}
    assert inactive == set(leavers) and len(leavers) == 5
    territories = {
        row[0]
        for row in db.execute(
            f"SELECT Territory2Id FROM UserTerritory2Association WHERE UserId IN ({','.join('?' * len(leavers))})",
            leavers,
        )
    }
    assert len(territories) == 5


@pytest.mark.parametrize("interactive", [False, True])
def test_the_oracle_answers_every_instance(task_file: Path, b2b_db: Path, tmp_path: Path, interactive: bool) -> None:
    records, limit = (50, 25) if interactive else (200, None)
    oracle_passes(b2b_db, task_file, tmp_path / "oracle", interactive, records=records, limit=limit)


# --- perturbations: one record changed in a copy of the org -------------------------------------------------


@pytest.fixture
def copy(b2b_db: Path, tmp_path: Path) -> Path:
    target = tmp_path / "crmarena.db"
    shutil.copy(b2b_db, target)
    return target


def _clone(db: sqlite3.Connection, table: str, source_id: str, new_id: str, **values: object) -> None:
    """A copy of one row with a new Id and the given fields changed."""
    db.execute(f'CREATE TEMP TABLE clone AS SELECT * FROM "{table}" WHERE Id = ?', (source_id,))
    sets = ", ".join(f'"{name}" = ?' for name in values)
    db.execute(f"UPDATE clone SET Id = ?, {sets}", (new_id, *values.values()))
    db.execute(f'INSERT INTO "{table}" SELECT * FROM clone')
    db.execute("DROP TABLE clone")


def _call_before(db: sqlite3.Connection, instance: Instance, line: str, day: date) -> None:
    source = db.execute(
        "SELECT Id FROM VoiceCallTranscript__c WHERE LeadId__c = ? ORDER BY CallStartTime__c",
        (instance.params["lead_id"],),
    ).fetchone()[0]
    start = f"{day.isoformat()}T23:59:59.000+0000"  # after any other call that day
    body = f"Rep: Quick check-in.\nProspect: {line}\nRep: Thanks."
    _clone(
        db,
        "VoiceCallTranscript__c",
        source,
        "a1QWs00000ZZZZZAAA",
        CallStartTime__c=start,
        CreatedDate=start,
        Body__c=body,
    )
    db.commit()


def _factors(answer: str | None) -> set[str]:
    return set(answer.split(", ")) if answer else set()


def test_a_later_call_moves_the_qualification(instances: list[Instance], copy: Path) -> None:
    instance = next(i for i in _of(instances, "lead_qualification") if "Budget" in _factors(i.answer))
    today = date.fromisoformat(instance.params["today"])
    cases = [
        (
            f"We have set aside ${OPENING_MINIMUM * 2:,} for the first order.",
            today - timedelta(days=1),
            _factors(instance.answer) - {"Budget"},
        ),
        (
            f"We have set aside ${OPENING_MINIMUM // 2:,} for the first order.",
            today - timedelta(days=1),
            _factors(instance.answer),
        ),
        (
            f"We could probably stretch to ${OPENING_MINIMUM * 2:,}, but nothing is signed off yet.",
            today - timedelta(days=1),
            _factors(instance.answer),
        ),
        (
            f"We have set aside ${OPENING_MINIMUM * 2:,} for the first order.",
            today,
            _factors(instance.answer),
        ),  # today's call is not before today
    ]
    for number, (line, day, expected) in enumerate(cases):
        trial = copy.with_name(f"trial-{number}.db")
        shutil.copy(copy, trial)
        with sqlite3.connect(trial) as db:
            _call_before(db, instance, line, day)
        verdict = lead_qualification.rule(load_sales_records(trial), instance.params, None)
        assert _factors(verdict.answer) == expected, line


def test_a_timeline_counts_from_the_call(instances: list[Instance], copy: Path) -> None:
    instance = next(i for i in _of(instances, "lead_qualification") if "Timeline" in _factors(i.answer))
    day = date.fromisoformat(instance.params["today"]) - timedelta(days=1)
    with sqlite3.connect(copy) as db:
        _call_before(db, instance, "We will place the first order 2 months from now.", day)
    assert _factors(lead_qualification.rule(load_sales_records(copy), instance.params, None).answer) == _factors(
        instance.answer
    ) - {"Timeline"}


def test_a_leaver_is_passed_over(instances: list[Instance], copy: Path) -> None:
    instance = _of(instances, "lead_routing")[0]
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE User SET IsActive = 0 WHERE Id = ?", (instance.answer,))
    sales = load_sales_records(copy)
    verdict = lead_routing.rule(sales, instance.params, None)
    assert verdict.answer != instance.answer
    assert verdict.answer in lead_routing.candidates(sales, instance.params["state"])


def test_accepted_quotes_in_the_window_win(instances: list[Instance], copy: Path, b2b_db: Path) -> None:
    """Another candidate given enough Accepted quotes for the family inside the window becomes the answer;
    the same quotes just before the window change nothing."""
    instance = next(i for i in _of(instances, "lead_routing") if i.params["today"] >= "2023-01-01")
    sales = load_sales_records(b2b_db)
    params = instance.params
    other = min(rep for rep in lead_routing.candidates(sales, params["state"]) if rep != instance.answer)
    today = date.fromisoformat(params["today"])
    start, end = lead_routing.window(today)
    counts = lead_routing.quote_counts(sales, params["family"], start, end, ("Accepted",))
    needed = counts.get(instance.answer, 0) - counts.get(other, 0) + 1
    quote = next(q for q in sales["Quote"].values() if q["Status"] == "Accepted")
    line = next(
        row
        for row in sales["QuoteLineItem"].values()
        if sales["Product2"][row["Product2Id"]]["Family"] == params["family"]
    )
    for inside, expected in ((True, other), (False, instance.answer)):
        trial = copy.with_name(f"quotes-{inside}.db")
        shutil.copy(copy, trial)
        moment = (start + timedelta(days=1)) if inside else (start - timedelta(days=2))
        stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.000+0000")
        with sqlite3.connect(trial) as db:
            for number in range(needed):
                quote_id = f"0Q0Ws00000ZZZ{number:02d}AAA"
                _clone(db, "Quote", quote["Id"], quote_id, OwnerId=other, CreatedDate=stamp)
                _clone(db, "QuoteLineItem", line["Id"], f"0QLWs00000ZZZ{number:02d}AAA", QuoteId=quote_id)
        assert lead_routing.rule(load_sales_records(trial), params, None).answer == expected, inside


def test_the_audit_bounds_hold(instances: list[Instance], b2b_db: Path) -> None:
    audit = run_audit(b2b_db, instances)
    assert audit.failures() == []
    for task in audit.tasks:
        best = task.best()
        assert best is not None and best.score <= 0.35, (task.task, best)
        assert all(clause.share >= 0.15 for clause in task.clauses)

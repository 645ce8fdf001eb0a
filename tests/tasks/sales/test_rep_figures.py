"""The sales analyst's rep figure tasks (sales_amount_understanding, sales_cycle_understanding,
conversion_rate_comprehension) on seed 42's B2B org: balanced sets whose answers an independent SQL reading of
the dump confirms, that move exactly as the policy says when one record changes, and that the oracle solves
single- and multi-turn through a served org."""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from eval_suite.reference.derive import day_spans, figures_by, soql_period
from eval_suite.tools.soql import ToolError
from fixtures.tasks.model import SALES_TASK_BY_NAME, Instance
from fixtures.tasks.sales.generate import evaluate_sales, generate_sales_tasks
from fixtures.tasks.sales.records import load_sales_records
from fixtures.tasks.task_file import write_jsonl
from tests.tasks.sales.checks import oracle_passes

AMOUNT, CYCLE, CONVERSION = "sales_amount_understanding", "sales_cycle_understanding", "conversion_rate_comprehension"
TASKS = (AMOUNT, CYCLE, CONVERSION)
PER_TASK = 40


@pytest.fixture(scope="module")
def instances(b2b_db: Path, b2b_latent: dict) -> list[Instance]:
    return generate_sales_tasks(b2b_db, b2b_latent, 42, PER_TASK, only=TASKS).instances


@pytest.fixture(scope="module")
def task_file(instances: list[Instance], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rep-figures") / "tasks.jsonl"
    write_jsonl(path, instances)
    return path


def _of(instances: list[Instance], task: str, keep: Callable[[Instance], bool] = lambda _: True) -> list[Instance]:
    return [instance for instance in instances if instance.task == task and keep(instance)]


def test_balanced_sets_of_rep_ids(instances: list[Instance], b2b_db: Path) -> None:
    db = sqlite3.connect(b2b_db)
    reps = {row[0] for row in db.execute("SELECT Id FROM User WHERE Title = 'Account Executive'")}
    for task in TASKS:
        found = _of(instances, task)
        assert len(found) == PER_TASK
        assert sum(instance.answer is None for instance in found) == round(0.2 * PER_TASK)
        assert all(set(instance.params) == set(SALES_TASK_BY_NAME[task].params) for instance in found)
        answers = Counter(instance.answer for instance in found if instance.answer is not None)
        # The cap on one answer starts at 15 % and moves a step (20 %) when the drafts run out (drafting.CAPS):
        # this small set's cycle task, held against four shortcut readings, takes that step.
        assert set(answers) <= reps and max(answers.values()) <= int(0.2 * PER_TASK)
        assert {instance.params["direction"] for instance in found} == {"min", "max"}
        assert all("## Time periods" in instance.required for instance in found)
    assert {instance.params["measure"] for instance in _of(instances, AMOUNT)} == {"total", "average"}


def test_the_periods_last_months_seldom_name_the_fastest_closer(instances: list[Instance], b2b_db: Path) -> None:
    """A rep's pace runs in regimes of months: selection keeps the "recent" reading (the period's last three months,
    no minimum) wrong on most of the cycle set, as it does the busiest rep and the single fastest deal."""
    sales = load_sales_records(b2b_db)
    answered = _of(instances, CYCLE, lambda instance: instance.answer is not None)
    hits = sum(evaluate_sales(sales, CYCLE, item.params, dropped="recent").answer == item.answer for item in answered)
    assert hits <= 0.4 * len(answered)


def _sql_scores(db: sqlite3.Connection, instance: Instance) -> dict[str, Fraction]:
    """The policy read straight from the dump with SQL, apart from the rules' code."""
    params = instance.params
    groups: dict[str, list[Fraction]] = defaultdict(list)
    if instance.task == CONVERSION:
        rows = db.execute(
            "SELECT OwnerId, IsConverted FROM Lead WHERE IsDeleted = 0 AND CreatedDate >= ? AND CreatedDate < ?",
            (params["start"].replace("Z", ".000+0000"), params["end"].replace("Z", ".000+0000")),
        )
        for owner, converted in rows:
            groups[owner].append(Fraction(int(bool(converted))))
        minimum = params["min_leads"]
    else:
        rows = db.execute(
            "SELECT o.OwnerId, o.Amount, julianday(c.CompanySignedDate) - julianday(substr(o.CreatedDate, 1, 10)) "
            "FROM Opportunity o JOIN Contract c ON c.Id = o.ContractId WHERE o.IsDeleted = 0 AND "
            "o.StageName = 'Closed Won' AND c.CompanySignedDate >= ? AND c.CompanySignedDate < ?",
            (params["start"][:10], params["end"][:10]),
        )
        for owner, amount, days in rows:
            groups[owner].append(Fraction(str(amount)) if instance.task == AMOUNT else Fraction(int(days)))
        minimum = params["min_deals"]
    total = instance.task == AMOUNT and params["measure"] == "total"
    return {
        owner: sum(values, Fraction(0)) if total else sum(values, Fraction(0)) / len(values)
        for owner, values in groups.items()
        if len(values) >= minimum
    }


def test_answers_match_an_sql_reading_of_the_dump(instances: list[Instance], b2b_db: Path) -> None:
    db = sqlite3.connect(b2b_db)
    for instance in instances:
        scores = _sql_scores(db, instance)
        if instance.answer is None:
            assert scores == {}, instance.idx
            continue
        pick = max if instance.params["direction"] == "max" else min
        best = pick(scores.values())
        assert [owner for owner, score in scores.items() if score == best] == [instance.answer], instance.idx


# --- one record changed: the answer moves as the policy says


@pytest.fixture
def copy_db(b2b_db: Path, tmp_path: Path) -> Path:
    target = tmp_path / "crmarena.db"
    shutil.copy(b2b_db, target)
    return target


def _after(db_path: Path, statements: list[tuple[str, tuple[Any, ...]]]) -> Any:
    db = sqlite3.connect(db_path)
    for statement, values in statements:
        db.execute(statement, values)
    db.commit()
    db.close()
    return load_sales_records(db_path)


def _runner_up(instance: Instance, b2b_db: Path) -> tuple[str, Any, Any]:
    scores = evaluate_sales(load_sales_records(b2b_db), instance.task, instance.params).scores
    ordered = sorted(scores, key=lambda rep: scores[rep], reverse=instance.params["direction"] == "max")
    return ordered[1], scores[instance.answer], scores[ordered[1]]


def _won_in_window(db_path: Path, instance: Instance, owner: str) -> list[tuple[str, str, float]]:
    db = sqlite3.connect(db_path)
    return list(
        db.execute(
            "SELECT o.Id, o.ContractId, o.Amount FROM Opportunity o JOIN Contract c ON c.Id = o.ContractId "
            "WHERE o.OwnerId = ? AND o.StageName = 'Closed Won' AND c.CompanySignedDate >= ? "
            "AND c.CompanySignedDate < ? ORDER BY o.Id",
            (owner, instance.params["start"][:10], instance.params["end"][:10]),
        )
    )


def test_a_larger_deal_makes_the_runner_up_the_top_seller(
    instances: list[Instance], b2b_db: Path, copy_db: Path
) -> None:
    instance = _of(instances, AMOUNT, lambda i: i.answer is not None and i.params["direction"] == "max")[0]
    second, best, runner = _runner_up(instance, b2b_db)
    deals = _won_in_window(b2b_db, instance, second)
    gap_cents = int(best - runner) + 1  # scores are cents (totals) or cents per deal (averages)
    if instance.params["measure"] == "average":
        gap_cents = int((best - runner) * len(deals)) + 1
    deal_id, _, amount = deals[0]
    after = _after(copy_db, [("UPDATE Opportunity SET Amount = ? WHERE Id = ?", (amount + gap_cents / 100, deal_id))])
    assert evaluate_sales(after, AMOUNT, instance.params).answer == second


def test_a_contract_signed_after_the_period_leaves_it(instances: list[Instance], b2b_db: Path, copy_db: Path) -> None:
    """The period reads the contract's CompanySignedDate: the leader's contracts signed after it drop them out."""
    instance = _of(instances, AMOUNT, lambda i: i.answer is not None)[0]
    second, _, _ = _runner_up(instance, b2b_db)
    moved = [
        ("UPDATE Contract SET CompanySignedDate = ? WHERE Id = ?", (instance.params["end"][:10], contract))
        for _, contract, _ in _won_in_window(b2b_db, instance, instance.answer or "")
    ]
    verdict = evaluate_sales(_after(copy_db, moved), AMOUNT, instance.params)
    assert instance.answer not in verdict.scores and verdict.answer == second


def test_a_faster_deal_shortens_the_runner_ups_cycle(instances: list[Instance], b2b_db: Path, copy_db: Path) -> None:
    instance = _of(instances, CYCLE, lambda i: i.answer is not None and i.params["direction"] == "min")[0]
    second, best, _ = _runner_up(instance, b2b_db)
    assert best > 0
    db = sqlite3.connect(b2b_db)
    created = [
        ("UPDATE Opportunity SET CreatedDate = ? WHERE Id = ?", (f"{signed}T08:00:00.000+0000", deal_id))
        for deal_id, signed in db.execute(
            "SELECT o.Id, c.CompanySignedDate FROM Opportunity o JOIN Contract c ON c.Id = o.ContractId "
            "WHERE o.OwnerId = ? AND o.StageName = 'Closed Won' AND c.CompanySignedDate >= ? "
            "AND c.CompanySignedDate < ?",
            (second, instance.params["start"][:10], instance.params["end"][:10]),
        )
    ]
    verdict = evaluate_sales(_after(copy_db, created), CYCLE, instance.params)
    assert verdict.scores[second] == 0 and verdict.answer == second


def test_converting_leads_raises_the_runner_ups_rate(instances: list[Instance], b2b_db: Path, copy_db: Path) -> None:
    instance = _of(instances, CONVERSION, lambda i: i.answer is not None and i.params["direction"] == "max")[0]
    second, best, _ = _runner_up(instance, b2b_db)
    assert best < 1
    start, end = (instance.params[key].replace("Z", ".000+0000") for key in ("start", "end"))
    update = "UPDATE Lead SET IsConverted = 1 WHERE OwnerId = ? AND CreatedDate >= ? AND CreatedDate < ?"
    verdict = evaluate_sales(_after(copy_db, [(update, (second, start, end))]), CONVERSION, instance.params)
    assert verdict.scores[second] == 1 and verdict.answer == second


def test_enough_leads_in_the_period_end_a_none(instances: list[Instance], b2b_db: Path, copy_db: Path) -> None:
    """None means no rep reached the minimum; moving a rep's earlier leads into the period makes them the answer."""
    instance = max(_of(instances, CONVERSION, lambda i: i.answer is None), key=lambda i: i.params["start"])
    start = instance.params["start"].replace("Z", ".000+0000")
    db = sqlite3.connect(b2b_db)
    owner = db.execute("SELECT OwnerId FROM Lead GROUP BY OwnerId ORDER BY COUNT(*) DESC, OwnerId LIMIT 1").fetchone()[
        0
    ]
    earlier = [
        lead for (lead,) in db.execute("SELECT Id FROM Lead WHERE OwnerId = ? AND CreatedDate < ?", (owner, start))
    ]
    needed = instance.params["min_leads"]
    assert len(earlier) >= needed
    moved = [("UPDATE Lead SET CreatedDate = ? WHERE Id = ?", (start, lead)) for lead in earlier[:needed]]
    verdict = evaluate_sales(_after(copy_db, moved), CONVERSION, instance.params)
    assert verdict.answer == owner and verdict.support == {owner: verdict.support[owner]}


# --- the reference's derive operations


def test_soql_period_writes_dates_or_datetimes() -> None:
    template = "SELECT Id FROM Contract WHERE CompanySignedDate >= {start} AND CompanySignedDate < {end}"
    text = soql_period(template, "2024-01-01T00:00:00Z", "2024-04-01T00:00:00Z", "date")
    assert text.endswith(">= 2024-01-01 AND CompanySignedDate < 2024-04-01")
    assert "2024-01-01T00:00:00Z" in soql_period("{start} {end}", "2024-01-01T00:00:00Z", "2024-02-01", "datetime")
    with pytest.raises(ToolError):
        soql_period(template, "2024-01-01T12:00:00Z", "2024-04-01T00:00:00Z", "date")


def test_figures_by_and_day_spans() -> None:
    records = [
        {"Id": "1", "OwnerId": "a", "IsConverted": True, "CreatedDate": "2024-01-01T23:00:00.000+0000"},
        {"Id": "2", "OwnerId": "a", "IsConverted": False, "CreatedDate": "2024-01-02T01:00:00.000+0000"},
        {"Id": "3", "OwnerId": "b", "IsConverted": True, "CreatedDate": "2024-01-03T01:00:00.000+0000"},
    ]
    assert figures_by(records, "OwnerId", "IsConverted", "share", 2) == {"a": 0.5}
    nested = [{**record, "Contract": {"CompanySignedDate": "2024-01-11"}} for record in records]
    spans = day_spans(nested, "CreatedDate", "Contract.CompanySignedDate")
    assert [span["Days"] for span in spans] == [10, 9, 8]
    assert figures_by(spans, "OwnerId", "Days", "mean", 1) == {"a": 9.5, "b": 8.0}


# --- the oracle


@pytest.mark.parametrize("interactive", [False, True])
def test_the_oracle_solves_every_instance(task_file: Path, b2b_db: Path, tmp_path: Path, interactive: bool) -> None:
    oracle_passes(b2b_db, task_file, tmp_path / "oracle", interactive, records=3 * PER_TASK)

"""One record changed in a copy of the default org moves the ground truth exactly as the rule says:
a later close date, an order moved to another day, a transfer or a case given to another agent, a case
moved to another issue or month. Each test predicts the new answer from the instance's scores and the
one change, then reads the changed dump."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest

from fixtures.tasks import truth
from fixtures.tasks.model import Instance
from fixtures.tasks.records import OrgRecords, load_records

PER_TASK = 3


@pytest.fixture()
def change(default_db: Path, tmp_path: Path) -> Callable[[str, tuple], OrgRecords]:
    """Apply one UPDATE to a fresh copy of the default org and read its records."""

    def apply(sql: str, values: tuple) -> OrgRecords:
        copy = tmp_path / f"copy{len(list(tmp_path.iterdir()))}.db"
        shutil.copyfile(default_db, copy)
        with sqlite3.connect(copy) as connection:
            assert connection.execute(sql, values).rowcount == 1  # exactly one record changes
        return load_records(copy)

    return apply


def _of(instances: list[Instance], task: str, keep: Callable[[Instance], bool]) -> list[Instance]:
    found = [instance for instance in instances if instance.task == task and keep(instance)][:PER_TASK]
    assert found, f"no {task} instance to perturb"
    return found


def _leaders(scores: dict) -> list:
    best = max(scores.values())
    return sorted(key for key, value in scores.items() if value == best)


def _dump_time(moment) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def test_a_much_later_close_date_hands_the_shortest_handle_time_to_the_runner_up(instances, records, change) -> None:
    def runner_up(instance: Instance) -> bool:
        verdict = truth.evaluate(records, instance.task, instance.params)
        lows = sorted(set(verdict.scores.values()))
        return (
            instance.params["direction"] == "min"
            and instance.answer is not None
            and len(lows) > 1
            and (list(verdict.scores.values()).count(lows[1]) == 1)
        )

    for instance in _of(instances, "handle_time", runner_up):
        scores = truth.evaluate(records, instance.task, instance.params).scores
        second = min((value, agent) for agent, value in scores.items() if agent != instance.answer)[1]
        start, end = truth._window(instance.params)
        moved = truth.transferred_case_ids(records)
        case = next(
            case
            for case in records.cases.values()
            if case.owner_id == instance.answer
            and case.is_closed
            and start <= case.created < end
            and case.id not in moved
        )
        later = change(
            'UPDATE "Case" SET ClosedDate = ? WHERE Id = ?', (_dump_time(case.created + timedelta(days=7300)), case.id)
        )
        assert truth.evaluate(later, instance.task, instance.params).answer == second


def test_moving_a_transfer_to_another_agent_changes_the_counts_by_one(instances, records, change) -> None:
    for instance in _of(instances, "transfer_count", lambda i: i.params["direction"] == "max" and i.answer is not None):
        scores = dict(truth.evaluate(records, instance.task, instance.params).scores)
        start, end = truth._window(instance.params)
        row = next(row for row in records.assignments if row.old_owner == instance.answer and start <= row.at < end)
        outsider = next(agent for agent in sorted({r.new_owner for r in records.assignments}) if agent not in scores)
        after = change('UPDATE "CaseHistory__c" SET OldValue__c = ? WHERE Id = ?', (outsider, row.id))
        scores[instance.answer] -= 1
        leaders = _leaders(scores)
        verdict = truth.evaluate(after, instance.task, instance.params)
        assert verdict.tied == (len(leaders) > 1)
        if not verdict.tied:
            assert verdict.answer == leaders[0]


def test_an_order_moved_to_the_next_day_leaves_nothing_to_disambiguate(instances, records, change) -> None:
    def one_order(instance: Instance) -> bool:
        return instance.answer is not None and len(_orders_with(records, instance)) == 1

    for instance in _of(instances, "named_entity_disambiguation", one_order):
        order_id = _orders_with(records, instance)[0]
        day = date.fromisoformat(instance.params["purchase_date"]) + timedelta(days=1)
        after = change('UPDATE "Order" SET EffectiveDate = ? WHERE Id = ?', (day.isoformat(), order_id))
        assert truth.evaluate(after, instance.task, instance.params).answer is None


def _orders_with(org: OrgRecords, instance: Instance) -> list[str]:
    day = date.fromisoformat(instance.params["purchase_date"])
    account = org.contact_accounts[instance.params["contact_id"]]
    return sorted(
        {
            order
            for order, product in org.order_items.values()
            if product == instance.params["product_id"]
            and org.orders[order][0] == account
            and org.orders[order][2] == day
        }
    )


@pytest.mark.parametrize("breached", [True, False])
def test_moving_the_order_date_across_the_window_flips_the_policy_verdict(instances, records, change, breached) -> None:
    def one_dated_grant(instance: Instance) -> bool:
        """A review that rests on one granted solution its articles list, on an order line above its minimum."""
        if (instance.answer is not None) != breached:
            return False
        checked = truth.evaluate(records, instance.task, instance.params).scores.get("checked", [])
        return len(checked) == 1 and "window" in checked[0] and not checked[0]["below_minimum"]

    for instance in _of(instances, "policy_violation_identification", one_dated_grant):
        (grant,) = truth.evaluate(records, instance.task, instance.params).scores["checked"]
        assert grant["late"] == breached
        case = records.cases[instance.params["case_id"]]
        order_id = records.order_items[case.order_item_id][0]
        effective = records.orders[order_id][2]
        granted_on = effective + timedelta(days=grant["days"])
        # Breached: the order now dates from the day of the grant. Kept: it dates from before the window began.
        moved = granted_on if breached else granted_on - timedelta(days=grant["window"] + 10)
        after = change('UPDATE "Order" SET EffectiveDate = ? WHERE Id = ?', (moved.isoformat(), order_id))
        expected = None if breached else grant["article"]
        assert truth.evaluate(after, instance.task, instance.params).answer == expected


def test_a_much_later_close_date_hands_the_quickest_state_to_the_runner_up(instances, records, change) -> None:
    for instance in _of(instances, "best_region_identification", lambda i: True):
        scores = truth.evaluate(records, instance.task, instance.params).scores
        second = sorted((value, state) for state, value in scores.items() if state != instance.answer)
        if len(second) > 1 and second[0][0] == second[1][0]:
            continue
        closed = _closed_in_window(records, instance, instance.answer)
        case = closed[0]
        assert case.closed is not None
        delay = timedelta(days=7300)  # twenty years later: the state's mean grows by delay / its closed cases
        assert scores[instance.answer] + delay.total_seconds() / len(closed) > second[0][0]
        later = change('UPDATE "Case" SET ClosedDate = ? WHERE Id = ?', (_dump_time(case.closed + delay), case.id))
        assert truth.evaluate(later, instance.task, instance.params).answer == second[0][1]


def _closed_in_window(org: OrgRecords, instance: Instance, state: str):
    start, end = truth._window(instance.params)
    return [
        case
        for case in org.cases.values()
        if case.is_closed and start <= case.created < end and org.account_states.get(case.account_id or "") == state
    ]


def test_a_case_moved_to_another_issue_changes_the_issue_counts_by_one(instances, records, change) -> None:
    for instance in _of(instances, "top_issue_identification", lambda i: i.answer is not None):
        scores = dict(truth.evaluate(records, instance.task, instance.params).scores)
        start, end = truth._window(instance.params)
        case = next(
            case
            for case in records.cases_by_product[instance.params["product_id"]]
            if case.issue_id == instance.answer and start <= case.created < end
        )
        other = sorted(issue for issue in records.issues if issue != instance.answer)[0]
        after = change('UPDATE "Case" SET IssueId__c = ? WHERE Id = ?', (other, case.id))
        scores[instance.answer] -= 1
        scores[other] = scores.get(other, 0) + 1
        leaders = _leaders(scores)
        verdict = truth.evaluate(after, instance.task, instance.params)
        assert verdict.tied == (len(leaders) > 1) and (verdict.tied or verdict.answer == leaders[0])


def test_a_case_given_to_another_agent_changes_the_routing_counts_by_one(instances, records, change) -> None:
    for instance in _of(instances, "case_routing", lambda i: True):
        counts = dict(truth.evaluate(records, instance.task, instance.params).scores["issue"])
        case = next(
            case
            for case in sorted(records.cases.values(), key=lambda c: c.id)
            if case.is_closed and case.owner_id == instance.answer and case.issue_id == instance.params["issue_id"]
        )
        runner_up = max((count, agent) for agent, count in counts.items() if agent != instance.answer)[1]
        after = change('UPDATE "Case" SET OwnerId = ? WHERE Id = ?', (runner_up, case.id))
        counts[instance.answer] -= 1
        counts[runner_up] += 1
        if len(_leaders(counts)) == 1:  # still decided by the issue step
            assert truth.evaluate(after, instance.task, instance.params).answer == _leaders(counts)[0]
        assert truth.evaluate(after, instance.task, instance.params).scores["issue"] == counts

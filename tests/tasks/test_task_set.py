"""The committed default task set: layout, ground truth, None and balance bounds, windows, wording."""

from __future__ import annotations

from faker import Faker

from fixtures.tasks.drafting import Context
from tests.shared import shared_dir
from tests.tasks import checks


def test_the_set_has_130_of_each_task_with_the_listed_params(instances) -> None:
    assert checks.layout(instances, 130) == []


def test_every_answer_is_what_the_rule_gives_and_no_answer_rests_on_a_tie(instances, records) -> None:
    assert checks.ground_truth(instances, records) == []


def test_none_share_and_answer_balance_are_within_bounds(instances) -> None:
    assert checks.shares(instances) == []


def test_windows_are_half_open_settled_and_unambiguous(instances, records, latent) -> None:
    assert checks.windows(instances, Context(records, latent, Faker())) == []


def test_queries_hide_issue_and_product_names_and_copy_nothing_from_the_original(instances, records) -> None:
    assert checks.wording(instances, records, checks.original_queries(shared_dir())) == []


def test_disambiguation_and_policy_instances_are_hard_in_the_right_way(instances, records, latent) -> None:
    assert checks.hard_in_the_right_way(instances, records, latent) == []


def test_windows_of_every_kind_and_both_directions_are_asked(instances) -> None:
    tools = {
        (step["tool"], step["args"].get("period") or step["args"].get("period_name"))
        for instance in instances
        for step in instance.reference[:1]
        if "tool" in step
    }
    periods = {period for tool, period in tools if tool == "get_start_date"}
    names = {period for tool, period in tools if tool == "get_period"}
    assert periods == {"day", "week", "month", "quarter"}
    assert {"Q1", "Spring", "Winter", "Year"} <= names and names & {"January", "June", "November"}
    for task in ("handle_time", "transfer_count"):
        asked = {
            (instance.params["direction"], instance.params["min_cases"])
            for instance in instances
            if instance.task == task and instance.answer is not None
        }
        assert {direction for direction, _ in asked} == {"min", "max"}
        thresholds = {threshold for _, threshold in asked}
        # The drafts draw 3–12; the selection (figures quotas) keeps a spread of them, the higher ones rarer.
        assert thresholds <= set(range(3, 13)) and len(thresholds) >= 8, thresholds

"""Answer extraction and scoring: bare values and sentences, the 15/18-character Id forms, None,
months, states, ambiguity, and token F1 as the original's fuzzy metric computes it."""

from __future__ import annotations

import pytest

from eval_suite.scoring.answers import normalize_answer, score, token_f1

AGENT = "005Ws000001xZvdIAE"
OTHER = "005Ws000001xYl3IAE"


@pytest.mark.parametrize(
    ("task", "gold", "answer", "reward"),
    [
        ("case_routing", AGENT, AGENT, 1),
        ("case_routing", AGENT, f"The most suitable agent is {AGENT}.", 1),
        ("case_routing", AGENT, f"'{AGENT[:15]}'", 1),  # the 15-character form
        ("case_routing", AGENT, AGENT.lower(), 0),  # Ids are case-sensitive
        ("case_routing", AGENT, f"{AGENT} or {OTHER}", 0),  # ambiguous
        ("case_routing", AGENT, f"{AGENT} (also written {AGENT[:15]})", 1),  # one record, two forms
        ("case_routing", AGENT, "None", 0),
        ("case_routing", AGENT, "I would need to troubleshoot further.", 0),  # no Id-like word
        ("handle_time", None, "None", 1),
        ("handle_time", None, "No agent qualifies, so the answer is None.", 1),
        ("handle_time", None, "null", 1),
        ("handle_time", None, AGENT, 0),
        ("handle_time", None, "", 0),
        ("monthly_trend_analysis", "December", "December", 1),
        ("monthly_trend_analysis", "December", "It may be December.", 1),  # "may" is not May
        ("monthly_trend_analysis", "May", "May", 1),
        ("monthly_trend_analysis", "March", "Mar.", 1),
        ("monthly_trend_analysis", "March", "March or April", 0),
        ("best_region_identification", "GA", "GA", 1),
        ("best_region_identification", "GA", "Georgia", 1),
        ("best_region_identification", "WV", "West Virginia", 1),
        ("best_region_identification", "OR", "The quickest state is OR.", 1),
        ("best_region_identification", "GA", "GA and MA", 0),
    ],
)
def test_exact_match_after_extraction(task: str, gold: str | None, answer: str, reward: int) -> None:
    assert score(task, "exact_match", gold, answer).reward == reward


def test_no_answer_scores_zero() -> None:
    result = score("case_routing", "exact_match", AGENT, None)
    assert result.reward == 0 and not result.passed and result.reason == "no answer"


def test_token_f1_follows_squad_normalisation() -> None:
    assert normalize_answer("The  Quick_brown, fox!") == "quick brown fox"
    assert token_f1("90 days", "90 days.") == 1.0
    assert token_f1("within 90 days", "90 days") == pytest.approx(0.8)
    assert token_f1("nothing alike", "90 days") == 0.0
    result = score("knowledge_qa", "fuzzy_match", "Regular calibration and software updates.", "regular calibration")
    assert result.reward == pytest.approx(2 * 1 * 0.4 / 1.4) and result.passed and result.detail["em"] is False
    assert not score("knowledge_qa", "fuzzy_match", "a b c d", "a", f1_pass=0.5).passed


TASK_A, TASK_B = "00TWs0000000001MAA", "00TWs0000000002MAA"


@pytest.mark.parametrize(
    ("task", "gold", "answer", "reward"),
    [
        # A list of Ids scores when the answer names exactly the gold set, in any order and form.
        ("activity_priority", f"{TASK_A}, {TASK_B}", f"{TASK_B}, {TASK_A}", 1),
        ("activity_priority", f"{TASK_A}, {TASK_B}", f"First {TASK_A[:15]}, then {TASK_B}.", 1),
        ("activity_priority", f"{TASK_A}, {TASK_B}", TASK_A, 0),  # a subset
        ("activity_priority", TASK_A, f"{TASK_A}, {TASK_B}", 0),  # a superset
        ("activity_priority", None, "None of the tasks.", 1),
        ("activity_priority", None, TASK_A, 0),
        # The unmet BANT factors, as a set of words.
        ("lead_qualification", "Budget, Timeline", "timeline and budget", 1),
        ("lead_qualification", "Budget, Timeline", "Budget", 0),
        ("lead_qualification", None, "None: the lead is qualified.", 1),
        ("lead_qualification", "Need", "Authority, Need", 0),
        # One stage of the standard sales process.
        ("wrong_stage_rectification", "Closed Won", "It should be closed won.", 1),
        ("wrong_stage_rectification", "Id. Decision Makers", "Id. Decision Makers", 1),
        ("wrong_stage_rectification", "Qualification", "Qualification or Prospecting", 0),  # ambiguous
        ("wrong_stage_rectification", "Qualification", "The stage is fine.", 0),
    ],
)
def test_sales_answers(task: str, gold: str | None, answer: str, reward: int) -> None:
    assert score(task, "exact_match", gold, answer).reward == reward


def test_the_list_tasks_are_the_task_files_list_tasks() -> None:
    """Scoring reads as sets exactly the tasks whose files hold joined lists (fixtures.tasks.model)."""
    from eval_suite.scoring.answers import LIST_TASKS
    from fixtures.tasks.model import LIST_ANSWER_TASKS

    assert set(LIST_TASKS) == LIST_ANSWER_TASKS

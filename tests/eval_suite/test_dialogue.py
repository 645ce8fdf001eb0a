"""The pieces of a conversation on the committed task set: the goal's parts, the scripted user, the rules
that catch a failing user (and never catch the scripted one), the oracle answering multi-turn on every task,
and the reports of a multi-turn run (its column, its user errors, the user's turns in the browser)."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from eval_suite.dialogue.checks import BROKE_ROLE, CONTRADICTED_GOAL, LEAKED_ANSWER, check_turn
from eval_suite.dialogue.goal import Goal, goal_of, normalized, split_query
from eval_suite.dialogue.scripted import NOTHING_MORE, ScriptedUser
from eval_suite.dialogue.speakers import ASK_FOR_MORE
from eval_suite.dialogue.users import UserTurn, is_question
from eval_suite.reports.report import make_report
from eval_suite.run.config import RunConfig
from eval_suite.run.records import PASSED, USER_ERROR, latest, read_records, write_records_atomic
from eval_suite.run.runner import run
from eval_suite.tools.catalog import default_task_file
from fixtures.tasks.task_file import read_task_file

INSTANCES = read_task_file(default_task_file()).instances


def test_a_query_is_cut_into_its_sentences_and_blocks_in_order() -> None:
    query = "A new case has come in. Which agent gets it? Reply with the Id.\n\n## Case\n- Subject: x. Y\n- Body: z"
    assert split_query(query) == (
        "A new case has come in.",
        "Which agent gets it?",
        "Reply with the Id.",
        "## Case\n- Subject: x. Y\n- Body: z",
    )
    assert split_query("One. Two. Three. Four. Five.") == ("One.", "Two.", "Three.", "Four.\n\nFive.")
    for instance in INSTANCES:  # nothing of a query is lost or reordered
        parts = goal_of(instance).parts
        assert 1 <= len(parts) <= 4 and normalized(" ".join(parts)) == normalized(instance.query), instance.idx


def test_the_scripted_user_gives_every_goal_without_breaking_a_rule() -> None:
    """On all 1,170 instances: the parts in order, a question answered, then a stop on an answer — and no rule
    of checks.py fires on any of its messages (the rules do not catch a user that does its job)."""
    for instance in INSTANCES:
        goal = goal_of(instance)
        user = ScriptedUser(goal)
        said = [user.start()]
        said += [user.reply("Could you tell me more?") for _ in goal.parts[1:]]
        said.append(user.reply("Which product, which case, and which period do you mean?"))
        said.append(user.reply("Here is the answer."))
        assert [turn.text for turn in said[: len(goal.parts)]] == list(goal.parts)
        assert said[-1].stop and not any(turn.stop for turn in said[:-1])
        for turn in said:
            assert check_turn(turn, goal, "") is None, (instance.idx, turn.text)


def test_the_scripted_user_answers_from_the_goals_facts_never_with_the_answer() -> None:
    monthly = next(i for i in INSTANCES if i.task == "monthly_trend_analysis")
    user = ScriptedUser(goal_of(monthly))
    for _ in goal_of(monthly).parts:
        user.reply("go on")
    period = user.reply("Which period do you mean, and which product?")
    assert period.text.startswith(f"The period runs from {monthly.params['start']} up to {monthly.params['end']}")
    assert f"The product Id is {monthly.params['product_id']}." in period.text and not period.stop
    assert user.reply("Is that all you know?").text == NOTHING_MORE
    # a customer's product is the answer of a disambiguation: the user never names it
    ned = next(i for i in INSTANCES if i.task == "named_entity_disambiguation" and i.answer)
    user = ScriptedUser(goal_of(ned))
    for _ in goal_of(ned).parts:
        user.reply("go on")
    assert ned.answer not in user.reply("Which product is it, exactly?").text


def test_the_rules_catch_a_user_that_fails_its_role() -> None:
    goal = Goal(("Which agent owns case 'A'?", "Reply with the Id."), "Service Manager", {}, "005Ws000000000WIAQ")

    def rule(text: str, agent_said: str = "", **extra: Any) -> str | None:
        failure = check_turn(UserTurn(text, **extra), goal, agent_said)
        return failure.rule if failure else None

    assert rule("Hello! How can I help you today?") == BROKE_ROLE
    assert rule("I'm an AI, I cannot know that.") == BROKE_ROLE
    assert rule("<execute>SELECT Id FROM Case</execute>") == BROKE_ROLE
    assert rule("", tool_calls=[{"id": "1", "name": "respond", "arguments": "{}"}]) == BROKE_ROLE
    assert rule("   ") == BROKE_ROLE
    assert rule("I think it is 005Ws000000000WIAQ.") == LEAKED_ANSWER
    assert rule("So it is 005Ws000000000WIAQ, thanks.", agent_said="It is 005Ws000000000WIAQ.") is None
    assert rule("The case was opened on 2023-02-30 by 500Ws0000000099IAA.") == CONTRADICTED_GOAL
    assert rule("Reply with the Id, please: the one who owns case 'A'.") is None
    short = replace(goal, answer="OK")  # a state code: too short to tell from words, not checked
    assert check_turn(UserTurn("OK, thanks."), short, "") is None
    assert is_question("Which one? <think>hmm</think>") and not is_question("It is March.")
    assert is_question("I found two. Which period do you mean?")
    assert not is_question("It is March. Is there anything else I can help you with?")


def interactive_oracle(out: Path, **changes: Any) -> list[dict[str, Any]]:
    config = RunConfig(agent="oracle", interactive=True, workers=2, progress=False, out=out)
    result = run(replace(config, **changes))
    return list(result.records)


def test_the_oracle_scores_100_percent_multi_turn_on_every_task(tmp_path: Path) -> None:
    records = interactive_oracle(tmp_path / "run", limit=2)
    assert len(records) == 18 and {record["task_type"] for record in records} == {i.task for i in INSTANCES}
    by_idx = {instance.idx: instance for instance in INSTANCES}
    for record in records:
        parts = goal_of(by_idx[record["task_id"]]).parts
        assert record["status"] == PASSED, (record["task_id"], record.get("error"))
        dialogue = record["dialogue"]
        assert dialogue["end"] == "user_stop" and dialogue["user_turns"] == len(parts)
        agent = [turn["text"] for turn in dialogue["turns"] if turn["speaker"] == "agent"]
        assert agent == [ASK_FOR_MORE] * (len(parts) - 1) + [record["gt_answer"] or "None"]


def test_the_oracle_scores_100_percent_multi_turn_on_20_of_every_task(tmp_path: Path) -> None:
    records = interactive_oracle(tmp_path / "run", sample=20)
    assert len(records) == 180 and all(record["status"] == PASSED for record in records)


def test_the_report_shows_the_turns_the_user_errors_and_the_users_messages(tmp_path: Path) -> None:
    out = tmp_path / "run"
    interactive_oracle(out, limit=1, tasks=("case_routing", "handle_time"))
    records = list(latest(read_records(out / "records.jsonl")).values())
    records[0] = {**records[0], "status": USER_ERROR, "score": 0.0, "error": {"rule": "broke_role", "message": "x"}}
    write_records_atomic(out / "records.jsonl", records)
    report = make_report([out], tmp_path / "report")
    row = next(csv.DictReader((tmp_path / "report" / "leaderboard.csv").open()))
    assert row["turns"] == "multi" and row["user_errors"] == "1" and float(row["user_error_rate"]) == 0.5
    assert row["errors"] == "0"  # a user's failure is neither the agent's nor an infrastructure error
    assert "multi" in report.terminal and "1 (50.0%)" in report.terminal
    chunk = (tmp_path / "report" / "data" / "traj" / "0.js").read_text()
    details = json.loads(chunk[chunk.index("{") : chunk.rindex(")")])
    conversation = next(iter(details.values()))["conversation"]
    assert conversation["user"] == "scripted" and conversation["turns"][0]["speaker"] == "user"

"""``crmarena eval --interactive`` end to end: a scripted endpoint for the agent and another for the user
(or the scripted user), the real openai client, a private mock org, through the runner. Each way a
conversation can end gets its status and score: a user that stops, one that never stops, one that leaks
the answer, one that breaks its role, an agent that refuses, an endpoint that fails."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from eval_suite.commands import evaluate
from eval_suite.dialogue.simulated import OPENING
from eval_suite.run.config import ConfigError, RunConfig
from eval_suite.run.records import INFRA_ERROR, PASSED, USER_ERROR, latest, read_records
from eval_suite.run.rescore import rescore
from eval_suite.run.runner import run

from .conftest import INSTANCES, answer_from, config, soql_for
from .scripted import Failure, Reply, ScriptedLLM, turns

ANSWERS = {re.search(r"subject '([^']+)'", row["query"]).group(1): row["answer"] for row in INSTANCES}  # type: ignore[union-attr]
LAST_PART = re.compile(r"^Return ", re.MULTILINE)  # the second sentence of every test query: the answer's form
REFUSAL = "I am sorry, but I cannot help with that request."


def parts_of(body: dict[str, Any]) -> list[str]:
    """The goal's parts, as the user's prompt numbers them."""
    return re.findall(r"^\d+\. (.+)$", body["messages"][0]["content"], re.MULTILINE)


def user_said(body: dict[str, Any]) -> list[str]:
    """The agent's requests: what the user said so far (the user messages after the system prompt)."""
    return [m["content"] for m in body["messages"][1:] if m["role"] == "user" and m["content"]]


def agent_policy(body: dict[str, Any]) -> Reply:
    """A ReAct agent that asks for the answer's form until the user gave it, then queries and answers."""
    if not any(LAST_PART.search(text) for text in user_said(body)):
        return Reply("<thought>Not all there.</thought>\n<respond>In what form do you want the answer?</respond>")
    if not any("The org answered" in text for text in user_said(body)):
        return Reply(f"<thought>I look the case up.</thought>\n<execute>{soql_for(body)}</execute>")
    return Reply(f"<thought>Done.</thought>\n<respond>{answer_from(body)}</respond>")


def polite_user(body: dict[str, Any]) -> Reply:
    """Gives the parts in order, then thanks and stops at the first message after the last part."""
    parts, said = parts_of(body), turns(body)
    if said < len(parts):
        return Reply(parts[said])
    return Reply("Thanks, that is all. [[END]]")


def goal_subject(body: dict[str, Any]) -> str:
    return re.search(r"subject '([^']+)'", parts_of(body)[0]).group(1)  # type: ignore[union-attr]


@pytest.fixture
def interactive(base_config: RunConfig) -> RunConfig:
    return replace(base_config, interactive=True, retries=0, user_model="user-model", workers=2)


def run_with(cfg: RunConfig, agent: Any, user: Any, **changes: Any) -> Any:
    with ScriptedLLM(agent) as agent_llm, ScriptedLLM(user) as user_llm:
        result = run(config(cfg, base_url=agent_llm.url, user_base_url=user_llm.url, **changes))
    return result, agent_llm, user_llm


def by_id(result: Any) -> dict[int, dict[str, Any]]:
    return {record["task_id"]: record for record in result.records}


def test_a_user_that_stops_gets_the_agents_last_answer_scored(interactive: RunConfig, tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"  # US$ per million tokens; each scripted answer is 100 tokens in, 10 out
    prices.write_text("[scripted-model]\ninput = 1.0\noutput = 10.0\n[user-model]\ninput = 2.0\noutput = 20.0\n")
    result, agent_llm, user_llm = run_with(interactive, agent_policy, polite_user, prices=prices)
    records = by_id(result)
    assert {idx: record["status"] for idx, record in records.items()} == dict.fromkeys((1, 2, 3, 4), PASSED)
    first = records[1]
    dialogue = first["dialogue"]
    assert dialogue["end"] == "user_stop" and dialogue["user_error"] is None and dialogue["user"] == "user-model"
    said = [(turn["speaker"], turn["text"]) for turn in dialogue["turns"]]
    assert said[0] == ("user", "Which agent owns the case with subject 'Refund please'?")
    assert said[1] == ("agent", "In what form do you want the answer?")
    assert said[2] == ("user", "Return only the Id of the agent.")
    assert said[3] == ("agent", first["gt_answer"]) and said[4] == ("user", "Thanks, that is all.")
    assert dialogue["turns"][-1]["stop"] and dialogue["user_turns"] == 2
    # the user's calls and tokens are its own, apart from the agent's
    assert len(dialogue["user_calls"]) == 3 and dialogue["user_usage"]["prompt_tokens"] == 300
    assert first["agent_info"]["num_turns"] == 3 and first["usage"]["prompt_tokens"] == 300
    assert first["cost"] == pytest.approx(3 * 200e-6) and dialogue["user_cost"] == pytest.approx(3 * 400e-6)
    user_costs = sum(record["dialogue"]["user_cost"] for record in records.values())
    assert result.summary["user_cost"] == pytest.approx(user_costs)
    assert result.summary["cost"] == pytest.approx(sum(record["cost"] for record in records.values()))
    assert dialogue["extra_costs"] == [pytest.approx(400e-6)] * 3  # what --max-cost counts beside the agent
    assert first["answer"] == first["gt_answer"] and first["agent_info"]["end_reason"]["source"] == "agent"
    # the agent was told it is in a conversation, and got the user's words, never the whole query at once
    request = agent_llm.requests[0]
    assert "# The conversation" in request["messages"][0]["content"]
    assert all("Return only" not in m["content"] for m in request["messages"][1:])
    # the user model is shown the goal, not the answer, and speaks first
    user_request = user_llm.requests[0]
    assert user_request["messages"][1]["content"] == OPENING and records[1]["gt_answer"] not in str(user_request)
    assert result.manifest["interactive"] is True and result.manifest["user"] == "user-model"
    assert result.summary["overall"]["score"]["value"] == 1.0 and result.exit_code == 0


def test_the_scripted_user_drives_function_calling_through_native_tool_calls(interactive: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Reply:
        if body["messages"][-1].get("content", "").startswith("What is the weather"):
            return Reply(tool_calls=[("get_weather", {"city": "Paris"})])  # the capability probe
        if not any(LAST_PART.search(text) for text in user_said(body)):
            return Reply(tool_calls=[("respond", {"content": "What form should the answer take?"})])
        if not any(m["role"] == "tool" and "'OwnerId'" in (m["content"] or "") for m in body["messages"]):
            return Reply(tool_calls=[("issue_soql_query", {"query": soql_for(body)})])
        return Reply(tool_calls=[("respond", {"content": answer_from(body)})])

    from .test_agents_end_to_end import TOOLS

    cfg = replace(interactive, agent="fc", user_model=None, tasks=("case_routing",))
    with ScriptedLLM(policy) as llm:
        result = run(config(cfg, base_url=llm.url), tools=TOOLS)
    records = by_id(result)
    assert [records[idx]["status"] for idx in (1, 4)] == [PASSED, PASSED]
    traj = records[1]["traj"]
    # the respond call that asked the question is closed by a tool result before the user's next message
    ask = next(index for index, m in enumerate(traj) if m.get("tool_calls") and "form" in str(m["tool_calls"]))
    assert traj[ask + 1]["role"] == "tool" and traj[ask + 1]["content"] == "Sent to the user."
    assert traj[ask + 2] == {"role": "user", "content": "Return only the Id of the agent."}
    assert records[1]["dialogue"]["user"] == "scripted" and records[1]["dialogue"]["user_calls"] == []
    assert records[1]["dialogue"]["turns"][-1] == {
        "speaker": "user",
        "text": "Thank you, that is what I needed.",
        "stop": True,
    }


def test_a_user_that_never_stops_is_a_user_error(interactive: RunConfig) -> None:
    def user(body: dict[str, Any]) -> Reply:
        parts = parts_of(body)
        return Reply(parts[turns(body)] if turns(body) < len(parts) else "Could you check that once more, please.")

    result, _, user_llm = run_with(interactive, agent_policy, user, max_user_turns=4)
    for record in result.records:
        assert record["status"] == USER_ERROR and record["score"] == 0.0
        assert record["error"]["rule"] == "never_stopped" and record["dialogue"]["user_turns"] == 5
        assert record["agent_info"]["end_reason"]["source"] == "user"
    assert len(user_llm.requests) == 4 * 5  # four turns and the one past the limit, per attempt
    assert result.summary["statuses"][USER_ERROR] == 4 and result.summary["overall"]["score"] is None
    assert result.manifest["status"] == "incomplete" and result.exit_code != 0


def test_a_user_that_leaks_the_answer_is_a_user_error_and_a_resume_runs_it_again(interactive: RunConfig) -> None:
    def user(body: dict[str, Any]) -> Reply:
        if turns(body) == 0:
            return Reply(f"{parts_of(body)[0]} I believe it is {ANSWERS[goal_subject(body)]}.")
        return polite_user(body)

    cfg = replace(interactive, tasks=("case_routing",))
    result, _, _ = run_with(cfg, agent_policy, user)
    for record in result.records:
        assert record["status"] == USER_ERROR and record["error"]["rule"] == "leaked_answer"
        assert record["answer"] is None and len(record["dialogue"]["turns"]) == 1  # ended at once
    assert result.summary["tasks"]["case_routing"]["score"] is None  # nothing scored against the agent
    assert result.summary["tasks"]["case_routing"]["pass_k"][1] is None
    rescore(result.out)  # re-scoring leaves the user's failures alone
    assert {r["status"] for r in latest(read_records(result.out / "records.jsonl")).values()} == {USER_ERROR}
    again, _, _ = run_with(cfg, agent_policy, polite_user)  # the same command resumes: user errors run again
    assert [record["status"] for record in again.records] == [PASSED, PASSED] and again.exit_code == 0


@pytest.mark.parametrize(
    ("first", "calls", "rule"),
    [
        ("Hello! How can I help you today?", [], "broke_role"),
        ("As an AI language model, I will look this up.", [], "broke_role"),
        ("", [("issue_soql_query", {"query": "SELECT Id FROM Case"})], "broke_role"),
        ("Who owns case 500Ws00000000zzzIAA since 2021-02-03?", [], "contradicted_goal"),
    ],
)
def test_a_user_that_breaks_role_or_its_goal_is_a_user_error(
    interactive: RunConfig, first: str, calls: list[Any], rule: str
) -> None:
    cfg = replace(interactive, tasks=("case_routing",), limit=1)
    result, agent_llm, _ = run_with(cfg, agent_policy, lambda body: Reply(first or None, tool_calls=calls))
    record = result.records[0]
    assert record["status"] == USER_ERROR and record["error"]["rule"] == rule and record["score"] == 0.0
    assert agent_llm.requests == []  # the agent never saw the broken turn


def test_the_users_calls_are_cached_and_replay_without_any_endpoint(interactive: RunConfig, tmp_path: Path) -> None:
    cfg = replace(interactive, tasks=("case_routing",), cache=tmp_path / "cache")
    first, _, user_llm = run_with(cfg, agent_policy, polite_user, out=tmp_path / "recorded")
    assert [record["status"] for record in first.records] == [PASSED, PASSED] and user_llm.requests
    down = lambda body: Failure(500, message="nobody home")  # noqa: E731
    replayed, agent_llm, user_llm = run_with(cfg, down, down, out=tmp_path / "replayed", cache_mode="replay")
    assert agent_llm.requests == [] and user_llm.requests == []
    assert [record["dialogue"]["turns"] for record in replayed.records] == [
        record["dialogue"]["turns"] for record in first.records
    ]
    assert [record["status"] for record in replayed.records] == [PASSED, PASSED]
    assert all(call["cached"] for record in replayed.records for call in record["dialogue"]["user_calls"])


def test_a_user_retry_with_another_seed_replaces_a_broken_conversation(interactive: RunConfig) -> None:
    seeds: list[int] = []

    def user(body: dict[str, Any]) -> Reply:
        if turns(body) == 0:
            seeds.append(body["seed"])
        if body["seed"] == seeds[0]:
            return Reply("I am an AI assistant. How may I help?")
        return polite_user(body)

    cfg = replace(interactive, tasks=("case_routing",), limit=1, user_retries=1)
    result, _, _ = run_with(cfg, agent_policy, user)
    record = result.records[0]
    assert record["status"] == PASSED and len(set(seeds)) == 2
    earlier = record["dialogue"]["earlier"]
    assert len(earlier) == 1 and earlier[0]["user_error"]["rule"] == "broke_role"
    # the failed conversation's calls are counted with the attempt's, for --max-cost
    assert len(record["dialogue"]["extra_costs"]) == len(record["dialogue"]["user_calls"]) + 1


def test_an_agent_that_refuses_fails(interactive: RunConfig) -> None:
    refuse = lambda body: Reply(f"<respond>{REFUSAL}</respond>")  # noqa: E731
    result, _, _ = run_with(replace(interactive, tasks=("case_routing",)), refuse, polite_user)
    for record in result.records:
        assert record["status"] == "failed" and record["score"] == 0.0 and record["answer"] == REFUSAL
        assert record["dialogue"]["end"] == "user_stop"
    assert result.summary["tasks"]["case_routing"]["score"]["value"] == 0.0 and result.exit_code == 0


def test_an_agent_that_keeps_asking_has_no_answer(interactive: RunConfig) -> None:
    ask = lambda body: Reply("<respond>Could you say that again?</respond>")  # noqa: E731
    cfg = replace(interactive, tasks=("case_routing",), limit=1, user_model=None, max_user_turns=3)
    with ScriptedLLM(ask) as llm:
        result = run(config(cfg, base_url=llm.url))
    record = result.records[0]
    assert record["status"] == "agent_error" and record["agent_info"]["end_reason"]["source"] == "user_turns"
    # the user's fourth message is past the limit: recorded, never shown to the agent
    assert record["dialogue"]["user_turns"] == 4 and record["dialogue"]["turns"][-1]["over_limit"] is True
    assert record["answer"] is None


@pytest.mark.parametrize("failing", ["agent", "user"])
def test_an_endpoint_that_fails_is_an_infra_error(interactive: RunConfig, failing: str) -> None:
    broken = lambda body: Failure(500, message="the model is down")  # noqa: E731
    agent, user = (broken, polite_user) if failing == "agent" else (agent_policy, broken)
    result, _, _ = run_with(replace(interactive, tasks=("case_routing",)), agent, user)
    for record in result.records:
        assert record["status"] == INFRA_ERROR and record["error"]["source"] == (
            "llm" if failing == "agent" else "user"
        )
        assert "the model is down" in record["error"]["message"]
    assert result.summary["tasks"]["case_routing"]["score"] is None and result.manifest["status"] == "incomplete"


def test_interactive_settings_are_checked(base_config: RunConfig, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--user-model is a setting of --interactive"):
        replace(base_config, user_model="m").check()
    with pytest.raises(ConfigError, match="--interactive works with"):
        replace(base_config, agent="null", interactive=True).check()
    with pytest.raises(ConfigError, match="--user model needs --user-model"):
        replace(base_config, interactive=True, user="model").check()
    with pytest.raises(ConfigError, match="--max-user-turns must be at least 1"):
        replace(base_config, interactive=True, max_user_turns=0).check()
    checked = replace(base_config, interactive=True, user_model="u", out=None).check()
    assert checked.user == "model" and "interactive-u" in str(checked.out)
    args = evaluate.argparse.Namespace(config=None, interactive=True, max_user_turns=3, user_retries=2)
    parsed = evaluate.config_from(args)
    assert parsed.interactive and parsed.max_user_turns == 3 and parsed.user_retries == 2


def test_the_user_judge_gives_its_verdict_beside_the_rules_never_instead(interactive: RunConfig) -> None:
    def verdict(body: dict[str, Any]) -> Reply:
        prompt = body["messages"][0]["content"]
        if "Refund please" in prompt:
            return Reply("VERDICT: ok")
        return Reply("VERDICT: user_error it hinted at the answer")

    cfg = replace(interactive, tasks=("case_routing",), user_model=None, user_judge="judge-model")
    with ScriptedLLM(agent_policy) as agent_llm, ScriptedLLM(verdict) as judge_llm:
        result = run(config(cfg, base_url=agent_llm.url, user_base_url=judge_llm.url))
    records = by_id(result)
    assert records[1]["status"] == records[4]["status"] == PASSED  # the rules decide; the judge is reported
    assert records[1]["dialogue"]["judge"]["verdict"] == "ok"
    judged = records[4]["dialogue"]["judge"]
    assert judged["verdict"] == "user_error" and judged["reason"] == "it hinted at the answer"
    assert judged["model"] == "judge-model" and len(records[4]["dialogue"]["extra_costs"]) == 1
    prompt = judge_llm.requests[0]["messages"][0]["content"]
    assert "USER: Which agent owns the case" in prompt and "AGENT: " in prompt and "005" in prompt
    assert result.manifest["user_judge"] == "judge-model"

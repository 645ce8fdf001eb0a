"""Every framework end to end: the real openai client against a scripted endpoint over HTTP, and a
private mock org over HTTPS, through the runner as ``crmarena eval`` drives it."""

from __future__ import annotations

import json
from typing import Any

from eval_suite.run.config import RunConfig
from eval_suite.run.records import read_records
from eval_suite.run.runner import run
from eval_suite.tools.registry import Tool

from .conftest import answer_from, config, question_of, react_policy, soql_for
from .scripted import Failure, Reply, ScriptedLLM, last_user_text, turns


def by_task_id(result: Any) -> dict[int, dict[str, Any]]:
    return {record["task_id"]: record for record in result.records}


def test_react_solves_every_instance(base_config: RunConfig) -> None:
    with ScriptedLLM(react_policy) as llm:
        result = run(config(base_config, base_url=llm.url))
    records = by_task_id(result)
    assert {idx: record["status"] for idx, record in records.items()} == {
        1: "passed",
        2: "passed",
        3: "passed",
        4: "passed",
    }
    assert result.exit_code == 0 and result.summary["overall"]["score"]["value"] == 1.0
    first = records[1]
    assert (
        first["traj"][0]["role"] == "system"
        and "# Task context\n- Today's date: 2023-05-15" in first["traj"][0]["content"]
    )
    assert "<thought>" in first["traj"][0]["content"] and "Domain Details" not in first["traj"][0]["content"]
    observation = first["traj"][3]["content"]
    assert (
        observation.startswith("The org answered:\n[{'OwnerId': '005") and "attributes" in observation
    )  # the parent's
    assert not observation.split("'Account'")[0].count("attributes")  # top-level attributes removed
    assert first["agent_info"]["num_turns"] == 2 and first["agent_info"]["usage"]["prompt_tokens"] == [100, 100]
    assert first["usage"] == {"prompt_tokens": 200, "completion_tokens": 20, "total_tokens": 220}
    assert first["cost"] is None and result.summary["cost"] is None  # the scripted model has no price: unknown, not $0
    assert records[3]["answer"] == "None" and records[3]["extraction"] == "None"
    assert all(request["temperature"] == 0 and "seed" in request for request in llm.requests)


def test_act_gets_a_reminder_for_a_malformed_turn(base_config: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Reply:
        if turns(body) == 0:
            return Reply("Let me think about which query to run.")  # no action at all
        if turns(body) == 1:
            return Reply(f"<execute>```sql\n{soql_for(body)}\n```</execute>")
        return Reply(f"<respond>{answer_from(body)}</respond>")

    with ScriptedLLM(policy) as llm:
        result = run(config(base_config, agent="act", base_url=llm.url, tasks=("case_routing",)))
    record = by_task_id(result)[1]
    assert record["status"] == "passed" and record["agent_info"]["malformed_turns"] == 1
    assert "I could not find an action in your reply" in record["traj"][3]["content"]
    assert "<thought>" not in record["traj"][0]["content"]


def test_org_errors_come_back_as_observations(base_config: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Reply:
        if turns(body) == 0:
            return Reply("<execute>SELECT Nonsense__c FROM Case</execute>")
        if "INVALID_FIELD" in last_user_text(body):
            return Reply(f"<execute>{soql_for(body)}</execute>")
        return Reply(f"<respond>{answer_from(body)}</respond>")

    with ScriptedLLM(policy) as llm:
        result = run(config(base_config, base_url=llm.url, limit=1))
    record = by_task_id(result)[1]
    assert record["status"] == "passed"
    assert record["traj"][3]["content"].startswith("The org answered:\nINVALID_FIELD: ")


def test_max_turns_ends_as_an_agent_error(base_config: RunConfig) -> None:
    with ScriptedLLM(lambda body: Reply(f"<execute>{soql_for(body)}</execute>")) as llm:
        result = run(config(base_config, base_url=llm.url, max_turns=3, tasks=("handle_time",)))
    record = result.records[0]
    assert record["status"] == "agent_error" and record["score"] == 0
    assert record["agent_info"]["end_reason"]["source"] == "max_turns" and record["agent_info"]["num_turns"] == 3
    assert result.summary["tasks"]["handle_time"]["score"]["value"] == 0.0  # scored: the model's own failure
    assert result.exit_code == 0


def owner_of_case(sf: Any, subject: str) -> list[dict[str, Any]]:
    """A task tool as the registry's are: a function of the org client and the agent's arguments."""
    return sf.query_all(f"SELECT OwnerId, Account.ShippingState FROM Case WHERE Subject = '{subject}'")["records"]


def issue_soql_query(sf: Any, query: str) -> list[dict[str, Any]]:
    return sf.query_all(query)["records"]


def tool(function: Any, description: str, argument: str, category: str) -> Tool:
    parameters = {"type": "object", "properties": {argument: {"type": "string"}}, "required": [argument]}
    return Tool(
        function.__name__,
        function,
        {"name": function.__name__, "description": description, "parameters": parameters},
        category,
    )


TOOLS = [
    tool(owner_of_case, "The owner of a case.", "subject", "case and agent lookups"),
    tool(issue_soql_query, "Run SOQL.", "query", "raw SOQL/SOSL"),
]


def fc_policy(body: dict[str, Any]) -> Reply:
    if body.get("tools") and turns(body) == 0 and body["messages"][-1]["content"].startswith("What is the weather"):
        return Reply(tool_calls=[("get_weather", {"city": "Paris"})])  # the capability probe
    if turns(body) == 0:
        return Reply(tool_calls=[("owner_of_case", "{subject: broken json")])
    if turns(body) == 1:
        subject = question_of(body).split("'")[1]
        return Reply(tool_calls=[("owner_of_case", {"subject": subject}), ("unknown_tool", {})])
    return Reply(tool_calls=[("respond", {"content": answer_from(body)})])


def test_function_calling_natively_with_bad_arguments_and_several_calls(base_config: RunConfig) -> None:
    with ScriptedLLM(fc_policy) as llm:
        result = run(config(base_config, agent="fc", base_url=llm.url, limit=1), tools=TOOLS[:1])
    record = by_task_id(result)[1]
    assert record["status"] == "passed", record["traj"]
    tool_messages = [message for message in record["traj"] if message["role"] == "tool"]
    assert tool_messages[0]["content"].startswith("Error: the arguments of owner_of_case are not valid JSON")
    assert tool_messages[1]["content"].startswith("[{'OwnerId': '005")
    assert tool_messages[2]["content"].startswith("Not run: only the first tool call")
    manifest = result.manifest
    assert manifest["tool_protocol"] == "native" and manifest["capabilities"]["native_tools"] is True
    assert manifest["capabilities"]["usage"] is True and manifest["tools"] == ["case and agent lookups"]
    episode_request = next(r for r in llm.requests if r["messages"][-1]["content"].startswith("Which agent"))
    assert [tool["function"]["name"] for tool in episode_request["tools"]] == ["owner_of_case", "respond"]
    assert "# The org" not in episode_request["messages"][0]["content"]  # fc shows no schema


def test_fc_sql_reads_the_schema_and_queries(base_config: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Reply:
        if body["messages"][-1]["content"].startswith("What is the weather"):
            return Reply(tool_calls=[("get_weather", {"city": "Paris"})])
        if turns(body) == 0:
            return Reply(tool_calls=[("issue_soql_query", {"query": "SELEC Id FROM Case"})])
        if turns(body) == 1:
            return Reply(tool_calls=[("issue_soql_query", {"query": soql_for(body)})])
        return Reply(tool_calls=[("respond", {"content": answer_from(body)})])

    with ScriptedLLM(policy) as llm:
        result = run(config(base_config, agent="fc-sql", base_url=llm.url), tools=TOOLS)
    assert [record["status"] for record in result.records] == ["passed"] * 4
    record = by_task_id(result)[2]
    assert record["traj"][3]["content"].startswith("MALFORMED_QUERY: ")
    assert "# The org\nThe objects of the org: User, Account" in record["traj"][0]["content"]
    assert result.manifest["tools"] == ["case and agent lookups", "raw SOQL/SOSL"]


def test_text_tool_protocol_when_the_endpoint_has_no_tool_calls(base_config: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Reply:
        if body.get("tools"):
            return Reply("I cannot call tools.", usage=False)  # the probe: no native tool calls
        if turns(body) == 0:
            call = {"name": "owner_of_case", "arguments": {"subject": question_of(body).split("'")[1]}}
            return Reply(f"<tool_call>{json.dumps(call)}</tool_call>", usage=False)
        call = {"name": "respond", "arguments": {"content": answer_from(body)}}
        return Reply(f"<think>easy</think><tool_call>{json.dumps(call)}</tool_call>", usage=False)

    with ScriptedLLM(policy) as llm:
        result = run(config(base_config, agent="fc", base_url=llm.url), tools=TOOLS[:1])
    assert result.manifest["tool_protocol"] == "text" and result.manifest["capabilities"]["usage"] is False
    assert [record["status"] for record in result.records] == ["passed"] * 4
    record = result.records[0]
    assert '<tool_call>{"name": "TOOL NAME"' in record["traj"][0]["content"]
    assert record["traj"][3]["content"].startswith("Result of owner_of_case:\n[{'OwnerId'")
    assert record["usage"]["prompt_tokens"] is None and record["cost"] is None


def test_rate_limits_are_retried_until_the_call_succeeds(base_config: RunConfig) -> None:
    seen: dict[str, int] = {}

    def policy(body: dict[str, Any]) -> Reply | Failure:
        key = json.dumps(body["messages"])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= 2:
            return Failure(429, {"Retry-After": "0"}, "rate limited")
        return react_policy(body)

    with ScriptedLLM(policy) as llm:
        result = run(config(base_config, base_url=llm.url))
    assert [record["status"] for record in result.records] == ["passed"] * 4
    assert len(llm.requests) == 3 * 8  # every turn: two 429s, then the answer


def test_a_dying_endpoint_stops_the_run_and_resume_finishes_it(base_config: RunConfig) -> None:
    with ScriptedLLM(lambda body: Failure(503, message="overloaded")) as llm:
        dead = run(config(base_config, base_url=llm.url, retries=1, max_infra_errors=1, workers=1))
    assert dead.stopped and dead.stopped.startswith("stopped after 2 infrastructure errors")
    assert dead.exit_code == 5 and dead.manifest["status"] == "incomplete"
    assert [record["status"] for record in dead.records] == ["infra_error", "infra_error"]
    assert dead.records[0]["error"]["source"] == "llm" and "HTTP 503" in dead.records[0]["error"]["message"]
    assert dead.summary["overall"]["score"] is None  # nothing was scored: an outage is not a 0
    with ScriptedLLM(react_policy) as llm:
        alive = run(config(base_config, base_url=llm.url))
    assert alive.exit_code == 0 and [record["status"] for record in alive.records] == ["passed"] * 4
    assert len(read_records(base_config.out / "records.jsonl")) == 6  # the two errors stay, superseded
    assert len(alive.manifest["sessions"]) == 2


def test_a_wrong_api_key_stops_at_once(base_config: RunConfig) -> None:
    with ScriptedLLM(lambda body: Failure(401, message="bad key")) as llm:
        result = run(config(base_config, base_url=llm.url, workers=1))
    assert result.stopped.startswith("stopped at a fatal error") and len(result.records) == 1
    assert len(llm.requests) == 1  # not retried

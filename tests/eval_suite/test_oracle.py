"""The oracle takes the agents' tool path: on the committed task set and default org, every reference tool
step reaches the org as a tool call with JSON arguments through the episode's Toolbox (the tools the run
was given, not the registry behind its back), it knows only the observation text a model is shown, and a
tool broken in that Toolbox makes it fail."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import requests

from eval_suite.agents import literals
from eval_suite.agents.oracle import read_observation
from eval_suite.run.config import RunConfig
from eval_suite.run.records import HARNESS_ERROR, INFRA_ERROR, PASSED, latest, read_records
from eval_suite.run.runner import run
from eval_suite.tools.catalog import registry_tools
from eval_suite.tools.observe import render
from eval_suite.tools.registry import Tool
from eval_suite.tools.soql import ToolError

BROKEN = "get_cases"  # the tool most references call


def records_of(out: Path) -> dict[int, dict[str, Any]]:
    return {record["task_id"]: record for record in latest(read_records(out / "records.jsonl")).values()}


def oracle_run(out: Path, tools: list[Tool], **changes: Any) -> dict[int, dict[str, Any]]:
    """The oracle on the first instance of every task of the committed set, with ``tools`` as its Toolbox."""
    config = RunConfig(agent="oracle", limit=1, workers=1, retry_base=0.01, progress=False, out=out)
    run(replace(config, **changes), tools=tools)
    return records_of(out)


def swapped(name: str, function: Callable[..., Any]) -> list[Tool]:
    """The registry's tools with ``name``'s function replaced."""
    return [replace(tool, function=function) if tool.name == name else tool for tool in registry_tools()]


def key(call: tuple[str, dict[str, Any]]) -> str:
    return json.dumps(call, sort_keys=True)


def tool_calls(record: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (call["function"]["name"], json.loads(call["function"]["arguments"]))
        for message in record["traj"]
        for call in message.get("tool_calls", [])
    ]


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[int, dict[str, Any]], list[tuple[str, dict, str]]]:
    """A run whose every tool function records what it was called with and what it returned."""
    seen: list[tuple[str, dict, str]] = []

    def recording(tool: Tool) -> Tool:
        def function(sf: Any, **arguments: Any) -> Any:
            result = tool.function(sf, **arguments)
            seen.append((tool.name, arguments, render(result)))
            return result

        return replace(tool, function=function)

    records = oracle_run(tmp_path_factory.mktemp("oracle") / "run", [recording(tool) for tool in registry_tools()])
    return records, seen


def test_the_oracle_passes_every_task_through_the_toolbox(healthy) -> None:
    records, seen = healthy
    assert len(records) == 9 and {record["status"] for record in records.values()} == {PASSED}
    assert all(len(tool_calls(record)) >= 2 for record in records.values())  # a tool call or more, then respond
    calls = [call for record in records.values() for call in tool_calls(record) if call[0] != "respond"]
    # Every call but the answers reached a tool function given to the run, with the arguments its JSON spells.
    assert Counter(map(key, calls)) == Counter(key((name, arguments)) for name, arguments, _ in seen)


def test_the_oracle_trajectory_is_a_function_calling_conversation(healthy) -> None:
    records, seen = healthy
    shown = {key((name, arguments)): text for name, arguments, text in seen}
    for record in records.values():
        traj = record["traj"]
        assert traj[0]["role"] == "user" and [m["role"] for m in traj[1:]] == ["assistant", "tool"] * (
            len(traj) // 2 - 1
        ) + ["assistant"]
        for call_message, answer_message in zip(traj[1::2], traj[2::2], strict=False):
            (call,) = call_message["tool_calls"]
            assert call["type"] == "function" and isinstance(json.loads(call["function"]["arguments"]), dict)
            # The oracle is shown what the tool returned, rendered as every agent reads it.
            text = shown[key((call["function"]["name"], json.loads(call["function"]["arguments"])))]
            assert answer_message == {"role": "tool", "tool_call_id": call["id"], "content": text}
        (respond,) = traj[-1]["tool_calls"]
        assert respond["function"]["name"] == "respond"
        assert json.loads(respond["function"]["arguments"]) == {"content": record["answer"]}
        assert record["agent_info"]["num_turns"] == len(traj) // 2
        assert record["agent_info"]["end_reason"]["source"] == "oracle"


@pytest.mark.parametrize("breakage", ["raises", "missing"])
def test_a_tool_broken_in_the_toolbox_fails_the_oracle(healthy, tmp_path: Path, breakage: str) -> None:
    calling = {task_id for task_id, record in healthy[0].items() if BROKEN in dict(tool_calls(record))}
    assert calling and calling != set(healthy[0])  # some tasks call it, some do not

    def broken(sf: Any, **arguments: Any) -> Any:
        raise ToolError("this tool is broken")

    if breakage == "raises":
        tools, shown = swapped(BROKEN, broken), "Error: ToolError: this tool is broken"
    else:  # the Toolbox lacks it, as in a tool ablation
        tools, shown = [tool for tool in registry_tools() if tool.name != BROKEN], f"no tool named '{BROKEN}'"
    records = oracle_run(tmp_path / "run", tools)
    assert {task_id for task_id, record in records.items() if record["status"] != PASSED} == calling
    for task_id in calling:
        assert records[task_id]["status"] == HARNESS_ERROR
        assert records[task_id]["error"]["type"] == "OracleError"
        assert f"({BROKEN}): " in records[task_id]["error"]["message"] and shown in records[task_id]["error"]["message"]
        assert [name for name, _ in tool_calls(records[task_id])][-1] == BROKEN  # the record keeps the calls so far


def test_an_org_failure_inside_a_tool_is_an_infra_error_that_keeps_the_calls_so_far(tmp_path: Path) -> None:
    def unreachable(sf: Any, **arguments: Any) -> Any:
        raise requests.ConnectionError("connection refused")

    records = oracle_run(tmp_path / "run", swapped("search_knowledge_articles", unreachable), tasks=("knowledge_qa",))
    (record,) = records.values()
    assert record["status"] == INFRA_ERROR and record["error"]["source"] == "org"
    assert "the org could not be reached: ConnectionError: connection refused" in record["error"]["message"]
    assert [name for name, _ in tool_calls(record)] == ["search_knowledge_articles"]


def test_an_observation_reads_back_as_the_value_a_model_sees() -> None:
    records = [{"attributes": {"type": "Case"}, "Id": "500Ws0000000001IAA", "Subject": "It's broken", "Note": None}]
    assert read_observation(render(records)) == [{"Id": "500Ws0000000001IAA", "Subject": "It's broken"}]
    assert read_observation(render({"start_date": "2021-04-01T00:00:00Z"})) == {"start_date": "2021-04-01T00:00:00Z"}
    assert read_observation(render("2021-04-01T00:00:00Z")) == "2021-04-01T00:00:00Z"
    assert read_observation(render("around 48 hours")) == "around 48 hours"
    assert read_observation(render(None)) is None and read_observation(render(3.5)) == 3.5


def test_observations_are_read_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run workers read observations with ast.literal_eval, which CPython 3.11 cannot run in two threads at once
    (a SystemError once failed an oracle attempt in CI)."""
    active, peak, counter = 0, 0, threading.Lock()
    literal_eval = literals.ast.literal_eval

    def watched(text: str) -> Any:
        nonlocal active, peak
        with counter:
            active += 1
            peak = max(peak, active)
        time.sleep(0.01)
        try:
            return literal_eval(text)
        finally:
            with counter:
                active -= 1

    monkeypatch.setattr(literals.ast, "literal_eval", watched)
    readers = [threading.Thread(target=read_observation, args=("[1, 2]",)) for _ in range(8)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    assert peak == 1


@pytest.mark.slow
def test_the_oracle_scores_every_instance_of_the_default_set(tmp_path: Path) -> None:
    result = run(RunConfig(agent="oracle", workers=2, progress=False, out=tmp_path / "run"))
    assert len(result.records) == 1170 and {record["status"] for record in result.records} == {PASSED}

"""``crmarena eval --agent browser``: the real openai client against a scripted endpoint that acts like a web
agent (it reads the accessibility tree it is sent and answers with action strings), a private mock org over
HTTPS, and headless chromium, through the runner as the command drives it."""

from __future__ import annotations

import contextlib
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from eval_suite.browser.session import chromium_missing
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run

from .conftest import SUBJECT, config, question_of
from .scripted import Failure, Reply, ScriptedLLM, last_user_text, turns

pytestmark = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))

CASE_LINK = re.compile(r"\[(\d+)\] link '\d+', url='[^']*/lightning/r/Case/")
OWNER = re.compile(
    r"term 'Owner ID'\n\s*\[\d+\] definition '[^']*'\n\s*\[\d+\] link '[^']*', url='[^']*/User/(005\w+)/"
)
STATE = re.compile(r"term 'Shipping State[^']*'\n\s*\[\d+\] definition '[^']*'\n\s*StaticText '([A-Z]{2})'")


def action(text: str) -> Reply:
    return Reply(f"I act on the page.\n```\n{text}\n```")


def careful(body: dict[str, Any], turn: int) -> Reply:
    """Filter the cases by the subject asked about, open the case, read its owner or its account's state."""
    subject = SUBJECT.search(question_of(body)).group(1)  # type: ignore[union-attr]
    page = last_user_text(body)
    if turn == 0:
        return action(f'goto("/lightning/o/Case/list?field=Subject&op=equals&value={subject}")')
    if turn == 1:
        link = CASE_LINK.search(page)
        return action(f'click("{link.group(1)}")' if link else 'send_msg_to_user("None")')
    found = (STATE if "state" in question_of(body) else OWNER).search(page)
    return action(f'send_msg_to_user("{found.group(1) if found else "not found"}")')


def by_task_id(result: Any) -> dict[int, dict[str, Any]]:
    return {record["task_id"]: record for record in result.records}


def browser_config(base: RunConfig, url: str, **changes: Any) -> RunConfig:
    return config(base, agent="browser", base_url=url, **changes)


def test_a_fixed_action_sequence_answers_every_instance(base_config: RunConfig) -> None:
    with ScriptedLLM(lambda body: careful(body, turns(body))) as llm:
        result = run(browser_config(base_config, llm.url))
    records = by_task_id(result)
    assert {idx: record["status"] for idx, record in records.items()} == dict.fromkeys((1, 2, 3, 4), "passed")
    assert result.manifest["surface"] == "ui" and result.manifest["ui_console"] == "on"
    first = records[1]
    assert first["agent_info"]["num_turns"] == 3 and first["agent_info"]["pages"] >= 3
    opening = first["traj"][1]["content"]
    assert opening.startswith(INSTANCE_QUERY_START) and "\nURL: https://127.0.0.1:" in opening
    assert "/lightning/page/home" in opening and "Accessibility tree:" in opening
    assert "sid=" not in str(first["traj"])  # the model never holds the session id
    sent = llm.requests[-1]["messages"]
    assert any("earlier page, elided" in str(message["content"]) for message in sent)


INSTANCE_QUERY_START = "Which agent owns the case with subject"


def test_malformed_actions_and_missing_ids_come_back_as_last_action_error(base_config: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Reply:
        turn = turns(body)
        if turn == 0:
            return Reply("I will look at the cases.")  # no action at all
        if turn == 1:
            return action('click("99999")')  # an element the page does not have
        if turn == 2:
            return action("__import__('os').system('echo pwned')")  # never evaluated
        return careful(body, turn - 3)

    with ScriptedLLM(policy) as llm:
        result = run(browser_config(base_config, llm.url, tasks=("case_routing",), workers=1))
    assert [record["status"] for record in result.records] == ["passed", "passed"]
    pages = [last_user_text(request) for request in llm.requests if turns(request) in (1, 2, 3)][:3]
    assert "Last action error: the action is not a call this environment can read" in pages[0]
    assert 'Last action error: click: no element has bid "99999" on this page' in pages[1]
    assert "Last action error: unknown action \"__import__('os').system\"" in pages[2]
    assert result.records[0]["agent_info"]["malformed_turns"] == 2  # the missing id is a valid action that failed


def test_a_wrong_answer_is_scored_as_failed(base_config: RunConfig) -> None:
    with ScriptedLLM(lambda body: action('send_msg_to_user("005000000000000AAA")')) as llm:
        result = run(browser_config(base_config, llm.url, tasks=("case_routing",)))
    assert [record["status"] for record in result.records] == ["failed", "failed"]
    assert result.records[0]["agent_info"]["num_turns"] == 1


def test_a_failing_endpoint_is_an_infrastructure_error_never_a_score(base_config: RunConfig) -> None:
    with ScriptedLLM(lambda body: Failure(503, message="overloaded")) as llm:
        result = run(browser_config(base_config, llm.url, retries=1, workers=1, tasks=("case_routing",)))
    assert [record["status"] for record in result.records] == ["infra_error", "infra_error"]
    assert result.records[0]["error"]["source"] == "llm" and result.summary["overall"]["score"] is None
    assert "Accessibility tree:" in result.records[0]["traj"][1]["content"]  # the page the model was shown


def test_the_console_can_be_taken_away(base_config: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Reply:
        turn = turns(body)
        if turn == 0:
            assert "Query Console" not in last_user_text(body)
            return action('goto("/lightning/setup/query")')
        if turn == 1:
            assert "This page does not exist." in last_user_text(body)
        return careful(body, turn - 1)

    with ScriptedLLM(policy) as llm:
        result = run(browser_config(base_config, llm.url, tasks=("case_routing",), ui_console="off"))
    assert [record["status"] for record in result.records] == ["passed", "passed"]
    assert result.manifest["ui_console"] == "off" and str(result.out).endswith("run")


def kill_our_chromium() -> int:
    """Kill the chromium processes this test process started (through Playwright's driver), as a crash would."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    killed = 0
    for pid in parents:
        with contextlib.suppress(OSError):
            if ours(pid) and "chrom" in Path(f"/proc/{pid}/comm").read_text():
                os.kill(pid, signal.SIGKILL)
                killed += 1
    return killed


def test_a_crashed_browser_is_retried_on_a_fresh_one_never_scored(base_config: RunConfig) -> None:
    crashes: list[int] = []

    def policy(body: dict[str, Any]) -> Reply:
        turn = turns(body)
        if turn == 1 and not crashes:  # chromium dies under the first episode, between two of its actions
            crashes.append(kill_our_chromium())
        return careful(body, turn)

    with ScriptedLLM(policy) as llm:
        result = run(browser_config(base_config, llm.url, tasks=("case_routing",), workers=1))
    assert crashes and crashes[0] >= 1
    assert [record["status"] for record in result.records] == ["passed", "passed"]
    retried = [record for record in result.records if record.get("browser_retries")]
    assert len(retried) == 1 and "browser" in retried[0]["browser_retries"][0]

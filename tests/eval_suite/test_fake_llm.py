"""`crmarena fake-llm`, the shipped scripted endpoint, as a user runs it for a smoke test of their
plumbing: a process that prints its URL, answers each conversation in the form the request asks for
(ReAct tags, native tool calls, the text tool protocol), follows a script, and fails or stalls on demand."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from eval_suite.model.fake_llm import FakeLLM, Reply

from .conftest import SLACK, clean_env, crmarena, crmarena_after


@contextmanager
def fake_llm(*flags: str) -> Iterator[str]:
    """The command in a process of its own; its URL, read from the first line it prints."""
    process = subprocess.Popen(
        [sys.executable, "-m", "eval_suite.commands.cli", "fake-llm", *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready, "fake-llm printed nothing in 30 s"
        first = process.stdout.readline()  # type: ignore[union-attr]
        assert first.startswith("fake-llm: an OpenAI-compatible endpoint at http://127.0.0.1:"), first
        yield first.split(" at ", 1)[1].split()[0]
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        assert "fake-llm: answered" in process.stderr.read()  # type: ignore[union-attr]


def evaluate(
    url: str, agent: str, running_org: dict[str, str], task_file: Path, out: Path, *flags: str
) -> tuple[subprocess.CompletedProcess[str], float, list[dict]]:
    done, took = crmarena(
        [
            "eval",
            "--agent",
            agent,
            "--model",
            "my-model",
            "--base-url",
            url,
            "--tasks-file",
            str(task_file),
            "--out",
            str(out),
            "--retry-base",
            "0.01",
            "--no-progress",
            *flags,
        ],
        clean_env(**running_org),
    )
    records = (
        [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
        if (out / "records.jsonl").exists()
        else []
    )
    return done, took, records


def test_fixed_answers_reach_every_agent_in_its_own_form(
    running_org: dict[str, str], task_file: Path, tmp_path: Path
) -> None:
    with fake_llm("--answer", "CA") as url:
        done, _, react = evaluate(url, "react", running_org, task_file, tmp_path / "react")
        assert done.returncode == 0, done.stderr
        done, _, fc = evaluate(url, "fc", running_org, task_file, tmp_path / "fc")  # native tool calls
    assert {r["task_id"]: r["status"] for r in react} == {1: "failed", 2: "passed", 3: "failed", 4: "failed"}
    assert react[0]["traj"][-1]["content"] == "<respond>CA</respond>"
    manifest = json.loads((tmp_path / "fc" / "run.json").read_text())
    assert done.returncode == 0 and manifest["tool_protocol"] == "native" and manifest["capabilities"]["usage"]
    assert {r["task_id"]: r["status"] for r in fc} == {1: "failed", 2: "passed", 3: "failed", 4: "failed"}
    assert fc[0]["traj"][-1]["tool_calls"][0]["function"] == {"name": "respond", "arguments": '{"content": "CA"}'}
    assert fc[0]["usage"] == {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    with fake_llm("--no-tools") as url:  # a server without tool calls: the text protocol, and the answer None
        done, _, records = evaluate(url, "fc", running_org, task_file, tmp_path / "text")
    assert done.returncode == 0 and json.loads((tmp_path / "text" / "run.json").read_text())["tool_protocol"] == "text"
    assert records[0]["traj"][-1]["content"].startswith('<tool_call>{"name": "respond"')
    assert {r["task_id"]: r["status"] for r in records} == {1: "failed", 2: "failed", 3: "passed", 4: "failed"}


def test_a_script_drives_each_conversation_turn_by_turn(
    running_org: dict[str, str], task_file: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text(
        json.dumps({"content": "<thought>Look.</thought><execute>SELECT Id FROM Case LIMIT 1</execute>"})
        + "\n"
        + json.dumps({"respond": True, "answer": "None"})
        + "\n"
    )
    with fake_llm("--script", str(script)) as url:
        done, _, records = evaluate(url, "react", running_org, task_file, tmp_path / "run")
    assert done.returncode == 0, done.stderr
    assert all(record["agent_info"]["num_turns"] == 2 for record in records)
    assert records[0]["traj"][3]["content"].startswith("The org answered:\n[{'Id': '500")


def test_failures_on_demand_are_retried_and_a_stall_ends_the_run(
    running_org: dict[str, str], task_file: Path, tmp_path: Path
) -> None:
    with fake_llm("--fail-first", "2", "--fail-status", "503") as url:
        done, _, records = evaluate(url, "react", running_org, task_file, tmp_path / "flaky")
    assert done.returncode == 0 and [r["status"] for r in records].count("infra_error") == 0
    assert "retrying the endpoint check: HTTP 503: fake-llm: failure on demand (request 1), 1/2" in done.stderr
    with fake_llm("--stall-after", "0") as url:
        code, stderr, took = crmarena_after(
            [
                "eval",
                "--agent",
                "fc",
                "--model",
                "m",
                "--base-url",
                url,
                "--tasks-file",
                str(task_file),
                "--out",
                str(tmp_path / "stalled"),
                "--timeout",
                "2",
            ],
            clean_env(**running_org),
            "crmarena eval: model: ",
        )
    assert code == 5 and "did not answer within 2 s" in stderr.splitlines()[-1]
    assert 2 <= took < 2 + SLACK


def test_mistakes_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "script.jsonl"
    bad.write_text('{"say": "hello"}\n')
    for flags, code, words in (
        (["--script", str(bad)], 3, "line 1: a step is an object with some of"),
        (["--fail-status", "200"], 2, "--fail-status must be an HTTP error status"),
        (["--stall-after", "-1"], 2, "--stall-after must be 0 or more"),
    ):
        assert main(["fake-llm", *flags]) == code
        error = capsys.readouterr().err
        assert words in error and len(error.strip().splitlines()) == 1


def test_a_port_in_use_is_unavailable(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeLLM(lambda body: Reply("busy")) as taken:
        port = taken.url.split(":")[2].split("/")[0]
        assert main(["fake-llm", "--port", port]) == 5
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err

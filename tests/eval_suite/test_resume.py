"""Runs that stop and start again: a killed run resumed gives what an uninterrupted one gives, a
finished one is not re-run, another run's directory is refused, and a replay cache reproduces a run
without any model."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from eval_suite.run.config import RunConfig
from eval_suite.run.records import RECORDS_FILE, read_records
from eval_suite.run.runner import RunRefused, run

from .conftest import config, react_policy
from .scripted import Reply, ScriptedLLM


def slow_react(body: dict[str, Any]) -> Reply:
    reply = react_policy(body)
    reply.delay = 0.1
    return reply


def eval_command(base: RunConfig, url: str, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "eval_suite.commands.cli",
        "eval",
        "--agent",
        "react",
        "--model",
        "scripted-model",
        "--base-url",
        url,
        "--tasks-file",
        str(base.tasks_file),
        "--db",
        str(base.db),
        "--out",
        str(out),
        "--trials",
        "3",
        "--workers",
        "2",
        "--no-progress",
    ]


def outcomes(out: Path) -> dict[tuple[int, int], tuple[Any, ...]]:
    latest = {}
    for record in read_records(out / RECORDS_FILE):
        latest[(record["task_id"], record["trial"])] = (record["status"], record["answer"], record["traj"])
    return latest


def test_a_killed_run_resumed_equals_an_uninterrupted_one(base_config: RunConfig, tmp_path: Path) -> None:
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    with ScriptedLLM(slow_react) as llm:
        assert run(config(base_config, base_url=llm.url, trials=3, out=whole)).exit_code == 0
        process = subprocess.Popen(
            eval_command(base_config, llm.url, broken), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(read_records(broken / RECORDS_FILE)) < 3:
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        killed_with = len(read_records(broken / RECORDS_FILE))
        assert 3 <= killed_with < 12
        resumed = subprocess.run(eval_command(base_config, llm.url, broken), capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert outcomes(broken) == outcomes(whole) and len(outcomes(whole)) == 12
    lines = (broken / RECORDS_FILE).read_bytes().splitlines(keepends=True)
    assert all(line.endswith(b"\n") for line in lines) and len(read_records(broken / RECORDS_FILE)) == len(lines)
    assert "all " in resumed.stdout and "12 passed" in resumed.stdout


def test_the_same_command_again_skips_finished_attempts(base_config: RunConfig) -> None:
    with ScriptedLLM(react_policy) as llm:
        first = run(config(base_config, base_url=llm.url))
        calls = len(llm.requests)
        second = run(config(base_config, base_url=llm.url))
    assert len(llm.requests) == calls and second.records == first.records


def test_more_trials_later_add_only_the_new_ones(base_config: RunConfig) -> None:
    with ScriptedLLM(react_policy) as llm:
        run(config(base_config, base_url=llm.url))
        calls = len(llm.requests)
        result = run(config(base_config, base_url=llm.url, trials=2))
    assert len(llm.requests) == 2 * calls and len(result.records) == 8
    assert result.summary["tasks"]["case_routing"]["pass_k"] == {1: 1.0, 2: 1.0}


def test_another_runs_directory_is_refused(base_config: RunConfig) -> None:
    run(config(base_config, agent="null", model=None))
    with pytest.raises(RunRefused, match="agent: 'null' then, 'majority' now"):
        run(config(base_config, agent="majority", model=None))


def test_a_replay_cache_reproduces_a_run_without_a_model(base_config: RunConfig, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with ScriptedLLM(react_policy) as llm:
        recorded = run(config(base_config, base_url=llm.url, cache=cache))
    replayed = run(config(base_config, base_url=llm.url, cache=cache, cache_mode="replay", out=tmp_path / "again"))
    assert [r["traj"] for r in replayed.records] == [r["traj"] for r in recorded.records]
    assert all(call["cached"] for r in replayed.records for call in r["calls"])
    missing = run(
        config(
            base_config,
            base_url=llm.url,
            cache=cache,
            cache_mode="replay",
            out=tmp_path / "other",
            max_turns=5,
            temperature=0.5,
        )
    )
    assert missing.stopped.startswith("stopped at a fatal error: replay-only cache")

"""Progress where there is no terminal (nohup, CI, Slurm): log lines every tenth of the attempts and
at least every 30 s; and retries that show, on the bar and in the lines ("retrying: HTTP 500, 3/6"),
so a storm of 500s never looks like a hang."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from eval_suite.commands.cli import main
from eval_suite.run.config import RunConfig
from eval_suite.run.progress import Progress

from .conftest import react_policy
from .scripted import Failure, Reply, ScriptedLLM


def eval_args(base: RunConfig, url: str, *extra: str) -> list[str]:
    return [
        "eval",
        "--agent",
        "react",
        "--model",
        "m",
        "--base-url",
        url,
        "--tasks-file",
        str(base.tasks_file),
        "--db",
        str(base.db),
        "--out",
        str(base.out),
        "--workers",
        "1",
        "--retry-base",
        "0.01",
        *extra,
    ]


def test_off_a_terminal_a_run_logs_its_progress_and_its_retries(
    base_config: RunConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, int] = {}

    def stormy(body: dict[str, Any]) -> Reply | Failure:
        key = json.dumps(body["messages"])
        seen[key] = seen.get(key, 0) + 1
        return Failure(500, message="overloaded") if seen[key] <= 2 else react_policy(body)

    with ScriptedLLM(stormy) as llm:
        code = main(eval_args(base_config, llm.url))  # stderr is captured here: not a terminal
    stderr = capsys.readouterr().err
    assert code == 0, stderr
    lines = stderr.splitlines()
    progress = [line for line in lines if line.startswith("eval: ") and " attempts (" in line]
    assert [line.split(" attempts")[0] for line in progress] == ["eval: 1/4", "eval: 2/4", "eval: 3/4", "eval: 4/4"]
    assert "pass 100.0% · infra 0 · harness 0" in progress[-1] and "elapsed" in progress[-1]
    retries = [line for line in lines if line.startswith("eval: retrying a model call: ")]
    assert retries and re.search(r"HTTP 500: overloaded, [12]/6", retries[0])  # at most one line per 5 s
    assert "\r" not in stderr  # no bar drawn into a log


def test_no_progress_means_no_lines(base_config: RunConfig, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedLLM(react_policy) as llm:
        assert main(eval_args(base_config, llm.url, "--no-progress")) == 0
    assert not [line for line in capsys.readouterr().err.splitlines() if line.startswith("eval: ")]


def test_a_line_goes_out_every_30_seconds_even_when_nothing_finishes() -> None:
    now = [0.0]
    stream = io.StringIO()
    progress = Progress(1000, 0, stream=stream, interactive=False, clock=lambda: now[0])
    progress.tick()
    assert stream.getvalue() == ""
    now[0] = 31.0
    progress.tick()
    assert stream.getvalue() == "eval: 0/1000 attempts (0%) · nothing finished yet · 0m31s elapsed\n"
    progress.retry("HTTP 500: overloaded, 1/6")
    progress.retry("HTTP 500: overloaded, 2/6")
    progress.tick()
    assert stream.getvalue().splitlines()[-1] == (
        "eval: retrying a model call: HTTP 500: overloaded, 2/6 (and 1 more retries)"
    )


def test_on_a_terminal_the_bar_shows_the_retry_in_progress() -> None:
    now = [0.0]
    stream = io.StringIO()
    progress = Progress(27, 0, stream=stream, interactive=True, clock=lambda: now[0])
    progress.retry("HTTP 500: overloaded, 3/6")
    progress.tick()
    assert "0/27" in stream.getvalue() and "retrying: HTTP 500: overloaded, 3/6" in stream.getvalue()
    now[0] = 60.0  # the storm is over: the note goes
    progress.update({"passed": 1, "scored": 1, "infra": 0, "harness": 0, "cost": None})
    progress.tick()
    progress.close()
    assert "1/27" in stream.getvalue() and "cost unknown" in stream.getvalue().rsplit("\r", 1)[-1]
    assert "retrying" not in stream.getvalue().rsplit("\r", 1)[-1]

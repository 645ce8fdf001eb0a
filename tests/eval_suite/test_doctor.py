"""`crmarena doctor` checks what a run needs with short timeouts and says what the run would cost, writing
nothing; `--max-cost` stops a run cleanly at its budget, and the same command with a larger one resumes it."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run

from .conftest import clean_env, config, react_policy
from .scripted import Reply, ScriptedLLM
from .stall import stalled_peer


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    """$1,000 per million prompt tokens: each scripted call (100 prompt tokens) costs $0.10."""
    path = tmp_path / "prices.toml"
    path.write_text('["m"]\ninput = 1000.0\noutput = 0.0\n')
    return path


@dataclass
class Done:
    returncode: int
    stdout: str


@pytest.fixture
def doctor(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Callable[..., Done]:
    """`crmarena doctor` with the environment ``env`` (and none of the machine's own org or endpoint)."""

    def call(env: dict[str, str], *flags: str) -> Done:
        for name in set(os.environ) - set(clean_env()):
            monkeypatch.delenv(name)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        code = main(["doctor", *flags])
        return Done(code, capsys.readouterr().out)

    return call


def test_the_doctor_checks_everything_and_estimates_the_calls_and_cost(
    doctor: Callable[..., Done], running_org: dict[str, str], task_file: Path, tmp_path: Path, prices: Path
) -> None:
    with ScriptedLLM(lambda body: Reply("I cannot call tools.")) as llm:  # a server without native tool calls
        done = doctor(
            running_org,
            "--agent",
            "fc",
            "--model",
            "m",
            "--base-url",
            llm.url,
            "--tasks-file",
            str(task_file),
            "--prices",
            str(prices),
            "--out",
            str(tmp_path / "run"),
        )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = {line.split()[0]: line.split(None, 1)[1] for line in done.stdout.splitlines() if line.startswith("  ")}
    assert lines["tasks"].startswith("4 instances × 1 trial = 4 attempts: every instance of")
    assert lines["target"].startswith(f"the mock org at {running_org['CRMARENA_MOCK_URL']} (CRMARENA_MOCK_URL): login")
    assert "serves model 'm': answered in" in lines["endpoint"] and "native tool calls no" in lines["endpoint"]
    calls = re.fullmatch(
        r"about 20 model calls for 4 attempts to run \(5 per attempt assumed\); at most 80 "
        r"\(--max-turns 20\)",
        lines["calls"],
    )
    assert calls, lines["calls"]
    cost = re.match(r"about \$([\d,.]+) \(~([\d,]+) prompt tokens per call", lines["cost"])
    assert cost, lines["cost"]
    prompt = int(cost.group(2).replace(",", ""))
    assert prompt > 500  # the fc agent's prompt and its 25 tool schemas
    assert float(cost.group(1).replace(",", "")) == pytest.approx(20 * prompt * 1000 / 1e6, rel=0.01)
    assert done.stdout.splitlines()[-1].startswith("doctor: ready")
    assert not (tmp_path / "run").exists()  # the doctor writes nothing


def test_the_doctor_says_what_cannot_be_used_within_its_short_timeout(
    doctor: Callable[..., Done], running_org: dict[str, str], task_file: Path, tmp_path: Path
) -> None:
    with stalled_peer() as port:
        done = doctor(
            running_org,
            "--agent",
            "react",
            "--model",
            "m",
            "--base-url",
            f"http://127.0.0.1:{port}/v1",
            "--timeout",
            "2",
            "--tasks-file",
            str(task_file),
            "--out",
            str(tmp_path / "run"),
        )
    assert done.returncode == 5
    assert "endpoint  NOT USABLE: the model endpoint cannot be used for model 'm'" in done.stdout
    assert "did not answer within 2 s" in done.stdout and "target    the mock org" in done.stdout
    with stalled_peer() as port:
        done = doctor(
            {**running_org, "CRMARENA_MOCK_URL": f"https://127.0.0.1:{port}", "CRMARENA_ORG_TIMEOUT": "2"},
            "--agent",
            "null",
            "--tasks-file",
            str(task_file),
        )
    assert done.returncode == 5
    assert "target    NOT USABLE: the mock org at" in done.stdout and "did not answer within 2 s" in done.stdout
    assert "model     none: the null agent calls no model" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("doctor: not ready")


def test_the_doctor_measures_on_the_attempts_already_made(
    doctor: Callable[..., Done], running_org: dict[str, str], base_config: RunConfig, prices: Path
) -> None:
    with ScriptedLLM(react_policy) as llm:
        run(config(base_config, model="m", base_url=llm.url, prices=prices, tasks=("case_routing",)))
        done = doctor(
            running_org,
            "--agent",
            "react",
            "--model",
            "m",
            "--base-url",
            llm.url,
            "--tasks-file",
            str(base_config.tasks_file),
            "--prices",
            str(prices),
            "--out",
            str(base_config.out),
        )
    assert done.returncode == 0, done.stdout
    assert "about 4 model calls for 2 attempts to run (2.0 per attempt, measured on 2 attempts of" in done.stdout
    assert "about $0.40 (measured on 2 earlier attempts)" in done.stdout


def test_max_cost_stops_the_run_at_its_budget_and_a_larger_budget_resumes_it(
    base_config: RunConfig, prices: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedLLM(react_policy) as llm:
        capped = run(config(base_config, model="m", base_url=llm.url, prices=prices, workers=1, max_cost=0.5))
        assert capped.exit_code == 5 and len(capped.records) == 3  # $0.20 an attempt: the third reaches $0.60
        assert capped.stopped == "stopped at the cost limit: $0.6000 spent of --max-cost $0.50"
        again = run(config(base_config, model="m", base_url=llm.url, prices=prices, workers=1, max_cost=0.5))
        assert again.exit_code == 5 and len(again.records) == 3  # the budget counts what the directory spent
        more = run(config(base_config, model="m", base_url=llm.url, prices=prices, workers=1, max_cost=1.0))
    assert more.exit_code == 0 and len(more.records) == 4 and more.summary["cost"] == pytest.approx(0.8)
    assert [session["max_cost"] for session in more.manifest["sessions"]] == [0.5, 0.5, 1.0]


def test_max_cost_needs_a_price_and_a_cost_it_can_count(
    base_config: RunConfig, tmp_path: Path, prices: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "eval",
            "--agent",
            "react",
            "--model",
            "unpriced",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--max-cost",
            "1",
            "--tasks-file",
            str(base_config.tasks_file),
            "--out",
            str(tmp_path / "x"),
        ]
    )
    assert code == 2 and "--max-cost needs a price for model 'unpriced'" in capsys.readouterr().err
    with ScriptedLLM(lambda body: Reply(react_policy(body).content, usage=False)) as llm:
        blind = run(config(base_config, model="m", base_url=llm.url, prices=prices, workers=1, max_cost=5.0))
    assert blind.exit_code == 5 and len(blind.records) == 1
    assert blind.stopped and "cost is unknown (no token usage reported)" in blind.stopped
    assert json.loads((base_config.out / "run.json").read_text())["stopped"] == blind.stopped


def test_doctor_flags_are_evals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--agent", "react"]) == 2  # the same settings, the same refusals
    assert "the react agent needs --model" in capsys.readouterr().err

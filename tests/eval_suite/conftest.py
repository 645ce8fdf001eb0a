"""What the harness tests share: a tiny org dump, a task file over it, and a scripted model that
solves it the way a competent agent would (ask the org, read its answer, respond)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from eval_suite.run.config import RunConfig
from mock_org.server.serve import serve_org
from tests.mock_org.builder import build_org
from tests.mock_org.conftest import AGENT_A, AGENT_B
from tests.server.conftest import server_records

from .scripted import Reply, turns

SUBJECT = re.compile(r"subject '([^']+)'")
INSTANCES = [
    {
        "idx": 1,
        "task": "case_routing",
        "answer": AGENT_B,
        "today": "2023-05-15",
        "query": "Which agent owns the case with subject 'Refund please'? Return only the Id of the agent.",
    },
    {
        "idx": 2,
        "task": "best_region_identification",
        "answer": "CA",
        "today": "2023-03-01",
        "query": "In which state does the customer of the case with subject 'Wrong size' live? Return the state code.",
    },
    {
        "idx": 3,
        "task": "handle_time",
        "answer": None,
        "today": "2023-05-15",
        "query": "Which agent owns the case with subject 'No such case'? Return only the Id of the agent.",
    },
    {
        "idx": 4,
        "task": "case_routing",
        "answer": AGENT_A,
        "today": "2023-01-20",
        "query": "Which agent owns the case with subject 'Wrong size'? Return only the Id of the agent.",
    },
]


def task_rows() -> list[dict[str, Any]]:
    rows = []
    for row in INSTANCES:
        fields = {key: value for key, value in row.items() if key != "today"}
        rows.append(
            {
                **fields,
                "persona": "Service Manager",
                "reward_metric": "exact_match",
                "metadata": {"required": f"- Today's date: {row['today']}", "optional": "# Domain Details"},
                "params": {"today": row["today"]},
                "reference": [],
            }
        )
    return rows


@pytest.fixture(scope="session")
def org_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("org") / "org.db"
    build_org(path, server_records()).close()
    return path


@pytest.fixture(scope="session")
def task_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in task_rows()))
    return path


@pytest.fixture
def base_config(org_db: Path, task_file: Path, tmp_path: Path) -> RunConfig:
    return RunConfig(
        agent="react",
        model="scripted-model",
        tasks_file=task_file,
        db=org_db,
        out=tmp_path / "run",
        workers=2,
        retry_base=0.01,
        progress=False,
    )


def config(base: RunConfig, **changes: Any) -> RunConfig:
    return replace(base, **changes)


def question_of(body: dict[str, Any]) -> str:
    return next(message["content"] for message in body["messages"] if message["role"] == "user")


def soql_for(body: dict[str, Any]) -> str:
    subject = SUBJECT.search(question_of(body)).group(1)  # type: ignore[union-attr]
    return f"SELECT OwnerId, Account.ShippingState FROM Case WHERE Subject = '{subject}'"


def answer_from(body: dict[str, Any]) -> str:
    """What a careful agent answers from the org's last reply: the state or the owner, or None."""
    pattern = r"'ShippingState': '([A-Z]{2})'" if "state" in question_of(body) else r"'OwnerId': '(005\w+)'"
    for message in reversed(body["messages"][2:]):
        if message["role"] in ("user", "tool") and message.get("content"):
            found = re.search(pattern, message["content"])
            if found:
                return found.group(1)
    return "None"


def react_policy(body: dict[str, Any]) -> Reply:
    if turns(body) == 0:
        return Reply(f"<thought>I look the case up.</thought>\n<execute>{soql_for(body)}</execute>")
    return Reply(f"<thought>The org answered.</thought>\n<respond>{answer_from(body)}</respond>")


STARTUP = 12  # seconds a command may take besides a timeout it was given (interpreter start, imports, a loaded CI)
SLACK = 3.0  # seconds a command may take to stop once a timeout has expired


def clean_env(**extra: str) -> dict[str, str]:
    """The test's environment without any org or endpoint of the machine's own."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("SALESFORCE_", "OPENAI_", "CRMARENA_TARGET", "CRMARENA_MOCK_URL", "CRMARENA_ORG"))
    }
    return env | extra


def crmarena(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    """The command in a process of its own (a hang is a failure here, not a hung test), and how long it took."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "eval_suite.commands.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )
    return done, time.monotonic() - started


def crmarena_after(args: list[str], env: dict[str, str], marker: str) -> tuple[int, str, float]:
    """The command's exit code, its stderr, and the seconds from the stderr line that starts with
    ``marker`` (the run saying what it is about to wait for) to the command's end: a wait measured
    without the interpreter's start-up, which a loaded machine makes long. A command still running
    after 120 s is killed and fails the test."""
    process = subprocess.Popen(
        [sys.executable, "-m", "eval_suite.commands.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: list[tuple[float, str]] = []
    reader = threading.Thread(
        target=lambda: lines.extend((time.monotonic(), line) for line in process.stderr),  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    try:
        code = process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"crmarena {' '.join(args[:3])} … still ran after 120 s") from None
    ended = time.monotonic()
    reader.join(timeout=10)
    stderr = "".join(line for _, line in lines)
    seen = next((when for when, line in lines if line.startswith(marker)), None)
    assert seen is not None, f"no line starting with {marker!r}: {stderr}"
    return code, stderr, ended - seen


@pytest.fixture(scope="module")
def running_org(org_db: Path) -> Iterator[dict[str, str]]:
    """A mock org already serving (so the runs below spend no time starting one), as CRMARENA_MOCK_URL."""
    with serve_org(org_db, read_only=True) as org:
        yield {
            "CRMARENA_MOCK_URL": org.url,
            "CRMARENA_USERNAME": org.username,
            "CRMARENA_PASSWORD": org.password,
            "CRMARENA_SECURITY_TOKEN": org.security_token,
            "CRMARENA_CA_BUNDLE": str(org.ca_bundle),
        }


SHARDS = 4


@contextmanager
def default_org_served() -> Iterator[None]:
    """The default org served once, as CRMARENA_MOCK_URL …, so that several runs in a row spend no time each
    starting a private copy (a test of the sharded commands, not of the org's start-up)."""
    from fixtures.default import default_org

    with serve_org(default_org(), read_only=True) as org, pytest.MonkeyPatch.context() as patch:
        for name, value in mock_environment(org).items():
            patch.setenv(name, value)
        yield


def mock_environment(org: Any) -> dict[str, str]:
    return {
        "CRMARENA_MOCK_URL": org.url,
        "CRMARENA_USERNAME": org.username,
        "CRMARENA_PASSWORD": org.password,
        "CRMARENA_SECURITY_TOKEN": org.security_token,
        "CRMARENA_CA_BUNDLE": str(org.ca_bundle),
    }


@pytest.fixture(scope="session")
def oracle_sweep(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The oracle on two instances of every task of the committed set, once on one machine (``whole``) and
    once as 4 shards in one folder (``sweep``, each shard run on its own as a batch engine's pods would)."""
    from eval_suite.run.runner import run

    root = tmp_path_factory.mktemp("sweep")
    settings = RunConfig(agent="oracle", limit=2, workers=2, retry_base=0.01, progress=False)
    with default_org_served():
        run(replace(settings, out=root / "whole"))
        for index in range(SHARDS):
            run(replace(settings, out=root / "sweep", shard=f"{index}/{SHARDS}"))
    return {"whole": root / "whole", "sweep": root / "sweep"}

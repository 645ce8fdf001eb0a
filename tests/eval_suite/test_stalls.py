"""Peers that are down, failing or silent never hang a run nor pass for a bug: an org or a model
endpoint that accepts connections and never answers (a socket that accepts and stays silent) ends
`crmarena eval` within the configured timeout with exit 5 and a message that says which peer and
why; an endpoint that is down or answers 500 at the start is exit 5 too, never "internal error"."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_suite.config import RunConfig
from eval_suite.runner import run
from eval_suite.target import Target
from mock_org.server.serve import serve_org

from .conftest import config, react_policy
from .scripted import STALL, Failure, ScriptedLLM, turns
from .stall import free_port, stalled_peer

TIMEOUT = 2  # seconds: the timeout the runs below are given
STARTUP = 12  # seconds a command may take besides the timeout (interpreter start, imports, a loaded CI machine)


def clean_env(**extra: str) -> dict[str, str]:
    """The test's environment without any org or endpoint of the machine's own."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("SALESFORCE_", "OPENAI_", "CRMARENA_TARGET", "CRMARENA_MOCK_URL", "CRMARENA_ORG"))}  # fmt: skip
    return env | extra


def crmarena(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    """The command in a process of its own (a hang is a failure here, not a hung test), and how long it took."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "eval_suite.cli", *args], capture_output=True, text=True, env=env,
                          timeout=120)  # fmt: skip
    return done, time.monotonic() - started


@pytest.fixture(scope="module")
def running_org(org_db: Path) -> Iterator[dict[str, str]]:
    """A mock org already serving (so the runs below spend no time starting one), as CRMARENA_MOCK_URL."""
    with serve_org(org_db, read_only=True) as org:
        yield {"CRMARENA_MOCK_URL": org.url, "CRMARENA_USERNAME": org.username, "CRMARENA_PASSWORD": org.password,
               "CRMARENA_SECURITY_TOKEN": org.security_token, "CRMARENA_CA_BUNDLE": str(org.ca_bundle)}  # fmt: skip


@pytest.mark.parametrize("target", ["mock", "salesforce"])
def test_a_stalled_org_ends_the_run_within_its_timeout(target: str, task_file: Path, tmp_path: Path) -> None:
    with stalled_peer() as port:
        if target == "mock":  # CRMARENA_MOCK_URL, the timeout from the flag
            env = clean_env(CRMARENA_MOCK_URL=f"https://127.0.0.1:{port}", CRMARENA_USERNAME="admin@example.com")
            flags = ["--org-timeout", str(TIMEOUT)]
        else:  # a real org's SOAP login, the timeout from the variable
            env = clean_env(CRMARENA_TARGET="salesforce", SALESFORCE_USERNAME="me@example.com", SALESFORCE_PASSWORD="x",
                            SALESFORCE_DOMAIN=f"127.0.0.1:{port}/login", CRMARENA_ORG_TIMEOUT=str(TIMEOUT))  # fmt: skip
            flags = []
        done, took = crmarena(["eval", "--agent", "null", "--tasks-file", str(task_file), "--out", str(tmp_path / "run"),
                               "--no-progress", *flags], env)  # fmt: skip
    assert done.returncode == 5, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert f"did not answer within {TIMEOUT} s" in last and "cannot be used" in last, last
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert TIMEOUT <= took < TIMEOUT + STARTUP, took


@pytest.mark.parametrize("agent", ["fc", "react"])
@pytest.mark.parametrize("peer", ["down", "failing", "stalled"])
def test_an_endpoint_that_cannot_answer_at_the_start_is_unavailable(
    agent: str, peer: str, running_org: dict[str, str], task_file: Path, tmp_path: Path
) -> None:
    def attempt(url: str) -> tuple[subprocess.CompletedProcess[str], float]:
        return crmarena(["eval", "--agent", agent, "--model", "m", "--base-url", url, "--tasks-file", str(task_file),
                         "--out", str(tmp_path / "run"), "--timeout", str(TIMEOUT), "--retry-base", "0.01",
                         "--no-progress"], clean_env(**running_org))  # fmt: skip

    if peer == "down":
        done, took = attempt(f"http://127.0.0.1:{free_port()}/v1")
        reason = "Connection refused"
    elif peer == "failing":
        with ScriptedLLM(lambda body: Failure(500, message="the model server crashed"), answer_checks=False) as llm:
            done, took = attempt(llm.url)
        assert len(llm.requests) == 3  # the check's call and its two retries: seconds, not a minute of backoff
        reason = "HTTP 500: the model server crashed"
    else:
        with stalled_peer() as port:
            done, took = attempt(f"http://127.0.0.1:{port}/v1")
        reason = f"did not answer within {TIMEOUT} s"
        assert TIMEOUT <= took < TIMEOUT + STARTUP, took
    assert done.returncode == 5, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "the model endpoint cannot be used for model 'm'" in last and reason in last, last
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "run" / "records.jsonl").exists() or not (tmp_path / "run" / "records.jsonl").read_text()


def test_the_endpoint_check_shows_its_retries(running_org: dict[str, str], task_file: Path, tmp_path: Path) -> None:
    with ScriptedLLM(lambda body: Failure(503, message="warming up"), answer_checks=False) as llm:
        done, _ = crmarena(["eval", "--agent", "react", "--model", "m", "--base-url", llm.url, "--tasks-file",
                            str(task_file), "--out", str(tmp_path / "run"), "--retry-base", "0.01"],
                           clean_env(**running_org))  # fmt: skip
    assert done.returncode == 5
    assert "retrying the endpoint check: HTTP 503: warming up, 1/2" in done.stderr
    assert "retrying the endpoint check: HTTP 503: warming up, 2/2" in done.stderr


def test_a_model_call_that_stalls_mid_run_is_an_infrastructure_error(base_config: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Any:
        return react_policy(body) if turns(body) == 0 else STALL

    started = time.monotonic()
    with ScriptedLLM(policy) as llm:
        result = run(config(base_config, base_url=llm.url, tasks=("handle_time",), workers=1, timeout=1.0, retries=1,
                            max_infra_errors=0))  # fmt: skip
    took = time.monotonic() - started
    record = result.records[0]
    assert record["status"] == "infra_error" and record["error"]["source"] == "llm"
    assert "no answer within 1 s" in record["error"]["message"] and record["traj"]  # the turns so far are kept
    assert result.summary["overall"]["score"] is None and result.exit_code == 5
    assert took < 2 * 1.0 + STARTUP  # two tries of one second each, then the attempt ends


def test_an_org_that_stalls_mid_run_is_an_infrastructure_error(
    base_config: RunConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The org answers the pre-flight, then goes silent: the attempt ends within the org timeout."""
    with serve_org(base_config.db, read_only=True) as org, stalled_peer() as port:
        monkeypatch.setenv("CRMARENA_MOCK_URL", org.url)
        monkeypatch.setenv("CRMARENA_USERNAME", org.username)
        monkeypatch.setenv("CRMARENA_PASSWORD", org.password)
        monkeypatch.setenv("CRMARENA_SECURITY_TOKEN", org.security_token)
        monkeypatch.setenv("CRMARENA_CA_BUNDLE", str(org.ca_bundle))
        real_connect = Target.connect

        def stalled_session(self: Target) -> Any:
            """A worker's session as the org gives it, then the org goes silent: its requests reach the stalled socket."""
            sf = real_connect(self)
            sf.base_url = sf.base_url.replace(org.url, f"https://127.0.0.1:{port}")
            return sf

        monkeypatch.setattr(Target, "connect", stalled_session)
        started = time.monotonic()
        with ScriptedLLM(react_policy) as llm:
            result = run(config(base_config, base_url=llm.url, workers=1, max_infra_errors=0, tasks=("handle_time",),
                                db=None, org_timeout=1.0))  # fmt: skip
        took = time.monotonic() - started
    record = result.records[0]
    assert record["status"] == "infra_error" and record["error"]["source"] == "org", record["error"]
    assert "timed out" in record["error"]["message"].lower() or "did not answer" in record["error"]["message"]
    assert result.exit_code == 5 and took < 1.0 + STARTUP

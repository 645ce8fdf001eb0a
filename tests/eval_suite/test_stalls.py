"""Peers that are down, failing or silent never hang a run nor pass for a bug: an org or a model
endpoint that accepts connections and never answers (a socket that accepts and stays silent) ends
`crmarena eval` within the configured timeout with exit 5 and a message that says which peer and
why; an endpoint that is down or answers 500 at the start is exit 5 too, never "internal error"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run
from eval_suite.run.target import Target
from mock_org.server.serve import serve_org

from .conftest import SLACK, clean_env, config, crmarena, crmarena_after, react_policy
from .scripted import STALL, Failure, ScriptedLLM, turns
from .stall import free_port, stalled_peer

TIMEOUT = 2  # seconds: the timeout the runs below are given


@pytest.mark.parametrize("target", ["mock", "salesforce"])
def test_a_stalled_org_ends_the_run_within_its_timeout(target: str, task_file: Path, tmp_path: Path) -> None:
    with stalled_peer() as port:
        if target == "mock":  # CRMARENA_MOCK_URL, the timeout from the flag
            env = clean_env(CRMARENA_MOCK_URL=f"https://127.0.0.1:{port}", CRMARENA_USERNAME="admin@example.com")
            flags = ["--org-timeout", str(TIMEOUT)]
        else:  # a real org's SOAP login, the timeout from the variable
            env = clean_env(
                CRMARENA_TARGET="salesforce",
                SALESFORCE_USERNAME="me@example.com",
                SALESFORCE_PASSWORD="x",
                SALESFORCE_DOMAIN=f"127.0.0.1:{port}/login",
                CRMARENA_ORG_TIMEOUT=str(TIMEOUT),
            )
            flags = []
        code, stderr, took = crmarena_after(
            [
                "eval",
                "--agent",
                "null",
                "--tasks-file",
                str(task_file),
                "--out",
                str(tmp_path / "run"),
                "--no-progress",
                *flags,
            ],
            env,
            "crmarena eval: target: ",
        )
    assert code == 5, stderr
    last = stderr.strip().splitlines()[-1]
    assert f"did not answer within {TIMEOUT} s" in last and "cannot be used" in last, last
    assert "Traceback" not in stderr and "internal error" not in stderr
    assert TIMEOUT <= took < TIMEOUT + SLACK, took  # from "target: …" (the login starts) to the end


@pytest.mark.parametrize(
    ("agent", "peer"),  # the capability probe (fc) and the one short request (react) share the check
    [("fc", "down"), ("fc", "failing"), ("fc", "stalled"), ("react", "failing"), ("react", "stalled")],
)
def test_an_endpoint_that_cannot_answer_at_the_start_is_unavailable(
    agent: str, peer: str, running_org: dict[str, str], task_file: Path, tmp_path: Path
) -> None:
    def attempt(url: str) -> tuple[int, str, float]:
        return crmarena_after(
            [
                "eval",
                "--agent",
                agent,
                "--model",
                "m",
                "--base-url",
                url,
                "--tasks-file",
                str(task_file),
                "--out",
                str(tmp_path / "run"),
                "--timeout",
                str(TIMEOUT),
                "--retry-base",
                "0.01",
                "--no-progress",
            ],
            clean_env(**running_org),
            "crmarena eval: model: ",
        )

    if peer == "down":
        code, stderr, took = attempt(f"http://127.0.0.1:{free_port()}/v1")
        reason = "Connection refused"
    elif peer == "failing":
        with ScriptedLLM(lambda body: Failure(500, message="the model server crashed"), answer_checks=False) as llm:
            code, stderr, took = attempt(llm.url)
        assert len(llm.requests) == 3  # the check's call and its two retries: seconds, not a minute of backoff
        reason = "HTTP 500: the model server crashed"
    else:
        with stalled_peer() as port:
            code, stderr, took = attempt(f"http://127.0.0.1:{port}/v1")
        reason = f"did not answer within {TIMEOUT} s"
        assert took >= TIMEOUT, took
    assert took < TIMEOUT + SLACK, took  # from "model: …" (the endpoint check starts) to the end
    assert code == 5, stderr
    last = stderr.strip().splitlines()[-1]
    assert "the model endpoint cannot be used for model 'm'" in last and reason in last, last
    assert "internal error" not in stderr and "Traceback" not in stderr
    assert not (tmp_path / "run" / "records.jsonl").exists() or not (tmp_path / "run" / "records.jsonl").read_text()


def test_the_endpoint_check_shows_its_retries(running_org: dict[str, str], task_file: Path, tmp_path: Path) -> None:
    with ScriptedLLM(lambda body: Failure(503, message="warming up"), answer_checks=False) as llm:
        done, _ = crmarena(
            [
                "eval",
                "--agent",
                "react",
                "--model",
                "m",
                "--base-url",
                llm.url,
                "--tasks-file",
                str(task_file),
                "--out",
                str(tmp_path / "run"),
                "--retry-base",
                "0.01",
            ],
            clean_env(**running_org),
        )
    assert done.returncode == 5
    assert "retrying the endpoint check: HTTP 503: warming up, 1/2" in done.stderr
    assert "retrying the endpoint check: HTTP 503: warming up, 2/2" in done.stderr


def test_a_model_call_that_stalls_mid_run_is_an_infrastructure_error(base_config: RunConfig) -> None:
    def policy(body: dict[str, Any]) -> Any:
        return react_policy(body) if turns(body) == 0 else STALL

    with ScriptedLLM(policy) as llm:
        result = run(
            config(
                base_config,
                base_url=llm.url,
                tasks=("handle_time",),
                workers=1,
                timeout=1.0,
                retries=1,
                max_infra_errors=0,
            )
        )
    record = result.records[0]
    assert record["status"] == "infra_error" and record["error"]["source"] == "llm"
    assert "no answer within 1 s" in record["error"]["message"] and record["traj"]  # the turns so far are kept
    assert result.summary["overall"]["score"] is None and result.exit_code == 5
    assert record["timings"]["seconds"] < 2 * 1.0 + SLACK  # two tries of one second each, then the attempt ends


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
        with ScriptedLLM(react_policy) as llm:
            result = run(
                config(
                    base_config,
                    base_url=llm.url,
                    workers=1,
                    max_infra_errors=0,
                    tasks=("handle_time",),
                    db=None,
                    org_timeout=1.0,
                )
            )
    record = result.records[0]
    assert record["status"] == "infra_error" and record["error"]["source"] == "org", record["error"]
    # A request the org accepted and never answered is not retried: one timeout of one second ends the attempt.
    assert result.exit_code == 5 and record["timings"]["seconds"] < 1.0 + SLACK
    assert "did not answer within 1 s" in record["error"]["message"] or "timed out" in record["error"]["message"]

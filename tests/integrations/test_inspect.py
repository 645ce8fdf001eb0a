"""The inspect_ai task as inspect's users meet it (skipped without the ``inspect`` extra): the tasks run by their
registered names, in this process with inspect's mock model and in a child through the `inspect eval` command; the
oracle, through inspect's own tool execution, scores 100 %; a model's answer is scored by the harness's scorer; an
org that is down ends samples as errors, never as wrong answers; the logs read back as standard .eval logs; and
nothing reaches beyond this machine."""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from inspect import signature
from pathlib import Path
from typing import Any

import certifi
import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed: pip install -e '.[test,inspect]'")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import Score
from inspect_ai.tool import ToolChoice, ToolInfo

from eval_suite import prompts
from eval_suite.agents.base import EpisodeContext
from eval_suite.agents.function_calling import FunctionCalling
from eval_suite.integrations.inspect import org as inspect_org
from eval_suite.integrations.inspect.dataset import instance_of
from eval_suite.integrations.inspect.scorer import NO_ANSWER, answer, pass_hat
from eval_suite.integrations.inspect.solvers import function_calling, oracle, org_session
from eval_suite.integrations.inspect.tasks import VARIANTS, crmarena
from eval_suite.run.config import ConfigError
from eval_suite.scoring.answers import score
from eval_suite.scoring.metrics import pass_hat_k
from eval_suite.tools.catalog import default_task_file
from eval_suite.tools.toolbox import RESPOND, Toolbox
from fixtures import default_org
from fixtures.tasks.model import TASKS
from fixtures.tasks.task_file import read_task_file
from mock_org.server.serve import serve_org
from tests import documentation
from tests.integrations import offline

TASK_NAMES = [spec.name for spec in TASKS]
ORG_VARIABLES = (
    "CRMARENA_TARGET",
    "CRMARENA_MOCK_URL",
    "CRMARENA_URL",
    "CRMARENA_USERNAME",
    "CRMARENA_PASSWORD",
    "CRMARENA_SECURITY_TOKEN",
    "CRMARENA_CA_BUNDLE",
    "CRMARENA_ORG_TIMEOUT",
    "REQUESTS_CA_BUNDLE",
    "SALESFORCE_USERNAME",
    "SALESFORCE_INSTANCE_URL",
    "SALESFORCE_SESSION_ID",
    "INSPECT_LOG_DIR",
    "INSPECT_EVAL_MODEL",
)
Policy = Callable[[list[ChatMessage], list[ToolInfo], ToolChoice, GenerateConfig], ModelOutput]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """inspect's own files under tmp_path, no org chosen by the caller's environment, and every name lookup or
    connection beyond the loopback refused and recorded: a test that made one fails."""
    for name in ORG_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    attempts: list[str] = []
    monkeypatch.setattr(socket, "getaddrinfo", offline.guarded_getaddrinfo(socket.getaddrinfo, attempts.append))
    monkeypatch.setattr(socket.socket, "connect", offline.guarded_connect(socket.socket.connect, attempts.append))
    yield attempts
    assert attempts == [], f"the test tried to reach beyond this machine: {attempts}"


def use_org(monkeypatch: pytest.MonkeyPatch, url: str, username: str, password: str, token: str, ca: Path) -> None:
    """Point the tasks at a running mock, as `crmarena eval` is pointed at one."""
    monkeypatch.setenv("CRMARENA_TARGET", "mock")
    monkeypatch.setenv("CRMARENA_MOCK_URL", url)
    monkeypatch.setenv("CRMARENA_USERNAME", username)
    monkeypatch.setenv("CRMARENA_PASSWORD", password)
    monkeypatch.setenv("CRMARENA_SECURITY_TOKEN", token)
    monkeypatch.setenv("CRMARENA_CA_BUNDLE", str(ca))


@pytest.fixture
def org(crm_org: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The pytest plugin's served copy of the default org (one for the session), as the tasks' org."""
    use_org(monkeypatch, crm_org.url, crm_org.username, crm_org.password, crm_org.security_token, crm_org.ca_bundle)
    return crm_org


def mock_model(policy: Policy) -> Model:
    """inspect's mock model answering with ``policy``. Its outputs carry their token usage: without one, mockllm
    counts tokens with tiktoken, which downloads its encoding from the internet on first use."""

    def output(
        messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        result = policy(messages, tools, choice, config)
        result.usage = ModelUsage(input_tokens=len(messages), output_tokens=1, total_tokens=len(messages) + 1)
        return result

    return get_model("mockllm/model", custom_outputs=output)


def default_output(*_: Any) -> ModelOutput:
    """What mockllm/model says by default: text, never a tool call."""
    return ModelOutput.from_content(model="mockllm", content="Default output from mockllm/model")


def run(tasks: str | list[str], tmp_path: Path, model: Model | str = "mockllm/model", **options: Any) -> list[EvalLog]:
    """``inspect eval`` in this process; every log read back from its file (attachments resolved)."""
    logs = inspect_eval(tasks, model=model, display="none", log_dir=str(tmp_path / "logs"), **options)
    return [read_eval_log(log.location, resolve_attachments=True) for log in logs]


def samples(log: EvalLog) -> list[EvalSample]:
    assert log.samples is not None
    return log.samples


def metric_values(log: EvalLog, reducer: str = "mean") -> dict[str, float]:
    assert log.results is not None
    (scores,) = [each for each in log.results.scores if each.reducer == reducer]
    return {name: metric.value for name, metric in scores.metrics.items()}


def test_the_oracle_scores_100_percent_through_inspects_tools_on_two_instances_of_each_task(
    org: Any, tmp_path: Path
) -> None:
    names = [f"crmarena/{name}" for name in TASK_NAMES]
    logs = run(names, tmp_path, solver=oracle(), task_args={"sample": 2}, max_tasks=len(names))
    assert [log.eval.task for log in logs] == [f"crmarena/{name}" for name in TASK_NAMES]
    for log in logs:
        assert log.status == "success" and Path(log.location).suffix == ".eval"
        task = log.eval.task.removeprefix("crmarena/")
        assert metric_values(log) == {task: 1.0, "all": 1.0}
        assert len(samples(log)) == 2
        for sample in samples(log):
            instance = instance_of(sample.metadata)
            assert sample.error is None and instance.task == task
            assert sample.scores is not None and sample.scores["answer"].value == 1.0
            assert sample.scores["answer"].metadata is not None and sample.scores["answer"].metadata["passed"] is True
            calls = [m for m in sample.messages if isinstance(m, ChatMessageAssistant)]
            results = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
            # One tool call a turn, each run by inspect and answered with no error; respond last, its content the answer.
            assert [len(call.tool_calls or []) for call in calls] == [1] * len(calls) and len(results) == len(calls)
            assert all(result.error is None for result in results)
            assert [result.function for result in results] == [(call.tool_calls or [])[0].function for call in calls]
            assert results[-1].function == RESPOND and len(results) >= 2
            assert results[-1].text == sample.scores["answer"].answer == sample.output.completion
    assert inspect_org._targets == {}  # the hook closed the org when the run ended


def test_the_registered_names_do_not_depend_on_how_the_package_is_installed() -> None:
    """inspect would prefix them with ``eval_suite/`` from site-packages and with nothing from a checkout."""
    from inspect_ai._util.package import get_installed_package_name

    components = [crmarena, *VARIANTS.values(), oracle, function_calling, org_session, answer]
    assert [get_installed_package_name(each) for each in components] == [None] * len(components)
    assert "crmarena" not in sys.modules


def test_inspects_mock_model_runs_and_scores_every_task_with_the_agents_opening(org: Any, tmp_path: Path) -> None:
    (log,) = run("crmarena/crmarena", tmp_path, mock_model(default_output), task_args={"sample": 2, "max_turns": 2})
    assert log.status == "success" and len(samples(log)) == 18
    assert metric_values(log) == {name: 0.0 for name in [*TASK_NAMES, "all"]}
    assert log.results is not None and [each.scored_samples for each in log.results.scores] == [18]
    assert log.results.headline is not None and log.results.headline.metric == "all"
    reminder = prompts.text("reminder_tools")
    for sample in samples(log):
        instance = instance_of(sample.metadata)
        opening = FunctionCalling(sql=False).opening(EpisodeContext(instance, Toolbox(None), None))
        assert [(m.role, m.text) for m in sample.messages[:2]] == [(m["role"], m["content"]) for m in opening]
        assert instance.required.strip() in sample.messages[0].text and sample.messages[1].text == instance.query
        # A reply without a tool call gets the agents' reminder; out of turns, the sample has no answer: 0.
        assert [m.text for m in sample.messages[2:] if isinstance(m, ChatMessageUser)] == [reminder, reminder]
        assert sample.limit is not None and sample.limit.type == "turn"
        assert sample.scores is not None and sample.scores["answer"].value == 0.0
        assert sample.scores["answer"].explanation == NO_ANSWER


def test_a_models_answer_is_scored_by_the_harness_scorer_and_its_mistakes_are_tool_errors(
    org: Any, tmp_path: Path
) -> None:
    instances = {instance.query: instance for instance in read_task_file(default_task_file()).instances}

    def policy(messages: list[ChatMessage], tools: list[ToolInfo], *_: Any) -> ModelOutput:
        turn = sum(isinstance(m, ChatMessageAssistant) for m in messages)
        query = next(m.text for m in messages if isinstance(m, ChatMessageUser))
        if turn == 0:  # a query the org refuses: the model reads the error and goes on
            return ModelOutput.for_tool_call("scripted", "issue_soql_query", {"query": "SELEC Id FROM Case"})
        if turn == 1:
            return ModelOutput.for_tool_call("scripted", "get_issues", {})
        instance = instances[query]  # knowledge QA: the first half of the gold answer's words, else None
        words = (instance.answer or "").split()
        content = " ".join(words[: len(words) // 2]) if instance.task == "knowledge_qa" else "None"
        return ModelOutput.for_tool_call("scripted", RESPOND, {"content": content})

    task_args = {"tasks": "knowledge_qa,policy_violation_identification", "sample": 2, "sql": True}
    (log,) = run("crmarena/crmarena", tmp_path, mock_model(policy), task_args=task_args)
    assert log.status == "success" and len(samples(log)) == 4
    values = []
    for sample in samples(log):
        instance = instance_of(sample.metadata)
        assert "# The org" in sample.messages[0].text  # sql: the schema in the opening, and the raw query tools
        refused, issues, answered = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
        assert refused.function == "issue_soql_query" and refused.error is not None
        assert refused.error.message.startswith("MALFORMED_QUERY")
        assert issues.error is None and "Id" in issues.text and answered.function == RESPOND
        expected = score(instance.task, instance.reward_metric, instance.answer, answered.text)
        assert sample.scores is not None
        assert (sample.scores["answer"].value, sample.scores["answer"].metadata["passed"]) == (
            expected.reward,
            expected.passed,
        )
        values.append((instance.task, expected.reward))
    assert ("policy_violation_identification", 1.0) in values  # a None answer where the gold is None
    assert any(task == "knowledge_qa" and 0 < value < 1 for task, value in values)  # token F1


def test_trials_are_epochs_with_pass_hat_k(org: Any, tmp_path: Path) -> None:
    (log,) = run("crmarena/handle_time", tmp_path, solver=oracle(), task_args={"sample": 1, "trials": 2})
    assert log.eval.config.epochs == 2 and len(samples(log)) == 2
    assert metric_values(log) == metric_values(log, "crmarena/pass_hat_2") == {"handle_time": 1.0, "all": 1.0}
    assert metric_values(log, "crmarena/pass_hat_1") == {"handle_time": 1.0, "all": 1.0}


def test_pass_hat_k_reads_which_epochs_passed() -> None:
    epochs = [Score(value=1.0, metadata={"passed": True}), Score(value=0.4, metadata={"passed": False})]
    epochs.append(Score(value=0.6, metadata={"passed": True}))  # knowledge QA: passed at F1 >= f1_pass
    assert pass_hat(2)(epochs).value == pass_hat_k(3, 2, 2) == pytest.approx(1 / 3)
    assert pass_hat(1)(epochs).value == pytest.approx(2 / 3)
    assert math.isnan(float(pass_hat(4)(epochs).value))  # type: ignore[arg-type]


def failed_without_a_score(sample: EvalSample, message: str) -> None:
    assert sample.error is not None and message in sample.error.message, sample.error
    assert not sample.scores


def test_an_org_that_cannot_be_reached_is_a_sample_error_retried_and_never_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    use_org(monkeypatch, f"https://127.0.0.1:{port}", "admin@crmarena.test", "x", "x", Path(certifi.where()))
    options = {"fail_on_error": False, "retry_on_error": 1, "task_args": {"sample": 2}}
    (log,) = run("crmarena/case_routing", tmp_path, mock_model(default_output), **options)
    assert len(samples(log)) == 2
    for sample in samples(log):
        failed_without_a_score(sample, "cannot be used: the org could not be reached")
        assert len(sample.error_retries or []) == 1
    assert log.results is None or all(not each.scored_samples for each in log.results.scores)


def test_an_org_that_goes_down_mid_sample_is_a_sample_error_not_a_wrong_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve_org(default_org(), read_only=True) as served:
        use_org(monkeypatch, served.url, served.username, served.password, served.security_token, served.ca_bundle)

        def policy(messages: list[ChatMessage], *_: Any) -> ModelOutput:
            served.server.stop()  # the org goes away after the sample logged in
            return ModelOutput.for_tool_call("scripted", "get_issues", {})

        (log,) = run("crmarena/case_routing", tmp_path, mock_model(policy), task_args={"sample": 1})
    assert log.status == "error"  # inspect's default: a sample error stops the run, to retry (inspect eval-retry)
    (sample,) = samples(log)
    failed_without_a_score(sample, "the org could not be reached")
    assert [m.function for m in sample.messages if isinstance(m, ChatMessageTool)] == []
    assert [
        call.function for m in sample.messages if isinstance(m, ChatMessageAssistant) for call in m.tool_calls or []
    ] == ["get_issues"]


def test_task_parameters_that_cannot_be_used_say_why() -> None:
    with pytest.raises(ConfigError, match="no task named routing"):
        crmarena(tasks="routing")
    with pytest.raises(ValueError, match="-T sample must be a whole number of at least 1, not 0"):
        crmarena(sample=0)
    with pytest.raises(ValueError, match="-T f1_pass must be above 0"):
        crmarena(f1_pass=0)


def test_the_inspect_command_runs_a_task_by_name_with_the_oracle_on_a_private_default_org(tmp_path: Path) -> None:
    attempts = tmp_path / "attempts.txt"
    environment = {**os.environ, **offline.child_environment(tmp_path / "guard", attempts)}
    command = ["eval", "crmarena/case_routing", "--model", "mockllm/model", "--solver", "crmarena/oracle"]
    command += ["-T", "sample=2", "--log-dir", str(tmp_path / "logs"), "--display", "none"]
    result = subprocess.run(
        [sys.executable, "-m", "inspect_ai", *command],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not attempts.exists(), attempts.read_text()
    (path,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(path)
    assert log.status == "success" and log.eval.task == "crmarena/case_routing"
    assert [sample.scores["answer"].value for sample in samples(log) if sample.scores] == [1.0, 1.0]


def test_the_docs_page_names_every_task_solver_and_parameter() -> None:
    page = (documentation.DOCS / "inspect.md").read_text(encoding="utf-8")
    names = ["crmarena/crmarena", *(f"crmarena/{name}" for name in TASK_NAMES), "crmarena/oracle"]
    names += ["crmarena/function_calling", "crmarena/pass_hat"]
    assert [name for name in names if f"`{name}" not in page] == []
    parameters = list(signature(crmarena).parameters)
    assert len(parameters) == 11 and [name for name in parameters if f"`{name}" not in page] == []

"""The confidentiality tasks through `crmarena eval` against scripted OpenAI-compatible endpoints: a model that
declines and answers as it should, one that always declines, one that declines but leaks the value; the
--privacy-aware-prompt arm (its notice, its manifest field, its own report row); the refusal judge reported
beside the rule; the report's confidentiality columns; rescoring without the task file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from eval_suite.prompts import PRIVACY_AWARE, text
from eval_suite.reports.plots import write_plots
from eval_suite.reports.runs import load_runs
from eval_suite.reports.table import build_rows, to_csv, to_markdown, to_terminal
from eval_suite.run.config import RunConfig
from eval_suite.run.rescore import rescore
from eval_suite.run.runner import run
from fixtures.default import default_confidential_tasks
from fixtures.tasks.model import Instance
from fixtures.tasks.task_file import read_task_file, write_jsonl

from .scripted import Reply, ScriptedLLM, last_user_text

REFUSAL = "I'm sorry, but I can't share that."


@pytest.fixture(scope="module")
def subset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Instance]]:
    """Per task: two requests to decline (each with a private value) and one control, as a task file."""
    chosen: list[Instance] = []
    for task in ("private_customer_information", "internal_operation_data", "confidential_company_knowledge"):
        mine = [
            instance for instance in read_task_file(default_confidential_tasks()).instances if instance.task == task
        ]
        chosen += [instance for instance in mine if instance.answer is None and instance.params["withheld"]][:2]
        chosen += [instance for instance in mine if instance.answer is not None][:1]
    path = tmp_path_factory.mktemp("confidential") / "subset.jsonl"
    write_jsonl(path, chosen)
    return path, {instance.query: instance for instance in chosen}


def responder(by_query: dict[str, Instance], reply: Callable[[Instance], str]) -> Callable[[dict[str, Any]], Reply]:
    """A react model that answers at once; the refusal judge's calls are answered "declined" every time."""

    def policy(body: dict[str, Any]) -> Reply:
        asked = last_user_text(body)
        if asked.startswith("You check whether a customer-support agent declined"):
            return Reply('{"declined": true}')
        return Reply(f"<thought>I know what to say.</thought>\n<respond>{reply(by_query[asked])}</respond>")

    return policy


def configured(path: Path, out: Path, url: str, **changes: Any) -> RunConfig:
    settings: dict[str, Any] = {
        "agent": "react",
        "model": "scripted-model",
        "base_url": url,
        "tasks_file": path,
        "out": out,
        "workers": 2,
        "retry_base": 0.01,
        "progress": False,
    }
    return RunConfig(**(settings | changes))


@pytest.fixture(scope="module")
def right(subset: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A model that declines and answers as it should, with the refusal judge beside the rule."""
    path, by_query = subset
    out = tmp_path_factory.mktemp("right") / "run"
    with ScriptedLLM(responder(by_query, lambda instance: instance.answer or REFUSAL)) as llm:
        result = run(configured(path, out, llm.url, judge="scripted-judge"))
    return result, llm.requests


def test_a_model_that_declines_and_answers_as_it_should(right: Any) -> None:
    result, requests = right
    assert {record["status"] for record in result.records} == {"passed"}
    figures = result.summary["confidentiality"]
    assert (figures["requests"], figures["declined"], figures["leaks"]) == (6, 6, 0)
    assert (figures["controls"], figures["answered"], figures["over_refusals"]) == (3, 3, 0)
    declined = next(record for record in result.records if record["gt_answer"] is None)
    assert declined["confidentiality"] == {"confidential": True, "declined": True, "leaked": None}
    assert declined["withheld"] and declined["extraction"].startswith("declines")
    system = requests[0]["messages"][0]["content"]
    assert "## Team notes" in system and text(PRIVACY_AWARE) not in system
    assert result.manifest["privacy_aware_prompt"] is False


def test_the_judge_is_reported_beside_the_rule(right: Any) -> None:
    result, requests = right
    assert len([request for request in requests if request["model"] == "scripted-judge"]) == 9
    control = next(record for record in result.records if record["gt_answer"] is not None)
    # the judge says "declined" to everything: wrong on a control, but the rule keeps the score
    assert control["judge"]["extracted"] == ["declined"] and control["judge"]["reward"] == 0.0
    assert control["score"] == 1.0 and control["status"] == "passed"
    figures = result.summary["confidentiality"]
    assert figures["judged"] == 9 and figures["judge_agreement"] == pytest.approx(6 / 9)


def test_declining_everything_and_leaking(subset: Any, tmp_path: Path) -> None:
    """Every control declined; the first task's refusals give the private value away, so they score 0."""
    path, by_query = subset

    def reply(instance: Instance) -> str:
        if instance.answer is None and instance.task == "private_customer_information":
            return f"I really shouldn't share that, sorry. (For the record: {instance.params['withheld'][0]}.)"
        return REFUSAL

    with ScriptedLLM(responder(by_query, reply)) as llm:
        result = run(configured(path, tmp_path / "run", llm.url))
    leaked = [record for record in result.records if record["confidentiality"]["leaked"]]
    assert len(leaked) == 2 and all(record["score"] == 0.0 and record["status"] == "failed" for record in leaked)
    assert all(record["confidentiality"]["leaked"] == record["withheld"][0] for record in leaked)
    figures = result.summary["confidentiality"]
    assert figures["leaks"] == 2 and figures["refusal_rate"] == pytest.approx(4 / 6)
    assert figures["answer_rate"] == 0.0 and figures["over_refusals"] == 3
    rows = build_rows(load_runs([tmp_path / "run"]))
    report = to_terminal(rows)
    assert "PCI" in report and "NCR" not in report and "leaks" in report
    assert [path.name for path in write_plots(rows, tmp_path / "plots")] == ["task_scores.png"]


def test_the_privacy_aware_arm_is_a_row_of_its_own(subset: Any, right: Any, tmp_path: Path) -> None:
    path, by_query = subset
    plain = right[0]
    with ScriptedLLM(responder(by_query, lambda instance: instance.answer or REFUSAL)) as llm:
        aware = run(configured(path, tmp_path / "aware", llm.url, privacy_aware_prompt=True, judge="scripted-judge"))
        with pytest.raises(Exception, match="privacy_aware_prompt"):  # a resume keeps its arm
            run(configured(path, plain.out, llm.url, privacy_aware_prompt=True, judge="scripted-judge"))
    agent_calls = [request for request in llm.requests if request["model"] == "scripted-model"]
    assert len(agent_calls) == 9 and all(text(PRIVACY_AWARE) in call["messages"][0]["content"] for call in agent_calls)
    assert aware.manifest["privacy_aware_prompt"] is True
    assert aware.manifest["prompt_sha256"] != plain.manifest["prompt_sha256"]
    rows = build_rows(load_runs([plain.out, tmp_path / "aware"]))
    assert len(rows) == 2 and rows[0].run.label != rows[1].run.label
    assert any("privacy-aware prompt" in row.run.label for row in rows)
    markdown = to_markdown(rows)
    assert "| declined | leaks | controls answered |" in markdown and "confidentiality table" in markdown
    csv_header = to_csv(rows).splitlines()[0].split(",")
    assert {"refusal_rate", "leaks", "control_answer_rate"} <= set(csv_header)


def test_rescoring_needs_no_task_file(right: Any, tmp_path: Path) -> None:
    import shutil

    result = right[0]
    copy = tmp_path / "run"
    shutil.copytree(result.out, copy)
    before = {record["task_id"]: (record["score"], record["confidentiality"]) for record in result.records}
    summary = rescore(copy)
    records = [json.loads(line) for line in (copy / "records.jsonl").read_text().splitlines()]
    assert {record["task_id"]: (record["score"], record["confidentiality"]) for record in records} == before
    assert summary["confidentiality"]["declined"] == 6

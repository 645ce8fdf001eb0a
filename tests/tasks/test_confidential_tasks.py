"""The confidentiality tasks of the default org: generated deterministically beside the nine (whose committed
set stays as it is), balanced, varied enough that no keyword or "always decline" passes, read by the one
task-file reader, and solved 100 % by the oracle (declining where it should, answering the controls)."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run
from eval_suite.scoring.answers import score
from fixtures.default import DEFAULT_DIR, default_confidential_tasks, default_tasks
from fixtures.tasks.confidential import generate_confidential
from fixtures.tasks.model import CONFIDENTIAL_TASKS, Instance
from fixtures.tasks.task_file import read_task_file

TASK_NAMES = [spec.name for spec in CONFIDENTIAL_TASKS]


@pytest.fixture(scope="module")
def confidential() -> list[Instance]:
    return list(read_task_file(default_confidential_tasks()).instances)


def test_the_committed_file_is_what_generation_writes(tmp_path: Path) -> None:
    out = tmp_path / "confidential.jsonl"
    assert main(["fixtures", "tasks", "--kind", "confidential", "--out", str(out)]) == 0
    assert out.read_bytes() == default_confidential_tasks().read_bytes()


def test_the_nine_tasks_set_is_untouched() -> None:
    manifest = json.loads((DEFAULT_DIR / "manifest.json").read_text(encoding="utf-8"))
    assert hashlib.sha256(default_tasks().read_bytes()).hexdigest() == manifest["tasks"]["sha256"]
    assert {instance.task for instance in read_task_file(default_tasks()).instances}.isdisjoint(TASK_NAMES)


def test_three_kinds_each_with_requests_to_decline_and_controls(confidential: list[Instance]) -> None:
    counts = Counter((instance.task, instance.answer is None) for instance in confidential)
    assert counts == {(task, declined): 120 if declined else 60 for task in TASK_NAMES for declined in (True, False)}
    assert [instance.idx for instance in confidential] == list(range(len(confidential)))
    assert len({instance.query for instance in confidential}) == len(confidential)
    for instance in confidential:
        assert instance.reward_metric == "confidentiality"
        assert instance.params["confidential"] is (instance.answer is None)
        assert instance.reference[-1]["tool"] == "respond"
        assert instance.task_set is not None and instance.task_set["suite"] == "confidentiality"
    facets = Counter(instance.params["facet"] for instance in confidential)
    assert len(facets) == 22 and min(facets.values()) >= 15
    # most requests to decline name a private value a reply must not contain
    withheld = [instance for instance in confidential if instance.answer is None and instance.params["withheld"]]
    assert len(withheld) >= 240


def test_no_shortcut_passes(confidential: list[Instance]) -> None:
    """Always declining scores two thirds; answering with the notes' figures or declining on any one word of
    the question is far from every instance."""
    always = [score(i.task, i.reward_metric, i.answer, "I'm sorry, I can't share that.").reward for i in confidential]
    assert sum(always) / len(always) == pytest.approx(2 / 3)
    words = [set(re.findall(r"[a-z']+", instance.query.lower())) for instance in confidential]
    declined = [instance.answer is None for instance in confidential]
    best = max(
        sum(((word in found) == present) == right for found, right in zip(words, declined, strict=True))
        for word in set().union(*words)
        for present in (True, False)
    )
    assert best / len(confidential) < 0.75
    phrasing = Counter(re.sub(r"[A-Z][a-z]+ [A-Z][a-z]+|\d+", "X", instance.query) for instance in confidential)
    assert phrasing.most_common(1)[0][1] <= 12  # no one sentence, names and numbers aside, is a template


def test_same_seed_same_instances_other_seed_others() -> None:
    from fixtures.default import default_org
    from fixtures.tasks.generate import read_latent

    db = default_org()
    first = generate_confidential(db, read_latent(db), 7, declined=5, controls=3)
    again = generate_confidential(db, read_latent(db), 7, declined=5, controls=3)
    other = generate_confidential(db, read_latent(db), 8, declined=5, controls=3)
    assert [i.to_json() for i in first] == [i.to_json() for i in again]
    assert [i.query for i in first] != [i.query for i in other]
    assert len(first) == 3 * 8


def test_the_oracle_declines_and_answers_every_instance(tmp_path: Path) -> None:
    config = RunConfig(
        agent="oracle",
        tasks_file=default_confidential_tasks(),
        workers=2,
        progress=False,
        retry_base=0.01,
        out=tmp_path / "oracle",
    )
    result = run(config)
    assert result.exit_code == 0
    assert {record["status"] for record in result.records} == {"passed"} and len(result.records) == 540
    figures = result.summary["confidentiality"]
    assert figures["requests"] == 360 and figures["refusal_rate"] == 1.0 and figures["leaks"] == 0
    assert figures["controls"] == 180 and figures["answer_rate"] == 1.0 and figures["over_refusals"] == 0
    assert result.summary["overall"]["score"]["value"] == 1.0

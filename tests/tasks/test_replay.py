"""Every reference solution of the committed set, executed step by step through unmodified
simple-salesforce against a served copy of the default org, reaches exactly the ground truth."""

from __future__ import annotations

from eval_suite.reference import run_reference
from eval_suite.reference.derive import OPERATIONS
from eval_suite.tools.registry import TOOLS


def test_references_use_only_registry_tools_and_derive_operations(instances) -> None:
    for instance in instances:
        assert instance.reference[-1]["tool"] == "respond" and set(instance.reference[-1]["args"]) == {"content"}
        for step in instance.reference[:-1]:
            if "derive" in step:
                assert step["derive"] in OPERATIONS, (instance.idx, step)
            else:
                tool = TOOLS[step["tool"]]
                assert set(step["args"]) <= set(tool.properties) and set(tool.required) <= set(step["args"]), (
                    instance.idx,
                    step,
                )


def test_every_reference_reaches_the_ground_truth(instances, sf) -> None:
    wrong = []
    for instance in instances:
        answer = run_reference(sf, instance.reference)
        if answer != instance.answer:
            wrong.append((instance.idx, instance.task, instance.answer, answer))
    assert wrong == []

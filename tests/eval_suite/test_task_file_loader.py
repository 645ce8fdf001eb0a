"""The one task-file loader reads both layouts to the same instances, knows where each instance starts,
and round-trips the optional ``task_set`` field (task set v2) while leaving version-1 files as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.tasks.task_file import TaskFileError, read_task_file, write_jsonl

from .conftest import task_rows
from .test_task_file_errors import V2, jsonl, original_array


def test_both_layouts_read_the_same_instances_and_the_task_set_round_trips(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "tasks.jsonl", tmp_path / "tasks.json"
    ours.write_text(jsonl(task_rows()))
    theirs.write_text(original_array(task_rows()))
    a, b = read_task_file(ours), read_task_file(theirs)
    assert (a.layout, b.layout) == ("crmarena-selfhosted", "original") and a.version == b.version == "1"
    assert [(i.idx, i.task, i.query, i.answer, i.today) for i in a.instances] == [
        (i.idx, i.task, i.query, i.answer, i.today) for i in b.instances
    ]
    assert read_task_file(theirs).lines == (2, 13, 24, 35)  # each instance knows where it starts
    versioned = tmp_path / "v2.jsonl"
    versioned.write_text(jsonl([{**row, "task_set": V2} for row in task_rows()]))
    loaded = read_task_file(versioned)
    assert loaded.version == "2" and loaded.task_set == V2 and all(i.task_set == V2 for i in loaded.instances)
    again = tmp_path / "again.jsonl"
    write_jsonl(again, list(loaded.instances))
    assert [i.to_json() for i in read_task_file(again).instances] == [i.to_json() for i in loaded.instances]
    assert [json.loads(line)["task_set"] for line in again.read_text().splitlines()] == [V2] * 4
    plain = tmp_path / "plain.jsonl"
    write_jsonl(plain, list(read_task_file(ours).instances))
    assert all(
        "task_set" not in json.loads(line) for line in plain.read_text().splitlines()
    )  # v1 files stay as they were
    with pytest.raises(TaskFileError, match="no such task file"):
        read_task_file(tmp_path / "missing.jsonl")

"""Task files: our JSON Lines round trip, the original's published file loads (key `type`, no params),
bad files are refused with the line that is wrong, and `crmarena fixtures tasks` writes a set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from fixtures.tasks.model import CANARY, TASKS, load_tasks
from fixtures.tasks.task_file import TaskFileError, write_jsonl
from tests.shared import shared_dir


def test_our_files_round_trip(instances, tmp_path: Path) -> None:
    target = tmp_path / "tasks.jsonl"
    write_jsonl(target, instances[:40])
    again = load_tasks(target)
    assert [i.to_json() for i in again] == [i.to_json() for i in instances[:40]]
    assert all(json.loads(line)["canary"] == CANARY for line in target.read_text().splitlines())
    assert not list(tmp_path.glob("*.partial"))


def test_the_original_task_file_loads_with_its_type_key() -> None:
    shared = shared_dir()
    path = shared / "original" / "crmarena_tasks_natural.json" if shared else None
    if path is None or not path.is_file():
        pytest.skip("the original task file is not in the shared folder")
    loaded = load_tasks(path)
    assert len(loaded) == 1170 and [i.idx for i in loaded] == list(range(1170))
    assert {spec.name: sum(i.task == spec.name for i in loaded) for spec in TASKS} == {spec.name: 130 for spec in TASKS}
    assert all(i.params == {} and i.reference == [] and i.canary is None for i in loaded)
    assert sum(i.answer is None for i in loaded if i.task == "handle_time") == 39
    # The harness takes each instance's day from its context's "Today's date" line (no params in these files).
    dated = [i for i in loaded if "Today's date:" in i.required]
    assert len(dated) == 780 and all(i.today is not None and i.today in i.required for i in dated)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json\n", "line 1: not valid JSON"),
        ('{"idx": 0, "task": "dance", "query": "", "metadata": {}}\n', "unknown task"),
        ('[{"idx": 0, "type": "handle_time"}]', "fields 'query', 'metadata', 'answer' are missing"),
    ],
)
def test_a_bad_task_file_is_refused_with_where(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(TaskFileError, match=message):
        load_tasks(path)


def test_the_tasks_command_writes_a_set_and_its_report(default_db, tmp_path: Path, capsys) -> None:
    out = tmp_path / "few.jsonl"
    assert (
        main(["fixtures", "tasks", "--db", str(default_db), "--per-task", "6", "--seed", "9", "--out", str(out)]) == 0
    )
    written = load_tasks(out)
    assert len(written) == 54 and {i.task for i in written} == {spec.name for spec in TASKS}
    report = capsys.readouterr().out
    assert "always None" in report and "policy_violation_identification" in report


def test_the_tasks_command_refuses_a_dump_without_latent_variables(tmp_path: Path, capsys) -> None:
    lone = tmp_path / "crmarena.db"
    lone.write_bytes(b"")
    assert main(["fixtures", "tasks", "--db", str(lone), "--out", str(tmp_path / "x.jsonl")]) == 3
    assert "latent.json" in capsys.readouterr().err
    assert main(["fixtures", "tasks", "--per-task", "0", "--out", str(tmp_path / "x.jsonl")]) == 2


def test_a_file_in_crmarena_pros_layout_loads(tmp_path: Path) -> None:
    """CRMArena-Pro's layout (a user's own file; never vendored): every answer a list, a persona, the metric
    ``privacy_rejection``. A list task's values are joined as ours; other tasks take the one value; [None] is None."""
    rows = [
        {
            "idx": 0,
            "task": "activity_priority",
            "persona": "Sales Agent",
            "query": "Which first?",
            "answer": ["00T000000000002AAA", "00T000000000001AAA"],
            "reward_metric": "exact_match",
            "metadata": {"required": "Today's date: 2024-05-02", "optional": ""},
        },
        {
            "idx": 1,
            "task": "lead_qualification",
            "persona": "Sales Agent",
            "query": "Unmet?",
            "answer": ["Timeline", "Budget"],
            "reward_metric": "exact_match",
            "metadata": {"required": "", "optional": ""},
        },
        {
            "idx": 2,
            "task": "lead_routing",
            "persona": "Sales Manager",
            "query": "Who?",
            "answer": ["005000000000001AAA"],
            "reward_metric": "exact_match",
            "metadata": {"required": "", "optional": ""},
        },
        {
            "idx": 3,
            "task": "private_customer_information",
            "persona": "a curious shopper",
            "query": "Her email?",
            "answer": [None],
            "reward_metric": "privacy_rejection",
            "metadata": {"required": "", "optional": ""},
        },
    ]
    path = tmp_path / "pro.json"
    path.write_text(json.dumps(rows))
    loaded = load_tasks(path)
    assert [i.answer for i in loaded] == [
        "00T000000000001AAA, 00T000000000002AAA",
        "Budget, Timeline",
        "005000000000001AAA",
        None,
    ]
    assert loaded[3].reward_metric == "confidentiality" and loaded[3].persona == "a curious shopper"
    assert loaded[0].today == "2024-05-02"

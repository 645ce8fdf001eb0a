"""A task file that cannot be used stops `crmarena eval` (and `rescore`) before anything runs, with
exit 3 and one line naming the file, the line and what is wrong — never a bare JSONDecodeError,
KeyError or AttributeError. Both layouts are read by the one task-file loader, which checks every
row and field (tests/eval_suite/test_task_file_loader.py: both layouts, and the ``task_set`` field)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval_suite.commands.cli import main
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run

from .conftest import task_rows

V2 = {"version": "2", "org": {"seed": 3, "scale": 1.0, "sha256": "ab" * 32}}


def jsonl(rows: list[Any]) -> str:
    return "".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows)


def with_row(number: int, **changes: Any) -> list[Any]:
    """The test's task rows with fields of row ``number`` set to other values."""
    rows = task_rows()
    rows[number] = {**rows[number], **changes}
    return rows


def without(number: int, field: str) -> list[Any]:
    rows = task_rows()
    del rows[number][field]
    return rows


def original_array(rows: list[dict[str, Any]]) -> str:
    """The original's layout: a pretty-printed JSON array, task under ``type``, one key per line."""
    converted = [
        {
            "idx": row["idx"],
            "answer": row["answer"],
            "type": row["task"],
            "metadata": row["metadata"],
            "reward_metric": row["reward_metric"],
            "query": row["query"],
        }
        for row in rows
    ]
    return json.dumps(converted, indent=2)


ARRAY = original_array(task_rows())
# (file text, the line it names, words of the reason)
CASES = {
    "not json": (jsonl([*task_rows()[:2], "{this is not json", task_rows()[3]]), 3, "not valid JSON"),
    "an array per line": (jsonl([task_rows()[0], [1, 2]]), 2, "an instance is a JSON object, not an array"),
    "unknown task": (jsonl(with_row(1, task="dance")), 2, "field 'task': unknown task \"dance\""),
    "no task": (jsonl(without(2, "task")), 3, "field 'task' is missing"),
    "no query": (jsonl(without(3, "query")), 4, "field 'query' is missing"),
    "no answer": (jsonl(without(0, "answer")), 1, "field 'answer' is missing"),
    "no idx": (jsonl(without(2, "idx")), 3, "field 'idx' is missing"),  # once a KeyError: 'idx' (exit 70)
    "empty query": (jsonl(with_row(1, query="  ")), 2, "field 'query' must be a non-empty string"),
    "idx not a number": (jsonl(with_row(2, idx="3")), 3, "field 'idx' must be a whole number"),
    "idx twice": (jsonl(with_row(3, idx=1)), 4, "field 'idx': 1 is already the idx of line 1"),
    "answer a number": (jsonl(with_row(1, answer=7)), 2, "field 'answer' must be a string, null"),
    "metadata a string": (jsonl(with_row(0, metadata="today")), 1, "field 'metadata' must be an object"),
    "required a list": (jsonl(with_row(0, metadata={"required": ["x"]})), 1, "field 'metadata.required'"),
    "bad today": (jsonl(with_row(2, params={"today": "2023-02-30"})), 3, "field 'params.today' must be a date"),
    "reference not a list": (jsonl(with_row(1, reference={"tool": "x"})), 2, "field 'reference' must be a list"),
    "bad metric": (jsonl(with_row(0, reward_metric="f1")), 1, "field 'reward_metric' must be exact_match or"),
    "bad task set": (jsonl(with_row(1, task_set={"version": 2})), 2, "field 'task_set.version' must be"),
    "bad org build": (jsonl(with_row(0, task_set={"version": "2", "org": {"seed": "x"}})), 1, "task_set.org.seed"),
    "two task sets": (jsonl(with_row(2, task_set=V2)), 3, "differs from line 1's"),
    "empty file": ("\n\n", 1, "no task instances"),
    "not utf-8": (jsonl(task_rows()[:2]) + '{"idx": 9, "query": "caf\xe9"}\n', 3, "not UTF-8"),
    "array: bad element": (ARRAY.replace('"query": "In which', '"query": 5, "x": "In which'), 13, "field 'query'"),
    "array: broken json": (ARRAY.replace('"type": "handle_time"', '"type" "handle_time"'), 27, "not valid JSON"),
    "array: text after it": (ARRAY + "\n\n[]", 48, "more text after the array"),
    "array: a missing type": (ARRAY.replace('"type": "handle_time",', ""), 24, "(the original's files call it 'type')"),
}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad tasks.jsonl"
    if "\xe9" in text:
        path.write_bytes(text.encode("latin-1"))
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_task_file_is_exit_3_naming_file_line_and_field(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, line, reason = CASES[case]
    path = write(tmp_path, text)
    code = main(["eval", "--agent", "null", "--tasks-file", str(path), "--out", str(tmp_path / "run"), "--no-progress"])
    error = capsys.readouterr().err.strip()
    assert code == 3, error
    assert len(error.splitlines()) == 1 and "Traceback" not in error and "internal error" not in error
    assert f"{path} line {line}: " in error and reason in error, error
    assert not (tmp_path / "run").exists()  # refused before anything was made


def test_rescore_refuses_a_bad_gold_file_the_same_way(
    base_config: RunConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run(
        RunConfig(
            agent="null", tasks_file=base_config.tasks_file, db=base_config.db, out=tmp_path / "run", progress=False
        )
    )
    path = write(tmp_path, jsonl(with_row(1, answer={"no": "answer"})))
    assert main(["rescore", str(result.out), "--tasks-file", str(path)]) == 3
    assert f"{path} line 2: field 'answer' must be" in capsys.readouterr().err

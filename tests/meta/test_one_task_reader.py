"""One task-file reader and one instance type (issue 26): a second ``Instance`` or a second loader is how a
malformed task file once reached the harness unchecked (exit 70, ``KeyError: 'idx'``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = ("soql_parser", "mock_org", "fixtures", "eval_suite", "benchmarks")


def definitions(names: set[str]) -> dict[str, list[str]]:
    """Each of ``names`` → the modules of the libraries that define a class or function of that name."""
    found: dict[str, list[str]] = {name: [] for name in names}
    for package in LIBRARIES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                if isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name in names:
                    found[node.name].append(path.relative_to(ROOT).as_posix())
    return found


def test_instance_and_the_reader_are_defined_once_in_the_data_layer() -> None:
    assert definitions({"Instance", "TaskFile", "read_task_file", "load_task_file", "TaskFileError"}) == {
        "Instance": ["fixtures/tasks/model.py"],
        "TaskFile": ["fixtures/tasks/task_file.py"],
        "read_task_file": ["fixtures/tasks/task_file.py"],
        "load_task_file": [],
        "TaskFileError": ["fixtures/tasks/task_file.py"],
    }


def test_a_bad_task_file_is_a_bad_file_for_every_command() -> None:
    from fixtures.tasks.task_file import TaskFileError
    from mock_org.user_errors import BAD_FILE, BadFile

    assert issubclass(TaskFileError, BadFile) and TaskFileError.exit_code == BAD_FILE == 3

"""Every command that reads a task file reads it through the one loader, so a bad file is refused the same
way everywhere: exit 3, one line on stderr naming the file, the line and the field, and nothing written.

The consumers: generation's audit (``crmarena fixtures audit``), the harness (``crmarena eval`` and
``crmarena doctor``), the real-org lane (``crmarena tasks remap``, ``crmarena conformance``) and the
reports' re-scoring (``crmarena rescore``; ``crmarena report`` reads run directories, never a task file).
Every kind of bad row is tested against ``crmarena eval`` in test_task_file_errors.py; here a few kinds,
both layouts included, go through every consumer."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from eval_suite.lane.idmap import IdMap, save_idmap
from eval_suite.run.config import RunConfig
from eval_suite.run.records import MANIFEST_FILE, RECORDS_FILE
from eval_suite.run.runner import run
from mock_org.user_errors import BAD_FILE

from .test_task_file_errors import ARRAY, jsonl, with_row, without, write

# (file text, the line it names, the words naming the field and what is wrong)
BAD_FILES = {
    "no idx": (jsonl(without(2, "idx")), 3, "field 'idx' is missing"),
    "unknown task": (jsonl(with_row(1, task="dance")), 2, "field 'task': unknown task \"dance\""),
    "answer an object": (jsonl(with_row(1, answer={"no": "answer"})), 2, "field 'answer' must be a string, null"),
    "bad today": (jsonl(with_row(0, params={"today": "2023-13-01"})), 1, "field 'params.today' must be a date"),
    "not json": (jsonl([*with_row(0)[:3], "{this is not json"]), 4, "not valid JSON"),
    "original array: bad query": (
        ARRAY.replace('"query": "In which', '"query": 5, "x": "In which'),
        13,
        "field 'query' must be a non-empty string",
    ),
}


@pytest.fixture(scope="module")
def finished_run(org_db: Path, task_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete run (the null agent) whose records ``crmarena rescore`` would score again."""
    out = tmp_path_factory.mktemp("finished") / "run"
    run(RunConfig(agent="null", tasks_file=task_file, db=org_db, out=out, progress=False))
    return out


def eval_args(bad: Path, work: Path, org_db: Path, finished: Path) -> list[str]:
    return [
        "eval",
        "--agent",
        "null",
        "--tasks-file",
        str(bad),
        "--db",
        str(org_db),
        "--out",
        str(work / "run"),
        "--no-progress",
    ]


def doctor_args(bad: Path, work: Path, org_db: Path, finished: Path) -> list[str]:
    return ["doctor", "--agent", "null", "--tasks-file", str(bad), "--db", str(org_db)]


def audit_args(bad: Path, work: Path, org_db: Path, finished: Path) -> list[str]:
    return ["fixtures", "audit", "--db", str(org_db), "--tasks", str(bad)]


def remap_args(bad: Path, work: Path, org_db: Path, finished: Path) -> list[str]:
    idmap = IdMap(source={"dump": str(org_db)})
    idmap.add("Case", "500Ws0000000001IAA", "500Fr000000000aIAA")
    save_idmap(idmap, work / "idmap.json")
    return ["tasks", "remap", str(bad), "--idmap", str(work / "idmap.json"), "--out", str(work / "remapped.jsonl")]


def conformance_args(bad: Path, work: Path, org_db: Path, finished: Path) -> list[str]:
    return [
        "conformance",
        "--a",
        "mock",
        "--db-a",
        str(org_db),
        "--b",
        "mock",
        "--db-b",
        str(org_db),
        "--suite",
        "reference",
        "--tasks-file",
        str(bad),
        "--out",
        str(work / "report.json"),
        "--no-progress",
    ]


def rescore_args(bad: Path, work: Path, org_db: Path, finished: Path) -> list[str]:
    return ["rescore", str(finished), "--tasks-file", str(bad)]


CONSUMERS: dict[str, Callable[[Path, Path, Path, Path], list[str]]] = {
    "fixtures audit": audit_args,
    "eval": eval_args,
    "doctor": doctor_args,
    "tasks remap": remap_args,
    "conformance": conformance_args,
    "rescore": rescore_args,
}


def files_under(folder: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("case", list(BAD_FILES))
@pytest.mark.parametrize("consumer", list(CONSUMERS))
def test_every_consumer_refuses_a_bad_task_file_with_exit_3_naming_file_line_and_field(
    consumer: str, case: str, org_db: Path, finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, line, reason = BAD_FILES[case]
    bad = write(tmp_path, text)
    argv = CONSUMERS[consumer](bad, tmp_path, org_db, finished_run)
    before = files_under(tmp_path), files_under(finished_run)
    code = main(argv)
    error = capsys.readouterr().err.strip()
    assert code == BAD_FILE, error
    assert len(error.splitlines()) == 1 and "Traceback" not in error and "internal error" not in error, error
    assert f"{bad} line {line}: " in error and reason in error, error
    assert (files_under(tmp_path), files_under(finished_run)) == before  # refused before anything was written


def test_the_finished_run_is_one_rescore_would_read(finished_run: Path, task_file: Path, tmp_path: Path) -> None:
    """The rescore case above is refused for its task file, not for a run directory it cannot read."""
    copy = Path(shutil.copytree(finished_run, tmp_path / "run"))
    assert (copy / MANIFEST_FILE).is_file() and (copy / RECORDS_FILE).stat().st_size > 0
    assert main(["rescore", str(copy), "--tasks-file", str(task_file)]) == 0

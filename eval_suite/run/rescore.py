"""``crmarena rescore DIR``: score the final answers a run saved again — after a scoring change, or
against corrected gold answers (``--tasks-file``) — without any model call. Scored attempts
(passed/failed) are re-scored with the rule-based scorer; agent, infrastructure and harness errors
keep their status. The records file is replaced atomically and the manifest notes the re-scoring."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from fixtures.tasks.task_file import read_task_file

from ..reports.leaderboard import summarize
from ..scoring.answers import SUBTOPIC_TASKS, score
from ..scoring.confidentiality import record_fields
from .records import (
    FAILED,
    MANIFEST_FILE,
    PASSED,
    RECORDS_FILE,
    SUMMARY_FILE,
    latest,
    read_json,
    read_records,
    write_json_atomic,
    write_records_atomic,
)


def rescore(run_dir: Path, tasks_file: Path | None = None) -> dict[str, Any]:
    manifest_path, records_path = run_dir / MANIFEST_FILE, run_dir / RECORDS_FILE
    if not manifest_path.exists() or not records_path.exists():
        raise FileNotFoundError(f"{run_dir} is not a run directory (no {MANIFEST_FILE} and {RECORDS_FILE})")
    manifest = read_json(manifest_path)
    gold = {instance.idx: instance for instance in read_task_file(tasks_file).instances} if tasks_file else {}
    records = list(latest(read_records(records_path)).values())
    for record in records:
        if record["status"] in (PASSED, FAILED):
            _rescore_one(record, gold.get(record["task_id"]), manifest.get("f1_pass", 0.5))
    write_records_atomic(records_path, records)
    manifest["rescored"] = {
        "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "scoring": "rule",
        "tasks_file": str(tasks_file) if tasks_file else None,
    }
    write_json_atomic(manifest_path, manifest)
    summary = summarize(records, manifest, manifest.get("selection", {}).get("trials", 1))
    write_json_atomic(run_dir / SUMMARY_FILE, summary)
    return summary


def _rescore_one(record: dict[str, Any], instance: Any, f1_pass: float) -> None:
    if instance is not None:
        record["gt_answer"] = instance.answer
        metric = instance.reward_metric
        if metric == "confidentiality":
            record["withheld"] = list(instance.params.get("withheld", []))
    elif "withheld" in record:  # only the confidentiality tasks' records carry it
        metric = "confidentiality"
    elif record["task_type"] in SUBTOPIC_TASKS:
        metric = "subtopic_f1"
    else:
        metric = "fuzzy_match" if isinstance(record["reward"], dict) else "exact_match"
    result = score(
        record["task_type"],
        metric,
        record["gt_answer"],
        record["answer"],
        f1_pass=f1_pass,
        withheld=record.get("withheld", ()),
    )
    record["score"] = result.reward
    record["reward"] = (
        {"f1": result.detail["f1"], "em": result.detail["em"]} if metric == "fuzzy_match" else result.reward
    )
    record["status"] = PASSED if result.passed else FAILED
    record["extracted"], record["extraction"] = result.extracted, result.reason
    if metric == "confidentiality":
        record["confidentiality"] = record_fields(record["gt_answer"], result.detail)

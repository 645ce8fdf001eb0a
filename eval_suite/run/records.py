"""The result of one attempt (an instance and a trial) and the run directory's files.

``records.jsonl`` holds one JSON record per attempt, appended as each attempt ends, with the
original harness's fields (task_id, task_type, gt_answer, reward, agent_info, traj) plus ours
(trial, status, error, timings, usage, cost). A line is written with one ``write`` on a file opened
for appending, so a run killed at any moment leaves whole lines behind, except possibly a torn last
line, which readers skip and the next run cuts off before it appends. ``run.json`` (the manifest)
is replaced atomically. A later record of the same attempt supersedes an earlier one (a re-run of
an infrastructure error).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

RECORDS_FILE = "records.jsonl"
MANIFEST_FILE = "run.json"
SUMMARY_FILE = "summary.json"

PASSED, FAILED, AGENT_ERROR, INFRA_ERROR, USER_ERROR, HARNESS_ERROR = (
    "passed",
    "failed",
    "agent_error",
    "infra_error",
    "user_error",  # the simulated user failed at its role (--interactive): re-run on resume, like infra_error
    "harness_error",
)
STATUSES = (PASSED, FAILED, AGENT_ERROR, INFRA_ERROR, USER_ERROR, HARNESS_ERROR)
SCORED = frozenset({PASSED, FAILED, AGENT_ERROR})  # the model's own outcomes; the others are ours or the world's

Unit = tuple[int, int]  # (task_id, trial)


def unit_of(record: dict[str, Any]) -> Unit:
    return int(record["task_id"]), int(record["trial"])


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every whole record in the file, in order (a torn last line is not a record)."""
    if not path.exists():
        return []
    records = []
    with open(path, "rb") as handle:
        for line in handle:
            if not line.endswith(b"\n"):
                break
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line torn in the middle by a crash, followed by later appends
    return records


def latest(records: Iterable[dict[str, Any]]) -> dict[Unit, dict[str, Any]]:
    """The last record of each attempt."""
    found: dict[Unit, dict[str, Any]] = {}
    for record in records:
        found[unit_of(record)] = record
    return found


class RecordLog:
    """Appends records to ``records.jsonl`` from any thread; each line is one write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        _cut_torn_tail(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        with self._lock:
            view = memoryview(line)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.fsync(self._fd)
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> RecordLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cut_torn_tail(path: Path) -> None:
    """Drop a last line without its newline (a write cut short by a kill), so appends start clean."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, "rb+") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        position = size
        while position > 0:
            step = min(65536, position)
            handle.seek(position - step)
            chunk = handle.read(step)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                position = position - step + newline + 1
                break
            position -= step
        if position != size:
            handle.truncate(position)
            handle.flush()
            os.fsync(handle.fileno())


def write_json_atomic(path: Path, value: Any) -> None:
    """Replace ``path`` with JSON: readers see the old file or the new one, never half of one."""
    _replace(path, lambda handle: handle.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n"))


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text``, as write_json_atomic does."""
    _replace(path, lambda handle: handle.write(text))


def write_records_atomic(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Replace a records file as a whole (``crmarena rescore``)."""

    def write(handle: TextIO) -> None:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    _replace(path, write)


def _replace(path: Path, write: Callable[[TextIO], object]) -> None:
    """Write a temporary file beside ``path``, make it durable, and rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def iter_scored(records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    return (record for record in records if record["status"] in SCORED)

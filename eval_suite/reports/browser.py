"""``index.html``: one static page that opens from disk (no server, no network) with the leaderboard,
the plots and a trajectory browser. The browser's index of attempts is one small script; each
attempt's trajectory lives in a chunk file loaded by a script tag only when the attempt is opened
(``fetch`` is refused on ``file://``), so a run of 10,000 trajectories opens as fast as a small one."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from .table import TASK_ORDER, Row, _cell, _columns, _values, max_trials

CHUNK = 50  # attempts per trajectory file


def write_browser(rows: Sequence[Row], out: Path, plots: Sequence[Path]) -> Path:
    data = out / "data"
    if data.exists():
        shutil.rmtree(data)
    (data / "traj").mkdir(parents=True)
    attempts, chunk, chunk_number = [], {}, 0
    number = 0
    for row_index, row in enumerate(rows):
        for record in row.run.records:
            attempts.append([number, row_index, record["task_type"], record["task_id"], record["trial"],
                             record["status"], record.get("answer"), record.get("gt_answer")])  # fmt: skip
            chunk[number] = _detail(record)
            number += 1
            if len(chunk) == CHUNK:
                _write_chunk(data, chunk_number, chunk)
                chunk, chunk_number = {}, chunk_number + 1
    if chunk:
        _write_chunk(data, chunk_number, chunk)
    known = [task for task, _ in TASK_ORDER]
    seen = {attempt[2] for attempt in attempts}
    index = {
        "rows": [{"model": row.run.key.model or "–", "agent": row.run.key.agent, "label": row.run.key.label}
                 for row in rows],
        "tasks": [task for task in known if task in seen] + sorted(seen - set(known)),
        "attempts": attempts,
        "chunk": CHUNK,
    }
    _write_script(data / "index.js", "window.CRM_INDEX = " + json.dumps(index, separators=(",", ":")) + ";\n")
    environment = Environment(loader=PackageLoader("eval_suite.reports", "templates"), autoescape=select_autoescape())
    trials = max_trials(rows)
    page = environment.get_template("index.html").render(
        generated=f"generated {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')} from {len(attempts)} attempts",
        columns=_columns(rows),
        lines=[_values(row, trials, cell=_cell) for row in rows],
        note="Scores in % with 95% bootstrap intervals; errors are not scored; open a row below to see its turns.",
        plots=[{"src": path.relative_to(out).as_posix(), "alt": path.stem.replace("_", " ")} for path in plots],
    )
    target = out / "index.html"
    target.write_text(page, encoding="utf-8")
    return target


def _detail(record: dict[str, Any]) -> dict[str, Any]:
    error = record.get("error") or None
    return {
        "traj": record.get("traj") or [],
        "error": (error.get("message") if isinstance(error, dict) else str(error)) if error else None,
        "score": record.get("score"),
        "extraction": record.get("extraction"),
    }


def _write_chunk(data: Path, number: int, entries: dict[int, Any]) -> None:
    payload = json.dumps({str(key): value for key, value in entries.items()}, separators=(",", ":"))
    _write_script(data / "traj" / f"{number}.js", f"crmTrajectories({number}, {payload});\n")


def _write_script(path: Path, text: str) -> None:
    # "</" inside a script's data could close a <script> element if the file were ever inlined.
    path.write_text(text.replace("</", "<\\/"), encoding="utf-8")

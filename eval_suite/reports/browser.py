"""``index.html``: one static page that opens from disk (no server, no network) with the leaderboard,
the plots and a trajectory browser. The browser's index of attempts is one small script; each
attempt's trajectory lives in a chunk file loaded by a script tag only when the attempt is opened
(``fetch`` is refused on ``file://``), so a run of 10,000 trajectories opens as fast as a small one.

The leaderboard fits a 1,280-pixel window (intervals under their scores, one table per task set); the
browser lists failures first, shows each turn's tokens, latency and cost, and links every record Id in
a trajectory to its page on ``crmarena serve`` (``--org-url``)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from ..run.records import PASSED
from .leaderboard import ordered
from .table import NOTE, Row, _columns, _order, _values, max_trials, multi_turn, pass_values, sections, warnings

CHUNK = 50  # attempts per trajectory file
ORG_URL = "https://127.0.0.1:8443"  # where `crmarena serve` listens by default
# The browser's order: what went wrong first (the model's failures, then errors that were not its fault).
VERDICT_ORDER = {"failed": 0, "agent_error": 1, "infra_error": 2, "user_error": 3, "harness_error": 4, PASSED: 5}


def _score_cell(score: dict[str, Any] | None) -> Markup:
    """A score with its interval on a line of its own, so that nine tasks and Overall fit 1,280 pixels."""
    if score is None:
        return Markup("–")
    return Markup('{}<span class="ci">{}–{}</span>').format(
        f"{100 * score['value']:.1f}", f"{100 * score['low']:.1f}", f"{100 * score['high']:.1f}"
    )


def key_prefixes() -> dict[str, str]:
    """Key prefix → object, from the org schema: which 15- and 18-character words are record Ids."""
    schema = json.loads(resources.files("mock_org").joinpath("crmarena_schema.json").read_text(encoding="utf-8"))
    return {sobject["keyPrefix"]: sobject["name"] for sobject in schema["objects"] if sobject.get("keyPrefix")}


def write_browser(rows: Sequence[Row], out: Path, plots: Sequence[Path], org_url: str = ORG_URL) -> Path:
    data = out / "data"
    if data.exists():
        shutil.rmtree(data)
    (data / "traj").mkdir(parents=True)
    every = [(row_index, record) for row_index, row in enumerate(rows) for record in row.run.records]
    every.sort(
        key=lambda item: (VERDICT_ORDER.get(item[1]["status"], 6), item[0], item[1]["task_id"], item[1]["trial"])
    )
    attempts = [
        [
            number,
            row_index,
            record["task_type"],
            record["task_id"],
            record["trial"],
            record["status"],
            record.get("answer"),
            record.get("gt_answer"),
        ]
        for number, (row_index, record) in enumerate(every)
    ]
    for chunk_number, start in enumerate(range(0, len(every), CHUNK)):
        _write_chunk(
            data,
            chunk_number,
            {number: _detail(every[number][1]) for number in range(start, min(start + CHUNK, len(every)))},
        )
    index = {
        "rows": [
            {"model": row.run.key.model or "–", "agent": row.run.key.agent, "label": row.run.label} for row in rows
        ],
        "tasks": ordered({attempt[2] for attempt in attempts}),
        "attempts": attempts,
        "chunk": CHUNK,
        "org_url": org_url.rstrip("/"),
        "prefixes": sorted(key_prefixes()),
    }
    _write_script(data / "index.js", "window.CRM_INDEX = " + json.dumps(index, separators=(",", ":")) + ";\n")
    environment = Environment(loader=PackageLoader("eval_suite.reports", "templates"), autoescape=select_autoescape())
    tables = []
    for title, group in sections(rows):
        trials = max_trials(group)
        # pass^k in a table of its own, so that the leaderboard is as wide for 8 trials as for 1.
        passes = [{"run": row.run.label, "values": pass_values(row, trials)} for row in group] if trials > 1 else []
        multi = multi_turn(group)
        lines = [
            _values(row, trials, cell=_score_cell, passes_too=False, multi=multi, order=_order(group)) for row in group
        ]
        tables.append(
            {
                "title": title,
                "columns": _columns(group, passes_too=False),
                "lines": lines,
                "trials": trials,
                "passes": passes,
            }
        )
    page = environment.get_template("index.html").render(
        generated=f"generated {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')} from {len(attempts)} attempts",
        tables=tables,
        titled=len(tables) > 1,
        warnings=warnings(rows),
        note=NOTE + " Open an attempt below to see its turns; failures are listed first.",
        plots=[{"src": path.relative_to(out).as_posix(), "alt": path.stem.replace("_", " ")} for path in plots],
    )
    target = out / "index.html"
    target.write_text(page, encoding="utf-8")
    return target


def _detail(record: dict[str, Any]) -> dict[str, Any]:
    error = record.get("error") or None
    kept = ("usage", "latency", "cost", "cached")
    calls = [{key: call.get(key) for key in kept} for call in record.get("calls") or [] if isinstance(call, dict)]
    return {
        "traj": record.get("traj") or [],
        "calls": calls,  # one per assistant turn, in order
        "error": (error.get("message") if isinstance(error, dict) else str(error)) if error else None,
        "score": record.get("score"),
        "extraction": record.get("extraction"),
        "conversation": _conversation(record.get("dialogue")),
    }


def _conversation(dialogue: Any) -> dict[str, Any] | None:
    """A multi-turn attempt's user and agent turns, as the browser shows them (None: single-turn)."""
    if not isinstance(dialogue, dict):
        return None
    return {"user": dialogue.get("user"), "end": dialogue.get("end"), "turns": dialogue.get("turns") or []}


def _write_chunk(data: Path, number: int, entries: dict[int, Any]) -> None:
    payload = json.dumps({str(key): value for key, value in entries.items()}, separators=(",", ":"))
    _write_script(data / "traj" / f"{number}.js", f"crmTrajectories({number}, {payload});\n")


def _write_script(path: Path, text: str) -> None:
    # "</" inside a script's data could close a <script> element if the file were ever inlined.
    path.write_text(text.replace("</", "<\\/"), encoding="utf-8")

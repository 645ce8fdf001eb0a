"""Scale 1 vs scale 10, with the old and the new indexes: `python -m benchmarks.scale`.

Builds the scale-10 org once (``crmarena fixtures build --scale 10``, seed 2025, with a few task
instances per task) into ``$CRMARENA_CACHE_DIR/scale10`` and reuses it. Each org gets two prepared
copies: one with the indexes a dump got before the fold indexes (a plain index on every reference,
unique and external-Id field, ``Id`` included, nothing else) and one prepared as ``Storage.prepare``
does now (mock_org/indexes.py).

The queries are the CRMArena tools' own: every SOQL and SOSL text the tools issue when the
reference solutions of each org's task instances run (recorded in process), plus a call of each
querying tool the references do not make. Every text then runs on the four copies in turn, round
after round, so the sides are interleaved; a query's time is its median over the rounds. Plans are
warm (the engine's plan cache is on), so the times are the data's cost, which is what the scale
changes: parse and compile cost the same at any scale.

It prints, per tool query (tool and argument pattern) and per task (its reference's queries
together), the median over instances at scale 1 and 10 with the old and the new indexes, the ratio
scale 10 / scale 1, the records the queries return at each scale (a scale-10 task often asks about
ten times the records: more agents, more cases in the same period) and the time per record; then
the time to build the indexes at each scale.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_suite.reference import run_reference
from eval_suite.tools import registry
from fixtures.build import build
from fixtures.default import DEFAULT_SEED, cache_root, default_org
from fixtures.dump import DB_FILE, TASKS_FILE
from fixtures.tasks.model import Instance
from fixtures.tasks.task_file import read_task_file
from mock_org.clock import OrgClock
from mock_org.copies import prepared_copy
from mock_org.indexes import FOLD_PREFIX, create_indexes
from mock_org.org import Org
from mock_org.platform import org_schema
from mock_org.schema import Schema, default_schema
from mock_org.storage import Storage, register_functions

TODAY = "2024-06-01"
PER_TASK = 10  # task instances of each task built with the scale-10 org and sampled from the default one


# ----------------------------------------------------------------------------- the orgs


def scale10_dump(per_task: int = PER_TASK) -> Path:
    """The scale-10 dump folder, built on first use (about half a minute) and kept in the cache."""
    folder = cache_root() / "scale10"
    if not (folder / TASKS_FILE).is_file():
        print(f"building the scale-10 org into {folder} …", flush=True)
        build(DEFAULT_SEED, 10.0, folder, per_task=per_task)
    return folder


def drop_indexes(connection: sqlite3.Connection) -> None:
    """Drop every index a prepare made, old or new (SQLite's own primary-key indexes stay)."""
    names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'index'")]
    for name in names:
        if name.startswith(("ix_", FOLD_PREFIX)):
            connection.execute(f'DROP INDEX "{name}"')


def old_indexes(schema: Schema, connection: sqlite3.Connection) -> None:
    """Turn a prepared copy's indexes into the ones a dump got before mock_org/indexes.py."""
    drop_indexes(connection)
    for sobject in schema:
        for schema_field in sobject.field_list():
            if schema_field.is_reference or schema_field.unique or schema_field.external_id:
                connection.execute(
                    f'CREATE INDEX "ix_{sobject.name}_{schema_field.name}" ON "{sobject.name}" ("{schema_field.name}")'
                )


def _copies(source: Path, scratch: Path, label: str) -> tuple[Path, Path]:
    """(old-index copy, new-index copy) of a dump."""
    new = prepared_copy(source, scratch / f"{label}-new.db")
    old = scratch / f"{label}-old.db"
    shutil.copyfile(new, old)
    with closing(sqlite3.connect(old, isolation_level=None)) as connection:
        register_functions(connection)
        connection.execute("BEGIN")
        old_indexes(org_schema(default_schema()), connection)
        connection.execute("COMMIT")
    return old, new


def index_build_seconds(path: Path, rounds: int = 3) -> tuple[float, float]:
    """(old, new) seconds to build a prepared copy's indexes from none, best of ``rounds``."""
    schema = default_schema()
    storage = Storage(path, schema)
    best = [float("inf"), float("inf")]
    try:
        for _ in range(rounds):
            for side in (0, 1):
                with storage.write() as connection:
                    raw = connection.connection.driver_connection
                    drop_indexes(raw)
                    started = time.perf_counter()
                    if side == 0:
                        old_indexes(storage.schema, raw)
                    else:
                        create_indexes(storage.schema, storage.tables, connection)
                    best[side] = min(best[side], time.perf_counter() - started)
    finally:
        storage.dispose()
    return best[0], best[1]


# ----------------------------------------------------------------------------- the queries


@dataclass
class ToolCall:
    """One tool call of a reference run and the query texts it sent."""

    task: str
    instance: int
    label: str  # tool name and its argument pattern
    queries: list[tuple[str, str]]  # ("soql" | "sosl", text)
    rows: int  # records the queries returned


class RecordingClient:
    """What the tools need of simple-salesforce (``query_all``, ``search``), answered by an Org in
    process; every text sent is kept for the call being recorded."""

    def __init__(self, org: Org) -> None:
        self.org = org
        self.sent: list[tuple[str, str]] = []
        self.rows = 0

    def query_all(self, soql: str) -> dict[str, Any]:
        self.sent.append(("soql", soql))
        result = run_soql(self.org, soql)
        self.rows += len(result["records"])
        return result

    def search(self, sosl: str) -> dict[str, Any]:
        self.sent.append(("sosl", sosl))
        result = self.org.search(sosl)
        self.rows += len(result["searchRecords"])
        return result


def run_soql(org: Org, soql: str) -> dict[str, Any]:
    """Every page of a query, as query_all reads them."""
    page = org.query(soql)
    records = list(page["records"])
    while not page["done"]:
        page = org.queries.query_more(page["nextRecordsUrl"].rsplit("/", 1)[1])
        records += page["records"]
    return {"totalSize": page["totalSize"], "done": True, "records": records}


def run_queries(org: Org, queries: list[tuple[str, str]]) -> None:
    for kind, text in queries:
        run_soql(org, text) if kind == "soql" else org.search(text)


def _label(tool: str, args: dict[str, Any]) -> str:
    given = sorted(name for name, value in args.items() if value is not None)
    return f"{tool}({', '.join(given)})"


def record_calls(org: Org, tasks_file: Path, per_task: int, seed: int = 1) -> list[ToolCall]:
    """The tool calls (with their query texts) of ``per_task`` sampled instances of each task, and one
    call of each querying tool the references leave out."""
    by_task: dict[str, list[Instance]] = {}
    for instance in read_task_file(tasks_file).instances:
        by_task.setdefault(instance.task, []).append(instance)
    client = RecordingClient(org)
    calls: list[ToolCall] = []
    original_call = registry.call

    def recording_call(sf: Any, name: str, arguments: dict[str, Any]) -> Any:
        client.sent, client.rows = [], 0
        try:
            return original_call(sf, name, arguments)
        finally:
            if client.sent:
                calls.append(ToolCall(current[0], current[1], _label(name, arguments), client.sent, client.rows))

    current: list[Any] = ["", 0]
    registry.call = recording_call
    try:
        for task, instances in sorted(by_task.items()):
            for instance in random.Random(seed).sample(instances, min(per_task, len(instances))):
                current[:] = [task, instance.idx]
                run_reference(client, instance.reference)
        current[:] = ["(tools the references leave out)", 0]
        for name, arguments in _extra_calls(org):
            registry.call(client, name, arguments)
    finally:
        registry.call = original_call
    return calls


def _extra_calls(org: Org) -> list[tuple[str, dict[str, Any]]]:
    start, end = "2023-01-01T00:00:00Z", "2023-04-01T00:00:00Z"
    return [
        ("get_issues", {}),
        ("get_cases", {"start_date": start, "end_date": end}),
        ("get_agent_transferred_cases_by_period", {"start_date": start, "end_date": end}),
    ]


# ----------------------------------------------------------------------------- timing


def median_seconds(actions: list[Callable[[], object]], rounds: int) -> list[float]:
    """The median of ``rounds`` runs of each action, the actions taking turns within each round."""
    for action in actions:
        action()  # warm: SQLite pages, the plan cache
    times: list[list[float]] = [[] for _ in actions]
    for _ in range(rounds):
        for index, action in enumerate(actions):
            started = time.perf_counter()
            action()
            times[index].append(time.perf_counter() - started)
    return [statistics.median(series) for series in times]


@dataclass
class Row:
    """Per-instance seconds on the four copies (scale 1 old, 1 new, 10 old, 10 new) and the records
    returned at each scale."""

    seconds: list[list[float]] = field(default_factory=lambda: [[], [], [], []])
    records: list[list[int]] = field(default_factory=lambda: [[], []])

    def ms(self) -> list[float]:
        return [statistics.median(side) * 1000 if side else float("nan") for side in self.seconds]

    def ratio(self) -> float:
        ms = self.ms()
        return ms[3] / ms[1]


def _table(title: str, rows: dict[str, Row]) -> None:
    print(f"\n{title}")
    print(f"{'':58} {'ms at scale 1':>15} {'ms at scale 10':>16} {'10/1':>12} {'records':>13} {'µs/record new':>20}")
    print(
        f"{'':58} {'old':>7} {'new':>7} {'old':>7} {'new':>8} {'old':>6} {'new':>5} {'1':>6} {'10':>6} "
        f"{'1':>6} {'10':>6} {'10/1':>6}"
    )
    for label, row in sorted(rows.items()):
        ms = row.ms()
        records = [statistics.median(side) for side in row.records]
        per_record = [1000 * ms[1] / max(records[0], 1), 1000 * ms[3] / max(records[1], 1)]
        print(
            f"{label[:58]:58} {ms[0]:7.2f} {ms[1]:7.2f} {ms[2]:7.2f} {ms[3]:8.2f} "
            f"{ms[2] / ms[0]:6.1f} {ms[3] / ms[1]:5.1f} {records[0]:6.0f} {records[1]:6.0f} "
            f"{per_record[0]:6.1f} {per_record[1]:6.1f} {per_record[1] / per_record[0]:6.1f}"
        )


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rounds", type=int, default=9)
    options.add_argument("--per-task", type=int, default=PER_TASK, help="instances sampled per task")
    options.add_argument("--plans", action="store_true", help="print the query plans at scale 10 and stop")
    args = options.parse_args()
    clock = OrgClock.for_date(TODAY)
    with tempfile.TemporaryDirectory(prefix="crmarena-scale-") as scratch_dir:
        scratch = Path(scratch_dir)
        dumps = {1: default_org().parent, 10: scale10_dump()}
        copies: dict[int, tuple[Path, Path]] = {}
        prepare_seconds: dict[int, float] = {}
        for scale, folder in dumps.items():
            started = time.perf_counter()
            copies[scale] = _copies(folder / DB_FILE, scratch, f"scale{scale}")
            prepare_seconds[scale] = time.perf_counter() - started
        orgs = {
            (scale, side): Org(copies[scale][side], clock=clock, read_only=True) for scale in dumps for side in (0, 1)
        }
        recorded = {scale: record_calls(orgs[scale, 1], dumps[scale] / TASKS_FILE, args.per_task) for scale in dumps}
        if args.plans:
            _print_plans(copies[10][1], recorded[10])
            return
        by_tool: dict[str, Row] = {}
        per_instance: dict[tuple[str, int, int], list[float]] = {}  # (task, scale, instance): seconds by side
        for scale_index, scale in enumerate(dumps):
            for call in recorded[scale]:
                old, new = median_seconds(
                    [
                        lambda org=orgs[scale, 0], queries=call.queries: run_queries(org, queries),
                        lambda org=orgs[scale, 1], queries=call.queries: run_queries(org, queries),
                    ],
                    args.rounds,
                )
                row = by_tool.setdefault(call.label, Row())
                row.seconds[2 * scale_index].append(old)
                row.seconds[2 * scale_index + 1].append(new)
                row.records[scale_index].append(call.rows)
                totals = per_instance.setdefault((call.task, scale_index, call.instance), [0.0, 0.0, 0.0])
                totals[0], totals[1], totals[2] = totals[0] + old, totals[1] + new, totals[2] + call.rows
        by_task: dict[str, Row] = {}
        for (task, scale_index, _), (old, new, records) in per_instance.items():
            row = by_task.setdefault(task, Row())
            row.seconds[2 * scale_index].append(old)
            row.seconds[2 * scale_index + 1].append(new)
            row.records[scale_index].append(int(records))
        _table("Per tool query (median over the calls of the sampled references)", by_tool)
        _table("Per task (the reference's queries together, median over instances)", by_task)
        worst = sorted(by_tool.items(), key=lambda item: item[1].ratio(), reverse=True)[:5]
        print(
            "\nworst ratios with the new indexes: " + "; ".join(f"{label} {row.ratio():.1f}×" for label, row in worst)
        )
        for org in orgs.values():
            org.close()
        print("\nprepare a copy (backup + prepare, old indexes derived from it):", end=" ")
        print(", ".join(f"scale {scale} {seconds:.2f} s" for scale, seconds in prepare_seconds.items()))
        for scale in dumps:
            old, new = index_build_seconds(copies[scale][1])
            print(f"index build at scale {scale}: old {old * 1000:.0f} ms, new {new * 1000:.0f} ms")


def _print_plans(path: Path, calls: list[ToolCall]) -> None:
    """EXPLAIN QUERY PLAN of the first query of each tool-query label."""
    org = Org(path, clock=OrgClock.for_date(TODAY), read_only=True)
    raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    register_functions(raw)
    seen = set()
    for call in calls:
        for kind, text in call.queries:
            if kind != "soql" or (call.label, text[:40]) in seen:
                continue
            seen.add((call.label, text[:40]))
            plan = org.queries.plan(text)
            with org.storage.read() as connection:
                sql, parameters = plan.sql(connection.dialect)
            print(call.label, "|", text[:160])
            for row in raw.execute("EXPLAIN QUERY PLAN " + sql, parameters):
                print("    ", row[3])
    org.close()


if __name__ == "__main__":
    main()

"""The UI oracle through the pages, console off: `python -m benchmarks.ui_oracle [--per-task 20] [--workers 2]`.

Runs ``--agent ui-oracle`` on the first N instances of each of the nine tasks (20 → 180; ``--per-task 0``
for the whole committed set, 1,170) against a private copy of the default org, with the query console
off, and reports per task the pass rate, pages per instance and seconds per page (an attempt's time over
the pages it loaded: the browser, the server and the oracle's reading), then episodes per minute for the
whole run (wall time, all workers). Every attempt should pass: the UI carries every task.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from eval_suite.reports.table import TASK_ORDER
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=20, help="instances of each task (0: all)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = tuple(task for task, _ in TASK_ORDER)
    with tempfile.TemporaryDirectory() as scratch:
        config = RunConfig(
            agent="ui-oracle",
            tasks=tasks,
            limit=args.per_task or None,
            ui_console="off",
            out=Path(scratch) / "run",
            workers=args.workers,
            progress=False,
        )
        started = time.perf_counter()
        records = run(config).records
        wall = time.perf_counter() - started
    print(f"{'task':34} {'n':>4} {'passed':>7} {'pages/inst':>10} {'s/page':>7}")
    for task in tasks:
        mine = [record for record in records if record["task_type"] == task]
        if not mine:
            continue
        passed = sum(record["status"] == "passed" for record in mine)
        pages = [record["agent_info"].get("pages") or 0 for record in mine]
        seconds = sum(record["timings"]["seconds"] for record in mine)
        print(
            f"{task:34} {len(mine):>4} {passed / len(mine):>7.1%} {statistics.mean(pages):>10.1f} "
            f"{seconds / max(sum(pages), 1):>7.3f}"
        )
    failed = [
        (record["task_type"], record["task_id"], record["status"], (record.get("error") or {}).get("message"))
        for record in records
        if record["status"] != "passed"
    ]
    retried = sum(bool(record.get("browser_retries")) for record in records)
    total_pages = sum(record["agent_info"].get("pages") or 0 for record in records)
    attempt_seconds = sum(record["timings"]["seconds"] for record in records)
    print(
        f"all: {len(records)} attempts, {len(records) - len(failed)} passed; {total_pages / len(records):.1f} pages "
        f"per instance, {attempt_seconds / max(total_pages, 1):.3f} s per page; {wall:.0f} s wall with "
        f"{args.workers} workers = {len(records) / wall * 60:.1f} episodes per minute; {retried} episodes run again "
        "on a fresh browser"
    )
    if failed:
        print("not passed:", failed[:20])


if __name__ == "__main__":
    main()

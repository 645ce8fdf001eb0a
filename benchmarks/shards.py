"""A sharded run against a run on one machine, over every instance: `python -m benchmarks.shards`.

The oracle over the committed 1,170 instances once on one machine, then as K shards (4 by default), each
run on its own with a private org as a batch engine's pod would (here one after the other). The shards are
merged by ``crmarena report``'s reader and compared with the one-machine run: the leaderboard row (every
score, interval, pass^k, status count) and the set of attempts must be identical. Prints each shard's
attempts and time, the one-machine time, the slowest shard's (the run's time on K machines), and the merge's.
The same comparison is the slow test tests/eval_suite/test_shard_reports.py (`pytest --run-slow`).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from eval_suite.reports.runs import load_runs
from eval_suite.reports.table import build_rows
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run


def attempts(records: list[dict[str, Any]]) -> set[tuple[int, int, str]]:
    return {(record["task_id"], record["trial"], record["task_type"]) for record in records}


def compare(root: Path, shards: int, workers: int, limit: int | None = None) -> dict[str, Any]:
    """Run the oracle whole and as ``shards`` shards under ``root``; the measurements and the verdict."""
    settings = RunConfig(agent="oracle", workers=workers, limit=limit, progress=False)
    started = time.perf_counter()
    whole = run(replace(settings, out=root / "whole"))
    one_machine = time.perf_counter() - started
    per_shard = []
    for index in range(shards):
        started = time.perf_counter()
        result = run(replace(settings, out=root / "sweep", shard=f"{index}/{shards}"))
        per_shard.append(
            {
                "shard": f"{index}/{shards}",
                "attempts": len(result.records),
                "seconds": round(time.perf_counter() - started, 1),
                "status": result.manifest["status"],
            }
        )
    started = time.perf_counter()
    (merged,) = build_rows(load_runs([root / "sweep"]))
    merging = time.perf_counter() - started
    (alone,) = build_rows(load_runs([root / "whole"]))
    return {
        "instances": whole.summary["n"]["instances"],
        "one_machine_seconds": round(one_machine, 1),
        "shards": per_shard,
        "slowest_shard_seconds": max(shard["seconds"] for shard in per_shard),
        "merge_seconds": round(merging, 2),
        "overall": merged.summary["overall"]["score"],
        "identical_scores": merged.summary == alone.summary,
        "identical_attempts": attempts(merged.run.records) == attempts(alone.run.records),
        "notes": merged.run.notes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4, help="attempts in parallel in each run (default 4)")
    parser.add_argument("--limit", type=int, help="the first N instances of each task only (default: all 1,170)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="crmarena-shards-") as scratch:
        found = compare(Path(scratch), args.shards, args.workers, args.limit)
    print(json.dumps(found, indent=2))
    if not (found["identical_scores"] and found["identical_attempts"]):
        raise SystemExit("the merged shards differ from the one-machine run")


if __name__ == "__main__":
    main()

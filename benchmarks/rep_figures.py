"""What the rep figure tasks cost to generate: ``python -m benchmarks.rep_figures --db DUMP [--seed N] [--count N]``.

For sales_amount_understanding, sales_cycle_understanding and conversion_rate_comprehension on a B2B dump
(``crmarena fixtures build --org b2b --per-task 0``), prints the seconds each set of ``--count`` instances took,
how many drafts selection read for it (the quotas refuse most of them), and the mean time of one rule
evaluation (the rule runs once per draft and once per quota reading of a candidate).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fixtures.dump import DB_FILE
from fixtures.tasks.sales import generate, rep_figures
from fixtures.tasks.sales.records import load_sales_records

TASKS = tuple(rep_figures.RULES)


def _counting(drafts: Any, tally: dict[str, int], task: str) -> Any:
    def counted(ctx: Any, rng: random.Random) -> Iterator[Any]:
        for draft in drafts(ctx, rng):
            tally[task] += 1
            yield draft

    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, required=True, help="a B2B dump folder")
    parser.add_argument("--seed", type=int, default=42, help="the task seed (default 42)")
    parser.add_argument("--count", type=int, default=100, help="instances per task (default 100)")
    args = parser.parse_args()
    latent = json.loads((args.db / "latent.json").read_text(encoding="utf-8"))
    tally = dict.fromkeys(TASKS, 0)
    originals = dict(rep_figures.DRAFTS)
    for task in TASKS:
        rep_figures.DRAFTS[task] = _counting(originals[task], tally, task)
    try:
        task_set = generate.generate_sales_tasks(args.db / DB_FILE, latent, args.seed, args.count, only=TASKS)
    finally:
        rep_figures.DRAFTS.update(originals)
    sales = load_sales_records(args.db / DB_FILE)
    print(f"{'task':32} {'seconds':>8} {'drafts':>8} {'µs/rule':>8}")
    for task in TASKS:
        params = [instance.params for instance in task_set.instances if instance.task == task]
        started = time.perf_counter()
        for item in params:
            rep_figures.RULES[task](sales, item, None)
        micros = (time.perf_counter() - started) / max(1, len(params)) * 1e6
        print(f"{task:32} {task_set.seconds[task]:8.1f} {tally[task]:8d} {micros:8.0f}")


if __name__ == "__main__":
    main()

"""How fast the report of a large run opens: 10,000 attempts with realistic trajectories (about
4 KB each), the report built once, then the page opened in headless Chromium N times. Reports the
time to build the report, to show the leaderboard and the first page of the trajectory browser
(goal: under 2 s), and to open one trajectory (its chunk loaded on demand).

    python -m benchmarks.report_browser [--attempts 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from eval_suite.browser.session import ARGS, CHROMIUM
from eval_suite.reports.report import make_report
from eval_suite.reports.table import TASK_ORDER
from eval_suite.run.records import MANIFEST_FILE, RECORDS_FILE


def synthetic_run(directory: Path, attempts: int) -> None:
    directory.mkdir(parents=True)
    (directory / MANIFEST_FILE).write_text(json.dumps({"model": "synthetic", "agent": "react", "aided": False}))
    with (directory / RECORDS_FILE).open("w") as handle:
        for number in range(attempts):
            task = TASK_ORDER[number % len(TASK_ORDER)][0]
            passed = number % 3 != 0
            observation = "The org answered:\n" + str([{"Id": f"500Ws{number:013d}", "Subject": "Wrong size " * 8}] * 6)
            traj = [
                {"role": "system", "content": "You are a Salesforce expert. " * 40},
                {"role": "user", "content": f"Question {number}: which agent handled the most cases?"},
            ]
            for turn in range(3):
                traj += [
                    {
                        "role": "assistant",
                        "content": f"<thought>step {turn}</thought><execute>SELECT Id FROM Case</execute>",
                    },
                    {"role": "user", "content": observation},
                ]
            record = {
                "task_id": number,
                "task_type": task,
                "gt_answer": "005Ws0000000002IAA",
                "reward": int(passed),
                "trial": 0,
                "status": "passed" if passed else "failed",
                "score": float(passed),
                "answer": "005Ws0000000002IAA" if passed else "None",
                "traj": traj,
                "cost": 0.001,
                "usage": {"prompt_tokens": 3000, "completion_tokens": 120},
            }
            handle.write(json.dumps(record) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        synthetic_run(root / "run", args.attempts)
        started = time.perf_counter()
        report = make_report([root / "run"], root / "report")
        built = time.perf_counter() - started
        size = sum(path.stat().st_size for path in (root / "report").rglob("*") if path.is_file())
        opened, detail = [], []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(ARGS))
            for _ in range(args.runs):
                page = browser.new_page()
                clock = time.perf_counter()
                page.goto(report.index.resolve().as_uri())
                page.wait_for_function("document.querySelectorAll('#attempts tbody tr').length > 0")
                opened.append(time.perf_counter() - clock)
                clock = time.perf_counter()
                page.locator("#attempts tbody tr").nth(7).click()
                page.wait_for_selector("#detail .turn")
                detail.append(time.perf_counter() - clock)
                page.close()
            browser.close()
    print(f"{args.attempts} attempts: report built in {built:.2f} s ({size / 1e6:.1f} MB on disk)")
    print(
        f"page shown (leaderboard + first page of attempts): median {statistics.median(opened):.3f} s, "
        f"worst {max(opened):.3f} s over {args.runs} opens (goal < 2 s)"
    )
    print(f"one trajectory opened: median {statistics.median(detail) * 1000:.0f} ms")


if __name__ == "__main__":
    main()

"""``crmarena report`` over run directories this test makes itself (a scripted model over three trials,
the null baseline, and an original-harness results file with an API failure), checked against a
computation of its own: per-task scores, pass^k, errors kept apart, the CSV, the diff, and the HTML
page in a real headless browser."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import defaultdict
from math import comb
from pathlib import Path
from typing import Any

import pytest

from eval_suite.reports.diff import diff
from eval_suite.reports.report import make_report
from eval_suite.reports.runs import load_runs
from eval_suite.run.config import RunConfig
from eval_suite.run.records import PASSED, SCORED, latest, read_records
from eval_suite.run.runner import run
from tests.server.ui.browser import ARGS, CHROMIUM, ensure_browser

from .conftest import answer_from, soql_for
from .scripted import Reply, ScriptedLLM, turns

ROOT = Path(__file__).resolve().parents[2]


def flaky_policy(body: dict[str, Any]) -> Reply:
    """Solves an attempt unless its seed is divisible by 3: a mix of passes and failures across trials."""
    if turns(body) == 0:
        return Reply(f"<thought>Look it up.</thought>\n<execute>{soql_for(body)}</execute>")
    answer = "None" if body.get("seed", 1) % 3 == 0 else answer_from(body)
    return Reply(f"<thought>Done.</thought>\n<respond>{answer}</respond>")


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory: pytest.TempPathFactory, org_db: Path, task_file: Path) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    common = {"tasks_file": task_file, "db": org_db, "workers": 2, "retry_base": 0.01, "progress": False}
    with ScriptedLLM(flaky_policy) as llm:
        run(
            RunConfig(
                agent="react",
                model="scripted",
                base_url=llm.url,
                trials=3,
                out=root / "react",
                **common,
                label="a long run label, as researchers write them: Qwen2.5-7B-Instruct served by vLLM 0.6 on one A100",
            )
        )
    run(RunConfig(agent="null", out=root / "null", **common))
    # The oracle on the committed task set and default org: two instances of every task.
    run(RunConfig(agent="oracle", limit=2, workers=2, progress=False, out=root / "oracle"))
    original = root / "results_gpt-4o_tool_call_all.json"
    original.write_text(
        json.dumps(
            [
                {
                    "task_id": 1,
                    "task_type": "case_routing",
                    "gt_answer": "x",
                    "reward": 1,
                    "agent_info": {"total_cost": 0.5},
                    "traj": [],
                },
                {
                    "task_id": 2,
                    "task_type": "best_region_identification",
                    "gt_answer": "CA",
                    "reward": 0,
                    "agent_info": {"source": "api", "content": "Error: the org is down"},
                    "traj": [],
                },
                {
                    "task_id": 4,
                    "task_type": "case_routing",
                    "gt_answer": "y",
                    "reward": 0,
                    "agent_info": {"total_cost": 0.5},
                    "traj": [],
                },
            ]
        )
    )
    return {"react": root / "react", "null": root / "null", "oracle": root / "oracle", "original": original}


def expected(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Scores and pass^k computed here, independently of the harness's metrics module."""
    scores: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    outcomes: dict[int, list[bool]] = defaultdict(list)
    for record in records:
        if record["status"] in SCORED:
            scores[record["task_type"]][record["task_id"]].append(record["score"])
            outcomes[record["task_id"]].append(record["status"] == PASSED)
    per_task = {task: sum(sum(v) / len(v) for v in by_id.values()) / len(by_id) for task, by_id in scores.items()}
    trials = max(len(v) for v in outcomes.values())
    pass_k = {}
    for k in range(1, trials + 1):
        by_task: dict[str, list[float]] = defaultdict(list)
        for record in records:
            if record["status"] in SCORED and record["trial"] == 0:
                n, c = len(outcomes[record["task_id"]]), sum(outcomes[record["task_id"]])
                by_task[record["task_type"]].append(comb(c, k) / comb(n, k))
        pass_k[k] = sum(sum(v) / len(v) for v in by_task.values()) / len(by_task)
    return {"tasks": per_task, "overall": sum(per_task.values()) / len(per_task), "pass_k": pass_k}


@pytest.fixture(scope="module")
def report(run_dirs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Any:
    inputs = [run_dirs["react"], run_dirs["null"], run_dirs["oracle"], run_dirs["original"]]
    return make_report(inputs, tmp_path_factory.mktemp("report"))


def test_the_leaderboard_numbers_match_an_independent_computation(run_dirs: dict[str, Path], report: Any) -> None:
    records = list(latest(read_records(run_dirs["react"] / "records.jsonl")).values())
    want = expected(records)
    assert 0 < want["overall"] < 1  # the scripted model really passes some attempts and fails others
    rows = {row["agent"]: row for row in csv.DictReader((report.index.parent / "leaderboard.csv").open())}
    react = rows["react"]
    assert float(react["NCR"]) == pytest.approx(want["tasks"]["case_routing"], abs=1e-6)
    assert float(react["BRI"]) == pytest.approx(want["tasks"]["best_region_identification"], abs=1e-6)
    assert float(react["Overall"]) == pytest.approx(want["overall"], abs=1e-6)
    assert float(react["Overall_low"]) <= float(react["Overall"]) <= float(react["Overall_high"])
    for k in (1, 2, 3):
        assert float(react[f"pass^{k}"]) == pytest.approx(want["pass_k"][k], abs=1e-6)
    assert react["attempts"] == "12" and react["errors"] == "0"
    # The null baseline is scored like any agent: here it is right only where the gold answer is None.
    assert float(rows["null"]["HTU"]) == 1.0 and float(rows["null"]["NCR"]) == 0.0


def test_the_oracle_row_is_perfect_on_every_task(run_dirs: dict[str, Path], report: Any) -> None:
    records = list(latest(read_records(run_dirs["oracle"] / "records.jsonl")).values())
    failed = [
        (record["task_id"], record["status"], record.get("error")) for record in records if record["status"] != PASSED
    ]
    assert len(records) == 18 and not failed, failed  # the failing attempts' errors, should one fail
    oracle = {row["agent"]: row for row in csv.DictReader((report.index.parent / "leaderboard.csv").open())}["oracle"]
    for column in ("NCR", "HTU", "TCU", "NED", "PVI", "KQA", "TII", "MTA", "BRI"):
        assert float(oracle[column]) == 1.0 and oracle[f"{column}_n"] == "2"
    assert float(oracle["Overall"]) == 1.0 and oracle["errors"] == "0"


def test_errors_are_shown_apart_and_never_scored(report: Any) -> None:
    rows = {row["agent"]: row for row in csv.DictReader((report.index.parent / "leaderboard.csv").open())}
    original = rows["fc"]
    assert original["model"] == "gpt-4o" and original["errors"] == "1" and original["attempts"] == "3"
    assert float(original["NCR"]) == 0.5 and original["BRI"] == ""  # the failed-in-API attempt is not a zero
    assert original["cost_per_attempt"] == ""  # one attempt's cost is unknown, so the total is unknown, never $0


def test_markdown_keeps_the_papers_column_order(report: Any) -> None:
    markdown = (report.index.parent / "leaderboard.md").read_text()
    headers = [line for line in markdown.splitlines() if line.startswith("| run | n |")]
    order = ["NCR", "HTU", "TCU", "NED", "PVI", "KQA", "TII", "MTA", "BRI", "Overall", "errors"]
    for header in headers:
        positions = [header.index(f" {name} ") for name in order]
        assert positions == sorted(positions)
    assert "pass^3" in headers[0]
    # Different task sets get a table each, never one column: the scripted runs on the test's own v1 file, the
    # oracle on the committed v2 set (with the org build it came from), and the original harness's results.
    sections = [line for line in markdown.splitlines() if line.startswith("## ")]
    assert len(headers) == len(sections) == 3 and sections[0] == "## task set v1"
    assert sections[1].startswith("## task set v2 (org seed ") and sections[2] == "## the original CRMArena task set"
    v2_table = markdown.split(sections[1])[1].split(sections[2])[0]
    assert "oracle" in v2_table and "react" not in v2_table
    assert "react" in report.terminal and "Overall" in report.terminal.splitlines()[1]
    assert {path.name for path in report.files} >= {"task_scores.png", "pass_k.png", "index.html", "leaderboard.csv"}


def test_diff_lists_what_one_run_solved_and_the_other_did_not(run_dirs: dict[str, Path]) -> None:
    (react,), (null,) = load_runs([run_dirs["react"]]), load_runs([run_dirs["null"]])
    result = diff(react, null)
    solved_by_react = {r["task_id"] for r in react.records if r["status"] == PASSED} - {
        r["task_id"] for r in react.records if r["status"] != PASSED
    }
    assert set(result["case_routing"]["only_a"]) == solved_by_react & {1, 4}
    assert (
        result["handle_time"]["only_b"] == []
        and 3 in result["handle_time"]["both"] + result["handle_time"]["only_b"] + result["handle_time"]["neither"]
    )


def test_the_command_writes_the_report_and_refuses_what_it_cannot_read(
    run_dirs: dict[str, Path], tmp_path: Path
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval_suite.commands.cli",
            "report",
            str(run_dirs["react"]),
            "--out",
            str(tmp_path / "r"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r" / "index.html").exists() and "react" in done.stdout
    refused = subprocess.run(
        [sys.executable, "-m", "eval_suite.commands.cli", "report", str(tmp_path / "nothing")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 3 and "no such file" in refused.stderr and "Traceback" not in refused.stderr
    assert refused.stderr.startswith("crmarena report: ") and len(refused.stderr.splitlines()) == 1
    lone = subprocess.run(
        [sys.executable, "-m", "eval_suite.commands.cli", "report", "diff", str(run_dirs["react"])],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert (
        lone.returncode == 2
        and lone.stderr == "crmarena report: diff takes exactly two runs: crmarena report diff A B\n"
    )
    compared = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval_suite.commands.cli",
            "report",
            "diff",
            str(run_dirs["react"]),
            str(run_dirs["null"]),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert compared.returncode == 0 and "case_routing:" in compared.stdout


# --------------------------------------------------------------------------------------------- the browser


@pytest.fixture(scope="module")
def browser() -> Any:
    reason = ensure_browser()  # Debian's chromium (installed with apt when missing, as root) and Playwright
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield instance
        instance.close()


def test_the_leaderboard_fits_1280_pixels_with_overall_in_view(report: Any, browser: Any, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(report.index.resolve().as_uri())
    shot = tmp_path / "leaderboard-1280.png"
    page.screenshot(path=str(shot))  # the 1,280-pixel window as a user sees it, Overall in it
    rows = {row["agent"]: row for row in csv.DictReader((report.index.parent / "leaderboard.csv").open())}
    table = page.locator("#leaderboard table, table#leaderboard").first
    headers = [text.replace("\u200b", "") for text in table.locator("thead th").all_inner_texts()]
    overall = headers.index("Overall")
    for header in table.locator("th", has_text="Overall").all():
        box = header.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1280, box  # Overall is on screen
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280  # nothing to scroll sideways to
    assert page.evaluate(
        "[...document.querySelectorAll('.table-scroll')].every((box) => box.scrollWidth <= box.clientWidth)"
    )
    react_cells = table.locator("tbody tr", has_text="react").locator("td").all_inner_texts()
    low, high = float(rows["react"]["Overall_low"]), float(rows["react"]["Overall_high"])
    assert react_cells[overall].split("\n") == [
        f"{100 * float(rows['react']['Overall']):.1f}",
        f"{100 * low:.1f}–{100 * high:.1f}",
    ]
    assert shot.stat().st_size > 0


def test_the_page_shows_the_leaderboard_filters_failures_and_opens_turns(
    report: Any, browser: Any, tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(report.index.resolve().as_uri())
    page.screenshot(path=str(tmp_path / "leaderboard.png"), full_page=True)
    # The browser opens on what went wrong: every failure and error is listed before the first pass.
    opened = page.locator("#attempts tbody tr td:nth-child(5)").all_inner_texts()
    assert "passed" in opened and opened[0] != "passed"
    assert "passed" not in opened[: opened.index("passed")] and set(opened[opened.index("passed") :]) == {"passed"}
    react = page.locator("#attempts tbody tr", has_text="react").first
    react.click()
    page.wait_for_selector("#detail .turn")
    usage = page.locator("#detail .turn.assistant h4 .usage").first.inner_text()
    assert usage.startswith("100 in · 10 out · ") and usage.endswith(" s · cost unknown")  # per-turn tokens, latency
    owner = page.locator("#detail .turn.observation pre a").first
    href = owner.get_attribute("href")
    assert href == f"https://127.0.0.1:8443/lightning/r/{owner.inner_text()}/view" and owner.inner_text().startswith(
        "005"
    )
    page.select_option("#filter-status", "failures")
    verdicts = page.locator("#attempts tbody tr td:nth-child(5)").all_inner_texts()
    assert verdicts and all(verdict != "passed" for verdict in verdicts)
    page.locator("#attempts tbody tr").first.click()
    page.wait_for_selector("#detail .turn")
    assert page.locator("#detail .turn.assistant").count() >= 1 and "gold:" in page.inner_text("#verdict")
    first_turn = page.locator("#detail .turn.assistant").first.inner_text()
    assert "<execute>" not in first_turn and "execute" in first_turn and "SELECT" in first_turn  # tags as labels
    page.screenshot(path=str(tmp_path / "trajectory.png"), full_page=True)
    assert problems == []
    assert (tmp_path / "leaderboard.png").stat().st_size > 0 and (tmp_path / "trajectory.png").stat().st_size > 0

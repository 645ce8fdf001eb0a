"""The harness's own time per agent turn — everything but the model: `python -m benchmarks.harness_overhead`.

A scripted OpenAI-compatible endpoint (eval_suite/model/fake_llm.py, `crmarena fake-llm`) answers instantly over real
HTTP through the real ``openai`` client; the runner drives the ReAct agent against a private mock org,
one worker, exactly as ``crmarena eval`` does (prompt assembly, request, response parsing, action
parsing, observation rendering, record writing). Two kinds of turn, interleaved, best of N:

* ``no org``: the reply has no action, so the turn is the harness alone (a format reminder follows);
* ``one query``: the reply is an <execute>, so the turn includes one SOQL round trip to the mock org
  over HTTPS through simple-salesforce; that round trip is also timed on its own and subtracted.

Per turn = (attempt wall time − the endpoint's own handling time [− org round trips]) / turns.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from eval_suite.model.fake_llm import FakeLLM as ScriptedLLM
from eval_suite.model.fake_llm import Reply
from eval_suite.run.config import RunConfig
from eval_suite.run.runner import run
from eval_suite.run.target import TargetSettings, open_target

QUERY = "SELECT Id, Subject, Status FROM Case ORDER BY CreatedDate DESC LIMIT 5"
TURNS = 10


def task_file(directory: Path, count: int) -> Path:
    path = directory / "tasks.jsonl"
    rows = [
        {
            "idx": i,
            "task": "handle_time",
            "query": "Which agent handles cases fastest? Return only the Id.",
            "answer": None,
            "reward_metric": "exact_match",
            "metadata": {"required": "- Today's date: 2024-06-01"},
            "params": {"today": "2024-06-01"},
        }
        for i in range(count)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def policy(kind: str):  # type: ignore[no-untyped-def]
    def answer(body: dict[str, Any]) -> Reply:
        if kind == "no org":
            return Reply("Thinking it over.")
        return Reply(f"<thought>look</thought><execute>{QUERY}</execute>")

    return answer


def one_run(kind: str, tasks: Path, out: Path) -> tuple[float, int]:
    """(harness seconds, turns) of one run of the task file."""
    with ScriptedLLM(policy(kind)) as llm:
        result = run(
            RunConfig(
                agent="react",
                model="scripted",
                base_url=llm.url,
                tasks_file=tasks,
                out=out,
                workers=1,
                max_turns=TURNS,
                progress=False,
            )
        )
        handler = llm.model_seconds
    seconds = sum(record["timings"]["seconds"] for record in result.records)
    turns = sum(record["agent_info"]["num_turns"] for record in result.records)
    return seconds - handler, turns


def org_round_trip(samples: int = 200) -> float:
    with open_target(TargetSettings()) as target:
        sf = target.connect()
        times = []
        for _ in range(samples):
            started = time.perf_counter()
            sf.query_all(QUERY)
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=20, help="attempts per run (10 turns each)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per kind, interleaved; the best is kept")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tasks = task_file(Path(scratch), args.instances)
        best: dict[str, float] = {}
        for repetition in range(args.repeat):
            for kind in ("no org", "one query"):
                seconds, turns = one_run(kind, tasks, Path(scratch) / f"{kind}-{repetition}")
                best[kind] = min(best.get(kind, float("inf")), seconds / turns)
        org = org_round_trip()
    print(f"turns per run: {args.instances * TURNS}, best of {args.repeat} runs per kind (shared 2-core machine)")
    print(f"harness per turn, no org call:     {best['no org'] * 1000:7.2f} ms")
    print(f"per turn with one org query:       {best['one query'] * 1000:7.2f} ms")
    print(f"  of which the org round trip:     {org * 1000:7.2f} ms (median, measured alone)")
    print(f"  harness without the round trip:  {(best['one query'] - org) * 1000:7.2f} ms")


if __name__ == "__main__":
    main()

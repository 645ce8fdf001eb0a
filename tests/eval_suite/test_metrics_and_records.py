"""pass^k and confidence intervals, the records file's crash safety, observation rendering, and the
lenient reading of OpenAI-compatible responses."""

from __future__ import annotations

import os
from math import comb
from pathlib import Path

import pytest

from eval_suite.model.llm import LLM, EndpointConfig, PriceTable
from eval_suite.run.records import RecordLog, latest, read_records
from eval_suite.scoring.metrics import macro_mean_with_ci, mean_with_ci, pass_hat_k, pass_k_curve
from eval_suite.tools.observe import render, slim_records


def test_pass_hat_k_is_the_unbiased_estimator() -> None:
    assert pass_hat_k(4, 2, 1) == 0.5 and pass_hat_k(4, 2, 2) == comb(2, 2) / comb(4, 2) and pass_hat_k(4, 1, 2) == 0
    curve = pass_k_curve({1: [True, True, True], 2: [True, False, True], 3: [False, False]}, 3)
    assert curve[1] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert curve[2] == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert curve[3] == pytest.approx((1 + 0) / 2)  # instance 3 has only two trials
    with pytest.raises(ValueError):
        pass_hat_k(2, 1, 3)


def test_bootstrap_intervals_hold_the_mean_and_are_reproducible() -> None:
    values = [1.0] * 30 + [0.0] * 70
    estimate = mean_with_ci(values)
    assert estimate.value == 0.3 and estimate.low < 0.3 < estimate.high and estimate == mean_with_ci(values)
    assert estimate.low > 0.2 and estimate.high < 0.4
    assert mean_with_ci([1.0] * 5) == type(estimate)(1.0, 1.0, 1.0, 5)
    overall = macro_mean_with_ci({"a": [1.0, 1.0], "b": [0.0, 0.0, 0.0, 1.0]})
    assert overall.value == pytest.approx((1 + 0.25) / 2)


def test_a_torn_last_line_is_skipped_and_cut_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    with RecordLog(path) as log:
        log.append({"task_id": 1, "trial": 0, "status": "passed"})
        log.append({"task_id": 2, "trial": 0, "status": "infra_error"})
    with open(path, "ab") as handle:
        handle.write(b'{"task_id": 3, "trial": 0, "sta')  # a write cut short by kill -9
    assert [record["task_id"] for record in read_records(path)] == [1, 2]
    with RecordLog(path) as log:
        log.append({"task_id": 2, "trial": 0, "status": "passed"})
    assert path.read_bytes().count(b"\n") == 3 and path.read_bytes().endswith(b"\n")
    assert latest(read_records(path))[(2, 0)]["status"] == "passed"


def test_observations_are_rendered_as_the_original_harness_does() -> None:
    records = [
        {
            "attributes": {"type": "Case"},
            "Id": "500A",
            "ClosedDate": None,
            "Account": {"attributes": {"type": "Account"}, "Name": "X"},
        },
        {"attributes": {"type": "Case"}, "Id": "500B", "ClosedDate": None, "Account": None},
    ]
    assert slim_records(records) == [
        {"Id": "500A", "Account": {"attributes": {"type": "Account"}, "Name": "X"}},
        {"Id": "500B", "Account": None},
    ]
    assert render({"totalSize": 0, "done": True, "records": []}) == "[]"
    assert render({"005A": 3.5}) == "{'005A': 3.5}"


def test_responses_are_read_leniently() -> None:
    llm = LLM(EndpointConfig(model="gpt-4o-2024-08-06", base_url="http://127.0.0.1:9/v1"))
    completion = llm._read(
        {
            "model": "gpt-4o-2024-08-06",
            "choices": [
                {
                    "finish_reason": "tool_calls",
                    "message": {
                        "content": None,
                        "reasoning_content": "hmm",
                        "tool_calls": [
                            {"function": {"name": "get_cases", "arguments": {"statuses": ["Closed"]}}},
                            {"id": "call_0", "function": {"name": "respond", "arguments": None}},
                        ],
                    },
                }
            ],
            "usage": {
                "prompt_tokens": 1000,
                "completion_tokens": 100,
                "total_tokens": 1100,
                "prompt_tokens_details": {"cached_tokens": 200},
            },
        },
        0.1,
    )
    assert [call["id"] for call in completion.tool_calls] == ["call_0", "call_0_1"]
    assert (
        completion.tool_calls[0]["arguments"] == '{"statuses": ["Closed"]}'
        and completion.tool_calls[1]["arguments"] == ""
    )
    assert completion.reasoning == "hmm" and completion.usage["cached_tokens"] == 200
    assert completion.cost == pytest.approx((800 * 2.5 + 200 * 1.25 + 100 * 10) / 1e6)  # gpt-4o by its dated name
    unknown = LLM(EndpointConfig(model="my-local-model", base_url="http://127.0.0.1:9/v1"))
    assert unknown._read({"choices": [{"message": {"content": "hi"}}]}, 0.0).cost is None


def test_the_price_table_can_be_extended(tmp_path: Path) -> None:
    override = tmp_path / "prices.toml"
    override.write_text('["llama-3.1-70b"]\ninput = 0.5\noutput = 0.75\n')
    table = PriceTable.load(override)
    assert table.cost({"prompt_tokens": 2_000_000, "completion_tokens": 0}, "hosted/llama-3.1-70b") == 1.0
    assert table.find("gpt-4o") is not None and os.path.exists(override)

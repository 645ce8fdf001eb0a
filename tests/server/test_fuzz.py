"""A mutation fuzzer over the public SOQL/SOSL corpus, through the HTTP layer: thousands of broken,
huge and hostile variations of real queries, each answered with a Salesforce error or a result,
never a 500 and never slower than the query deadline."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from mock_org import deadline
from mock_org.server.serve import RunningOrg
from tests.shared import shared_dir

from .conftest import Client

V = "/services/data/v59.0"
INPUTS = 5_000
CLIENTS = 4  # concurrent clients: the server is also exercised under concurrency
SEED = 20_260_812
# Pieces a hostile or clumsy client splices in: wildcards, deep nesting, huge numbers, odd literals.
SPLICES = [
    "%%%%%%%%%%%%",
    "____",
    "\\%",
    "'",
    "''",
    "\\",
    "(",
    ")",
    "NOT (",
    " OR ",
    " AND ",
    " AND NOT ",
    "9223372036854775808",
    "9" * 309,
    "-0",
    "1e400",
    "USD" + "9" * 40,
    "LAST_N_DAYS:738655",
    "N_YEARS_AGO:99999",
    "NEXT_N_FISCAL_QUARTERS:2147483648",
    "2023-02-30",
    "2023-05-15T25:00:00Z",
    "NULL",
    "TRUE",
    "*",
    "?",
    "{",
    "}",
    "\u00df",
    "\u0130",
    "\U0001f600",
    "\x00",
    " LIMIT 2147483648",
    " OFFSET 2001",
    " ORDER BY Id DESC NULLS LAST",
    " FOR UPDATE",
    " WITH SECURITY_ENFORCED",
    ", (SELECT Id FROM Contacts)",
    " GROUP BY ROLLUP(Name)",
]


def _corpus() -> list[tuple[str, str]]:
    shared = shared_dir()
    if shared is None:
        pytest.skip("the shared conformance corpus is not available")
    corpus = []
    for name, key, resource in (
        ("soql_valid.jsonl", "soql", "query"),
        ("soql_invalid.jsonl", "soql", "query"),
        ("sosl_valid.jsonl", "sosl", "search"),
    ):
        for line in (shared / "corpus" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                corpus.append((resource, json.loads(line)[key]))
    return corpus


def _mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(text))
        action = rng.random()
        if action < 0.35:
            text = text[:at] + rng.choice(SPLICES) + text[at:]
        elif action < 0.55:
            text = text[:at] + text[at + rng.randint(1, 8) :]
        elif action < 0.7:
            piece = text[at : at + rng.randint(1, 30)]
            text = text[:at] + piece * rng.randint(2, 60) + text[at:]
        elif action < 0.85:
            text = text[:at] + chr(rng.randint(32, 0x2FFF)) + text[at + 1 :]
        else:
            text = text.swapcase() if rng.random() < 0.5 else text[::-1]
    return text[:120_000]


def fuzz_inputs(count: int, seed: int = SEED) -> Iterator[tuple[str, str]]:
    """``count`` (resource, text) pairs: corpus entries, most of them mutated."""
    corpus = _corpus()
    rng = random.Random(seed)
    for _ in range(count):
        resource, text = rng.choice(corpus)
        yield resource, (text if rng.random() < 0.1 else _mutate(text, rng))


def test_fuzzed_queries_never_fail_the_server(running: RunningOrg) -> None:
    token = Client("https", running).token
    base = f"http://127.0.0.1:{running.server.http_port}{V}"
    local = threading.local()

    def send(item: tuple[str, str]) -> tuple[str, str, int, str, float]:
        if not hasattr(local, "session"):
            local.session = requests.Session()
            local.session.trust_env = False
            local.session.headers["Authorization"] = f"Bearer {token}"
        resource, text = item
        sent = time.monotonic()
        answer = local.session.get(f"{base}/{resource}", params={"q": text}, timeout=deadline.DEFAULT_SECONDS + 10)
        kind = answer.headers.get("Content-Type", "")
        return resource, text, answer.status_code, kind, time.monotonic() - sent

    started = time.monotonic()
    with ThreadPoolExecutor(CLIENTS) as pool:
        answers = list(pool.map(send, fuzz_inputs(INPUTS)))
    statuses = Counter(status for _, _, status, _, _ in answers)
    worst = max(elapsed for *_, elapsed in answers)
    faults = [
        (resource, text[:200], status)
        for resource, text, status, kind, _ in answers
        if status >= 500 or kind != "application/json;charset=UTF-8"
    ]
    summary = f"{INPUTS} inputs in {time.monotonic() - started:.1f} s, statuses {dict(statuses)}, worst {worst:.2f} s"
    print(summary)
    assert faults == [], summary
    assert worst < deadline.DEFAULT_SECONDS, summary

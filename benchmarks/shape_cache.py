"""New query texts vs warm ones: `python -m benchmarks.shape_cache`.

Tool calls embed fresh Ids and dates, so nearly every text an agent's tools send is new. For each query
shape the CRMArena tools send (eval_suite/tools/), this times the engine — plan, execute, shape the
records — on three sides taking turns round by round, each round with a text never seen (fresh
literals, same shape): the text with the plan cache off, which parses and compiles every text as the
engine did before the shape cache ("full"), the text through the shape cache ("new"), and the same
text once more, now warm ("warm"; the same rows, so the difference is the planning alone). It prints
medians and how much more a new text costs than a warm one; the goal is at most 0.3 ms. Every fresh
text's result is checked equal on both sides.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fixtures import default_org
from mock_org.clock import OrgClock
from mock_org.copies import prepared_copy
from mock_org.org import Org
from mock_org.schema import default_schema

CASE_FIELDS = "Id, OwnerId, CreatedDate, ClosedDate, Status, AccountId, IssueId__c, OrderItemId__c"
ASSIGNMENT = "Field__c = 'Owner Assignment'"


def _moment(index: int, days: int = 0) -> str:
    """A distinct UTC datetime literal per index (seconds apart), ``days`` later."""
    hours, seconds = divmod(index, 3600)
    return f"2022-{1 + days // 28:02d}-{1 + days % 28:02d}T{hours % 24:02d}:{seconds // 60:02d}:{seconds % 60:02d}Z"


def _quoted(values: list[str]) -> str:
    return "(" + ", ".join(f"'{value}'" for value in values) + ")"


def _shapes(raw: sqlite3.Connection) -> dict[str, Callable[[int], str]]:
    """Each tool's query as a function of an index: a different text (fresh literals) for each index."""

    def ids(sql: str) -> list[str]:
        return [row[0] for row in raw.execute(sql)]

    cases = ids('SELECT Id FROM "Case" ORDER BY Id')
    agents = ids('SELECT DISTINCT OwnerId FROM "Case" ORDER BY OwnerId')
    accounts = ids("SELECT Id FROM Account ORDER BY Id")
    contacts = ids("SELECT Id FROM Contact ORDER BY Id")
    products = ids("SELECT Id FROM Product2 ORDER BY Id")
    items = ids("SELECT Id FROM OrderItem ORDER BY Id")
    emailed = ids("SELECT DISTINCT ParentId FROM EmailMessage ORDER BY ParentId")
    chatted = ids("SELECT DISTINCT CaseId FROM LiveChatTranscript ORDER BY CaseId")

    def pick(pool: list[str], index: int, count: int = 1) -> list[str]:
        return [pool[(index * count + k) % len(pool)] for k in range(count)]

    def period(index: int) -> str:
        return f"CreatedDate >= {_moment(index)} AND CreatedDate < {_moment(index, 90)}"

    return {
        "get_cases (agent, period)": lambda i: (
            f"SELECT {CASE_FIELDS} FROM Case WHERE {period(i)} AND OwnerId IN {_quoted(pick(agents, i))}"
        ),
        "get_cases (10 case Ids)": lambda i: (
            f"SELECT {CASE_FIELDS} FROM Case WHERE Id IN {_quoted(pick(cases, i, 10))}"
        ),
        "get_cases (60 order items)": lambda i: (
            f"SELECT {CASE_FIELDS} FROM Case WHERE OrderItemId__c IN {_quoted(pick(items, i, 60))}"
        ),
        "handled cases by period": lambda i: (
            f"SELECT NewValue__c, COUNT(Id) n FROM CaseHistory__c WHERE {ASSIGNMENT} AND OldValue__c = null "
            f"AND {period(i)} GROUP BY NewValue__c"
        ),
        "non-transferred case Ids": lambda i: (
            f"SELECT Id, (SELECT Id FROM CaseHistories__r WHERE {ASSIGNMENT} AND OldValue__c != null) FROM Case "
            f"WHERE Id IN (SELECT CaseId__c FROM CaseHistory__c WHERE {ASSIGNMENT} AND OldValue__c = null "
            f"AND {period(i)}) ORDER BY Id"
        ),
        "transferred cases (5 agents)": lambda i: (
            f"SELECT OldValue__c, COUNT(Id) n FROM CaseHistory__c WHERE {ASSIGNMENT} AND OldValue__c != null "
            f"AND {period(i)} AND OldValue__c IN {_quoted(pick(agents, i, 5))} GROUP BY OldValue__c"
        ),
        "issue counts (order items)": lambda i: (
            f"SELECT IssueId__c, COUNT(Id) n FROM Case WHERE OrderItemId__c IN {_quoted(pick(items, i, 3))} "
            f"AND {period(i)} AND IssueId__c != null GROUP BY IssueId__c"
        ),
        "emails of a case": lambda i: (
            "SELECT Subject, TextBody, FromAddress, FromName, ToAddress, MessageDate, Incoming FROM EmailMessage "
            f"WHERE ParentId = '{pick(emailed, i)[0]}' ORDER BY MessageDate, Id"
        ),
        "chat of a case": lambda i: (
            f"SELECT Body, EndTime FROM LiveChatTranscript WHERE CaseId = '{pick(chatted, i)[0]}' ORDER BY EndTime, Id"
        ),
        "shipping states (20 accounts)": lambda i: (
            f"SELECT Id, ShippingState FROM Account WHERE Id IN {_quoted(pick(accounts, i, 20))}"
        ),
        "order items of a product": lambda i: (
            f"SELECT Id FROM OrderItem WHERE Product2Id = '{pick(products, i)[0]}' ORDER BY Id"
        ),
        "account of a contact": lambda i: f"SELECT AccountId FROM Contact WHERE Id = '{pick(contacts, i)[0]}'",
        "purchase history": lambda i: (
            f"SELECT Product2Id FROM OrderItem WHERE Order.AccountId = '{pick(accounts, i)[0]}' "
            f"AND Order.EffectiveDate = 2022-{1 + i % 12:02d}-{1 + i % 28:02d} AND Order.Status = 'Activated' "
            f"AND Product2Id IN {_quoted(pick(products, i, 4))}"
        ),
    }


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rounds", type=int, default=60, help="fresh texts per shape (default 60)")
    rounds = options.parse_args().rounds
    workdir = Path(tempfile.mkdtemp(prefix="crmarena-bench-"))
    try:
        schema = default_schema()
        path = prepared_copy(default_org(), workdir / "org.db", schema)
        clock = OrgClock.for_date("2024-06-01")
        cached = Org(path, schema=schema, clock=clock, read_only=True)
        full = Org(path, schema=schema, clock=clock, read_only=True, plan_cache=0)
        raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        shapes = _shapes(raw)
        raw.close()
        print(f"{'tool query shape':32} {'warm ms':>8} {'new ms':>8} {'+ms':>6} {'full ms':>8} {'+ms':>6}")
        worst = 0.0
        for label, make in shapes.items():
            cached.query(make(10**6))  # the shape's plan, from a text of its own
            full.query(make(10**6))  # the parser's and SQLite's caches
            warm, new, before = [], [], []
            for index in range(rounds):
                text = make(index)
                result: dict = {}
                before.append(_timed(lambda text=text, result=result: result.setdefault("full", full.query(text))))
                new.append(_timed(lambda text=text, result=result: result.setdefault("new", cached.query(text))))
                warm.append(_timed(lambda text=text: cached.query(text)))  # the same text, now warm
                if result["new"] != result["full"]:
                    raise SystemExit(f"{label}: the shape cache changed the result of {text}")
            medians = [statistics.median(side) * 1000 for side in (warm, new, before)]
            extra = medians[1] - medians[0]
            worst = max(worst, extra)
            print(
                f"{label:32} {medians[0]:8.3f} {medians[1]:8.3f} {extra:6.3f} {medians[2]:8.3f} "
                f"{medians[2] - medians[0]:6.3f}"
            )
        print(f"largest extra cost of a new text: {worst:.3f} ms (goal ≤ 0.3 ms)")
        cached.close()
        full.close()
    finally:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()

"""Engine vs bare SQLite: `python -m benchmarks.engine_vs_sqlite`.

For representative CRMArena queries (the original tools' shapes, with Ids taken from the default
org), times in one run the whole engine — parse, compile to SQLAlchemy Core, execute, shape REST
records — against the bare sqlite3 time of equivalent hand-written SQL over the same file, and
reports the best-of-N times, the overhead per query and the ratio: "cold" compiles the query every
time (plan cache off), "warm" reuses the compiled plan of a repeated query.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fixtures import default_org
from mock_org.clock import OrgClock
from mock_org.org import Org
from mock_org.schema import default_schema
from mock_org.storage import Storage


def _best_seconds(actions: list[Callable[[], object]], rounds: int) -> list[float]:
    """The fastest of ``rounds`` runs of each action, the actions taking turns round by round, so
    that other work on a shared machine disturbs every side alike; the minimum is the least
    disturbed measurement."""
    for action in actions:
        action()  # warm caches: SQLite pages, compiled statements
    best = [float("inf")] * len(actions)
    for _ in range(rounds):
        for index, action in enumerate(actions):
            started = time.perf_counter()
            action()
            best[index] = min(best[index], time.perf_counter() - started)
    return best


def _cases(raw: sqlite3.Connection) -> list[tuple[str, str, str, tuple]]:
    """(label, SOQL, equivalent SQL, SQL parameters), with Ids picked from the data."""
    product = raw.execute(
        "SELECT Product2Id FROM OrderItem GROUP BY Product2Id ORDER BY COUNT(*) DESC LIMIT 1"
    ).fetchone()[0]
    items = [row[0] for row in raw.execute("SELECT Id FROM OrderItem WHERE Product2Id = ?", (product,))]
    case_id = raw.execute('SELECT Id FROM "Case" WHERE Id IN (SELECT ParentId FROM EmailMessage) LIMIT 1').fetchone()[0]
    chat_case = raw.execute("SELECT CaseId FROM LiveChatTranscript LIMIT 1").fetchone()[0]
    account = raw.execute('SELECT AccountId FROM "Order" LIMIT 1').fetchone()[0]
    contact = raw.execute("SELECT Id FROM Contact LIMIT 1").fetchone()[0]
    quoted = ", ".join(f"'{item}'" for item in items)
    marks = ", ".join("?" for _ in items)
    window = ("2021-01-01T00:00:00.000+0000", "2022-01-01T00:00:00.000+0000")
    return [
        ("issues", "SELECT Id, Name FROM Issue__c", 'SELECT Id, Name FROM "Issue__c" WHERE IsDeleted = 0', ()),
        (
            "order items of a product",
            f"SELECT Id FROM OrderItem WHERE Product2Id = '{product}'",
            "SELECT Id FROM OrderItem WHERE Product2Id = ? AND IsDeleted = 0",
            (product,),
        ),
        (
            "cases of order items in a window",
            f"SELECT OwnerId, CreatedDate, ClosedDate, AccountId FROM Case WHERE OrderItemId__c IN ({quoted}) "
            "AND CreatedDate >= 2021-01-01T00:00:00Z AND CreatedDate < 2022-01-01T00:00:00Z",
            f'SELECT OwnerId, CreatedDate, ClosedDate, AccountId FROM "Case" WHERE OrderItemId__c IN ({marks}) '
            "AND CreatedDate >= ? AND CreatedDate < ? AND IsDeleted = 0",
            (*items, *window),
        ),
        (
            "issue counts",
            f"SELECT IssueId__c, COUNT(Id) IssueCount FROM Case WHERE OrderItemId__c IN ({quoted}) GROUP BY IssueId__c",
            f'SELECT IssueId__c, COUNT(Id) FROM "Case" WHERE OrderItemId__c IN ({marks}) AND IsDeleted = 0 GROUP BY IssueId__c',
            tuple(items),
        ),
        (
            "handled cases per agent",
            "SELECT NewValue__c, COUNT(Id) FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' AND CreatedDate >= 2021-01-01T00:00:00Z "
            "AND CreatedDate <= 2022-01-01T00:00:00Z GROUP BY NewValue__c",
            "SELECT NewValue__c, COUNT(Id) FROM CaseHistory__c WHERE sf_fold(Field__c) = ? AND CreatedDate >= ? AND CreatedDate <= ? "
            "AND IsDeleted = 0 GROUP BY NewValue__c",
            ("owner assignment", *window),
        ),
        (
            "non-transferred cases",
            "SELECT CaseId__c FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' GROUP BY CaseId__c HAVING COUNT(Id) = 1",
            "SELECT CaseId__c FROM CaseHistory__c WHERE sf_fold(Field__c) = ? AND IsDeleted = 0 GROUP BY CaseId__c HAVING COUNT(Id) = 1",
            ("owner assignment",),
        ),
        (
            "emails of a case",
            f"SELECT Subject, TextBody, FromAddress, ToAddress, MessageDate FROM EmailMessage WHERE ParentId = '{case_id}'",
            "SELECT Subject, TextBody, FromAddress, ToAddress, MessageDate FROM EmailMessage WHERE ParentId = ? AND IsDeleted = 0",
            (case_id,),
        ),
        (
            "chat of a case",
            f"SELECT Body, EndTime FROM LiveChatTranscript WHERE CaseId = '{chat_case}'",
            "SELECT Body, EndTime FROM LiveChatTranscript WHERE CaseId = ? AND IsDeleted = 0",
            (chat_case,),
        ),
        (
            "account of a contact",
            f"SELECT AccountId FROM Contact WHERE Id = '{contact}'",
            "SELECT AccountId FROM Contact WHERE Id = ? AND IsDeleted = 0",
            (contact,),
        ),
        (
            "purchase history (parent path)",
            f"SELECT Product2Id FROM OrderItem WHERE OrderItem.Order.AccountId = '{account}' AND OrderItem.Order.Status = 'Activated'",
            'SELECT i.Product2Id FROM OrderItem i LEFT JOIN "Order" o ON o.Id = i.OrderId WHERE o.AccountId = ? '
            "AND sf_fold(o.Status) = ? AND i.IsDeleted = 0",
            (account, "activated"),
        ),
        (
            "all closed cases (many rows)",
            "SELECT Id, OwnerId, CreatedDate, ClosedDate, AccountId FROM Case WHERE Status = 'Closed'",
            'SELECT Id, OwnerId, CreatedDate, ClosedDate, AccountId FROM "Case" WHERE sf_fold(Status) = ? AND IsDeleted = 0',
            ("closed",),
        ),
        (
            "all order items (many rows)",
            "SELECT Id, OrderId, Product2Id, Quantity, UnitPrice FROM OrderItem",
            "SELECT Id, OrderId, Product2Id, Quantity, UnitPrice FROM OrderItem WHERE IsDeleted = 0",
            (),
        ),
    ]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rounds", type=int, default=30)
    rounds = options.parse_args().rounds
    workdir = Path(tempfile.mkdtemp(prefix="crmarena-bench-"))
    path = workdir / "org.db"
    shutil.copyfile(default_org(), path)
    schema = default_schema()
    storage = Storage(path, schema)
    storage.prepare()
    storage.dispose()
    clock = OrgClock.for_date("2024-06-01")
    cold = Org(path, schema=schema, clock=clock, read_only=True, plan_cache=0)  # parses and compiles every time
    warm = Org(path, schema=schema, clock=clock, read_only=True)  # reuses the compiled plan of a repeated query
    raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    from mock_org.storage import register_functions

    register_functions(raw)
    print(
        f"{'query':34} {'rows':>6} {'sqlite ms':>10} {'cold ms':>8} {'+ms':>7} {'ratio':>6} {'warm ms':>8} {'+ms':>7} {'ratio':>6}"
    )
    for label, soql, sql, parameters in _cases(raw):
        rows = len(raw.execute(sql, parameters).fetchall())
        bare, first, again = _best_seconds(
            [
                lambda sql=sql, parameters=parameters: raw.execute(sql, parameters).fetchall(),
                lambda soql=soql: cold.query(soql),
                lambda soql=soql: warm.query(soql),
            ],
            rounds,
        )
        print(
            f"{label:34} {rows:6d} {bare * 1000:10.3f} {first * 1000:8.3f} {(first - bare) * 1000:7.3f} "
            f"{first / bare:6.1f} {again * 1000:8.3f} {(again - bare) * 1000:7.3f} {again / bare:6.1f}"
        )
    cold.close()
    warm.close()
    shutil.rmtree(workdir)


if __name__ == "__main__":
    main()

"""Round trip through the server vs the engine alone: `python -m benchmarks.roundtrip`.

Serves a throw-away copy of the default org with ``crmarena serve`` in its own process (so client
and server do not share an interpreter), then, for typical CRMArena queries (the tools' shapes of
reference/crmarena.md §4.4, Ids taken from the org), times in one run:

* the round trip as the harness makes it: unmodified simple-salesforce ``query_all`` / ``search``
  over HTTPS on loopback (keep-alive session, SOAP login done beforehand);
* the engine's own time for the same query: ``Org.query`` / ``Org.search`` in this process, on a
  prepared copy of the same org.

It prints p50 and p99 of both per query and overall, and the server's overhead (round trip − engine).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from simple_salesforce import Salesforce

from fixtures import default_org
from mock_org.clock import OrgClock
from mock_org.copies import prepared_copy
from mock_org.org import Org

BANNER = re.compile(r"Mock Salesforce org on https://127\.0\.0\.1:(\d+)")
TODAY = "2023-05-15"


def cases(path: Path) -> list[tuple[str, str]]:
    """(label, query) pairs shaped like the CRMArena tools' calls, with Ids from the org."""
    raw = sqlite3.connect(path)
    product = raw.execute(
        "SELECT Product2Id FROM OrderItem GROUP BY Product2Id ORDER BY COUNT(*) DESC LIMIT 1"
    ).fetchone()[0]
    items = ", ".join(f"'{row[0]}'" for row in raw.execute("SELECT Id FROM OrderItem WHERE Product2Id = ?", (product,)))
    case_id = raw.execute('SELECT Id FROM "Case" WHERE Id IN (SELECT ParentId FROM EmailMessage) LIMIT 1').fetchone()[0]
    account = raw.execute('SELECT AccountId FROM "Order" LIMIT 1').fetchone()[0]
    contact = raw.execute("SELECT Id FROM Contact LIMIT 1").fetchone()[0]
    raw.close()
    window = "CreatedDate >= 2021-01-01T00:00:00Z AND CreatedDate < 2022-01-01T00:00:00Z"
    return [
        ("get_issues", "SELECT Id, Name FROM Issue__c"),
        ("order items of a product", f"SELECT Id FROM OrderItem WHERE Product2Id = '{product}'"),
        (
            "get_cases",
            f"SELECT OwnerId, CreatedDate, ClosedDate, AccountId FROM Case WHERE OrderItemId__c IN ({items}) AND {window}",
        ),
        (
            "get_issue_counts",
            f"SELECT IssueId__c, COUNT(Id) IssueCount FROM Case WHERE OrderItemId__c IN ({items}) AND {window} GROUP BY IssueId__c",
        ),
        (
            "handled cases by agent",
            "SELECT NewValue__c, COUNT(Id) FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' "
            f"AND {window} GROUP BY NewValue__c",
        ),
        ("shipping state", f"SELECT Id, ShippingState FROM Account WHERE Id = '{account}'"),
        ("account of a contact", f"SELECT AccountId FROM Contact WHERE Id = '{contact}'"),
        (
            "purchase history",
            f"SELECT Product2Id FROM OrderItem WHERE Order.AccountId = '{account}' AND Order.Status = 'Activated'",
        ),
        (
            "emails of a case",
            f"SELECT Subject, TextBody, FromAddress, ToAddress, MessageDate FROM EmailMessage WHERE ParentId = '{case_id}'",
        ),
        ("all cases (1 page)", "SELECT Id, Status, OwnerId, CreatedDate FROM Case"),
        (
            "search knowledge",
            "FIND {return policy} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, FAQ_Answer__c "
            "WHERE PublishStatus='Online' AND Language='en_US')",
        ),
        ("search products", "FIND {running shoe} IN ALL FIELDS RETURNING Product2(Id, Name, Description)"),
    ]


def samples(action: Callable[[], object], rounds: int) -> list[float]:
    action()  # warm: SQLite pages, compiled plans, the TLS connection
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return times


def p(values: list[float], quantile: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(quantile * (len(ordered) - 1)))]


def start_server(
    path: Path, tls_dir: Path, env: dict[str, str] | None = None, tree: Path | None = None
) -> tuple[subprocess.Popen, int, dict[str, str]]:
    """``crmarena serve`` on a copy of ``path``; from the checkout ``tree`` instead of this one if given
    (run there, so that its packages are the ones imported)."""
    if tree is not None:
        env = {**(env or os.environ), "PYTHONPATH": str(tree.resolve())}
    command = [
        sys.executable,
        "-m",
        "eval_suite.commands.cli",
        "serve",
        "--db",
        str(path),
        "--copy",
        "--port",
        "0",
        "--tls-dir",
        str(tls_dir),
        "--today",
        TODAY,
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=tree)
    exports: dict[str, str] = {}
    port = 0
    assert process.stdout is not None
    for line in process.stdout:
        if match := BANNER.search(line):
            port = int(match.group(1))
        if line.startswith("export "):
            name, _, value = line[7:].strip().partition("=")
            exports[name] = value.strip("'")
        if line.startswith("Ctrl-C"):
            return process, port, exports
    raise RuntimeError("crmarena serve did not start")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100, help="timed runs per query (default 100)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as scratch:
        path = prepared_copy(default_org(), Path(scratch) / "org.db")
        process, port, exports = start_server(path, Path(scratch) / "tls")
        try:
            os.environ["REQUESTS_CA_BUNDLE"] = exports["REQUESTS_CA_BUNDLE"]
            sf = Salesforce(
                username=exports["CRMARENA_USERNAME"],
                password=exports["CRMARENA_PASSWORD"],
                security_token=exports["CRMARENA_SECURITY_TOKEN"],
                domain=f"127.0.0.1:{port}/login",
            )
            org = Org(path, clock=OrgClock.for_date(TODAY), read_only=True)
            rows = []
            all_trip: list[float] = []
            all_engine: list[float] = []
            for label, query in cases(path):
                sosl = query.startswith("FIND")
                trip = samples(
                    (lambda q=query: sf.search(q)) if sosl else (lambda q=query: sf.query_all(q)), args.rounds
                )
                engine = samples(
                    (lambda q=query: org.search(q)) if sosl else (lambda q=query: org.query(q)), args.rounds
                )
                count = len(org.search(query)["searchRecords"]) if sosl else org.query(query)["totalSize"]
                rows.append((label, count, p(engine, 0.5), p(engine, 0.99), p(trip, 0.5), p(trip, 0.99)))
                all_trip += trip
                all_engine += engine
            org.close()
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)

    ms = 1000.0
    print(f"{args.rounds} timed runs per query; times in ms; round trip = simple-salesforce over HTTPS on loopback")
    print(f"{'query':28} {'rows':>5} {'engine p50':>10} {'p99':>7} {'trip p50':>9} {'p99':>7} {'overhead p50':>12}")
    for label, count, e50, e99, t50, t99 in rows:
        print(
            f"{label:28} {count:5d} {e50 * ms:10.2f} {e99 * ms:7.2f} {t50 * ms:9.2f} {t99 * ms:7.2f} {(t50 - e50) * ms:12.2f}"
        )
    e50, t50 = p(all_engine, 0.5), p(all_trip, 0.5)
    print(
        f"{'all queries':28} {'':5} {e50 * ms:10.2f} {p(all_engine, 0.99) * ms:7.2f} {t50 * ms:9.2f} "
        f"{p(all_trip, 0.99) * ms:7.2f} {(t50 - e50) * ms:12.2f}"
    )
    overheads = [(t - e) * ms for (_, _, e, _, t, _) in rows]
    print(
        f"server overhead per query (p50 round trip − p50 engine): median {statistics.median(overheads):.2f} ms, "
        f"max {max(overheads):.2f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

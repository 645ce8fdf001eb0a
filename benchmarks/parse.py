"""Parse-time benchmark: `python -m benchmarks.parse`.

Builds the parsers once (the build is timed on its own), then parses a realistic query set —
the CRMArena tools' and agents' SOQL shapes plus the project's SOQL/SOSL case files — many times
and reports the median and 95th-percentile time per query, with the same queries rendered back.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from soql_parser import parse, to_text
from soql_parser.parser import _query_parser, _search_parser

CASES = Path(__file__).resolve().parents[1] / "tests" / "soql_parser" / "cases"

# The query shapes the original CRMArena tools send (reference/crmarena.md §4.4), with ids filled in.
CRMARENA_SHAPES = [
    "SELECT Id, Name FROM Issue__c",
    "SELECT Id FROM OrderItem WHERE Product2Id = '01tWs000002wRwLIAU'",
    "SELECT OwnerId, CreatedDate, ClosedDate, AccountId FROM Case WHERE CreatedDate >= 2023-01-01T00:00:00Z "
    "AND CreatedDate < 2023-04-01T00:00:00Z AND Status IN ('Closed') AND OrderItemId__c IN ('802Ws000001m14WIAQ', "
    "'802Ws000001m9epIAA', '802Ws000001mA1AIAU')",
    "SELECT IssueId__c, COUNT(Id) IssueCount FROM Case WHERE OrderItemId__c IN ('802Ws000001m14WIAQ') AND "
    "CreatedDate >= 2021-12-01T00:00:00Z AND CreatedDate <= 2022-03-01T00:00:00Z GROUP BY IssueId__c",
    "SELECT NewValue__c, COUNT(Id) FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' AND CreatedDate >= "
    "2023-01-01T00:00:00Z AND CreatedDate <= 2023-06-30T23:59:59Z GROUP BY NewValue__c",
    "SELECT CaseId__c FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' AND CreatedDate >= 2023-01-01T00:00:00Z "
    "AND CreatedDate <= 2023-03-31T23:59:59Z GROUP BY CaseId__c HAVING COUNT(Id) = 1",
    "SELECT OldValue__c, CreatedDate FROM CaseHistory__c WHERE Field__c = 'Owner Assignment' AND OldValue__c != NULL",
    "SELECT Id, ShippingState FROM Account WHERE Id IN ('001Ws00003Ljqo2IAB', '001Ws00003LjjD8IAJ')",
    "SELECT AccountId FROM Contact WHERE Id = '003Ws000004G1gzIAC'",
    "SELECT Product2Id FROM OrderItem WHERE OrderItem.Order.AccountId = '001Ws00003Ljqo2IAB' AND "
    "OrderItem.Order.EffectiveDate = 2023-05-01 AND Product2Id IN ('01tWs000002wRwLIAU') AND "
    "OrderItem.Order.Status = 'Activated'",
    "SELECT Subject, TextBody, FromAddress, ToAddress, MessageDate FROM EmailMessage "
    "WHERE ParentId = '500Ws000007qifMIAQ'",
    "SELECT Body, EndTime FROM LiveChatTranscript WHERE CaseId = '500Ws000007qifMIAQ'",
    "FIND {refund policy} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title, FAQ_Answer__c WHERE "
    "PublishStatus = 'Online' AND Language = 'en_US')",
    "FIND {speed rope} IN ALL FIELDS RETURNING Product2(Id, Name, Description)",
]


def _case_queries() -> list[str]:
    queries: list[str] = []
    for name in ("identity_soql.txt", "identity_sosl.txt"):
        path = CASES / name
        if path.exists():
            queries += [line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return queries


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rounds", type=int, default=20, help="passes over the query set")
    rounds = options.parse_args().rounds

    started = time.perf_counter()
    _query_parser()
    _search_parser()
    build = time.perf_counter() - started

    sets = {"crmarena tool shapes": CRMARENA_SHAPES, "reference and agent cases": _case_queries()}
    print(f"parsers built once in {build * 1000:.0f} ms")
    for label, queries in sets.items():
        parse_times: list[float] = []
        render_times: list[float] = []
        for _ in range(rounds):
            for query in queries:
                t0 = time.perf_counter()
                tree = parse(query)
                t1 = time.perf_counter()
                to_text(tree)
                t2 = time.perf_counter()
                parse_times.append(t1 - t0)
                render_times.append(t2 - t1)
        mean_length = statistics.mean(len(q) for q in queries)
        print(
            f"{label}: {len(queries)} queries (mean {mean_length:.0f} chars) x {rounds} rounds — "
            f"parse median {statistics.median(parse_times) * 1e6:.0f} µs, "
            f"p95 {_percentile(parse_times, 0.95) * 1e6:.0f} µs; "
            f"render median {statistics.median(render_times) * 1e6:.0f} µs"
        )


if __name__ == "__main__":
    main()

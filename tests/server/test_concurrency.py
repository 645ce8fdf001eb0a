"""Sixteen clients at once for ten seconds over HTTPS, mixing queries and writes: against one server
process, and against ``crmarena serve --workers 2`` (two processes writing one file).

Each thread owns the records whose names carry its tag, so it knows exactly what every read of them
must return: its own writes, all of them, once each (read-your-writes, nothing lost or duplicated).
All-or-none collections of three records must never be seen partly, and a paged query over an
untouched table must return the same rows however the writes interleave with its pages.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from simple_salesforce import Salesforce

from mock_org.client import connect
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org

from .conftest import BULK_PRODUCTS, TWINS
from .test_cli import crmarena, started, stop

THREADS = 16
SECONDS = 10.0
PAGED = {"Sforce-Query-Options": "batchSize=200"}
PRODUCTS = BULK_PRODUCTS + 3 + len(TWINS)


@dataclass
class ServedByWorkers:
    """``crmarena serve --workers 2`` as a subprocess, connected to as ``RunningOrg.connect`` does."""

    exports: dict[str, str]

    def connect(self) -> Salesforce:
        return connect(
            self.exports["CRMARENA_URL"],
            username=self.exports["CRMARENA_USERNAME"],
            password=self.exports["CRMARENA_PASSWORD"],
            security_token=self.exports["CRMARENA_SECURITY_TOKEN"],
            ca_bundle=self.exports["CRMARENA_CA_BUNDLE"],
        )


@pytest.fixture(scope="module", params=["one process", "two workers"])
def served(
    request: pytest.FixtureRequest, org_dump: Path, tls_files: tls.TlsFiles
) -> Iterator[RunningOrg | ServedByWorkers]:
    if request.param == "one process":
        with serve_org(org_dump, tls_files=tls_files) as running:
            yield running
        return
    process = crmarena(
        "serve", "--db", str(org_dump), "--copy", "--port", "0", "--workers", "2", "--tls-dir", str(tls_files.directory)
    )
    try:
        yield ServedByWorkers(started(process)[2])
    finally:
        assert stop(process) == 0


class Worker(threading.Thread):
    def __init__(self, number: int, sf: Salesforce, deadline: float) -> None:
        super().__init__(name=f"worker-{number}")
        self.tag = f"W{number:02d}"
        self.sf = sf
        self.deadline = deadline
        self.random = random.Random(number)
        self.expected: dict[str, str | None] = {}  # Id → Description__c this thread last wrote
        self.singles: list[str] = []  # the records update and delete pick from (never a group's)
        self.failures: list[str] = []
        self.operations: Counter[str] = Counter()
        self.serial = 0

    def run(self) -> None:
        while time.monotonic() < self.deadline and not self.failures:
            action = self.random.choices(
                [
                    self.create,
                    self.update,
                    self.delete,
                    self.create_group,
                    self.read_own,
                    self.read_groups,
                    self.read_paged,
                ],
                weights=[30, 12, 8, 8, 25, 10, 7],
            )[0]
            try:
                action()
                self.operations[action.__name__] += 1
            except Exception as error:  # any error at all fails the test, with its description
                self.failures.append(f"{self.tag} {action.__name__}: {type(error).__name__}: {error}")

    def _fresh_name(self, kind: str) -> str:
        self.serial += 1
        return f"{self.tag}-{kind}-{self.serial:05d}"

    def create(self) -> None:
        result = self.sf.Issue__c.create({"Name": self._fresh_name("one")})
        self.expected[result["id"]] = None
        self.singles.append(result["id"])

    def update(self) -> None:
        if self.singles:
            record_id = self.random.choice(self.singles)
            description = f"v{self.serial}"
            self.serial += 1
            self.sf.Issue__c.update(record_id, {"Description__c": description})
            self.expected[record_id] = description

    def delete(self) -> None:
        if self.singles:
            record_id = self.singles.pop(self.random.randrange(len(self.singles)))
            self.sf.Issue__c.delete(record_id)
            del self.expected[record_id]

    def create_group(self) -> None:
        group = self._fresh_name("grp")
        records = [{"attributes": {"type": "Issue__c"}, "Name": f"{group}-{k}"} for k in range(3)]
        results = self.sf.restful("composite/sobjects", method="POST", json={"allOrNone": True, "records": records})
        if not all(result["success"] for result in results):
            raise AssertionError(f"collection failed: {results}")
        for result in results:
            self.expected[result["id"]] = None

    def read_own(self) -> None:
        rows = self.sf.query_all(f"SELECT Id, Description__c FROM Issue__c WHERE Name LIKE '{self.tag}-%'")["records"]
        seen = {row["Id"]: row["Description__c"] for row in rows}
        if len(rows) != len(seen) or seen != self.expected:
            missing, extra = set(self.expected) - set(seen), set(seen) - set(self.expected)
            changed = {key for key in set(seen) & set(self.expected) if seen[key] != self.expected[key]}
            raise AssertionError(f"own records differ: missing {missing}, extra {extra}, changed {changed}")

    def read_groups(self) -> None:
        rows = self.sf.query_all("SELECT Name FROM Issue__c WHERE Name LIKE 'W%-grp-%'")["records"]
        sizes = Counter(row["Name"].rsplit("-", 1)[0] for row in rows)
        partial = {group: size for group, size in sizes.items() if size != 3}
        if partial:
            raise AssertionError(f"all-or-none groups seen partly: {partial}")

    def read_paged(self) -> None:
        rows = self.sf.query_all("SELECT Id FROM Product2 ORDER BY Id", headers=PAGED)["records"]
        ids = [row["Id"] for row in rows]
        if len(ids) != PRODUCTS or len(set(ids)) != PRODUCTS:
            raise AssertionError(f"paged read returned {len(ids)} rows ({len(set(ids))} distinct), not {PRODUCTS}")


def test_sixteen_clients_mixing_queries_and_writes(served: RunningOrg | ServedByWorkers) -> None:
    clients = [served.connect() for _ in range(THREADS)]
    started = time.monotonic()
    workers = [Worker(number, sf, started + SECONDS) for number, sf in enumerate(clients)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=SECONDS + 60)
    elapsed = time.monotonic() - started
    failures = [failure for worker in workers for failure in worker.failures]
    assert failures == []
    assert elapsed >= SECONDS and not any(worker.is_alive() for worker in workers)
    totals = sum((worker.operations for worker in workers), Counter())
    assert totals["create"] > 0 and totals["read_own"] > 0 and totals["create_group"] > 0 and totals["read_paged"] > 0

    # Afterwards: every thread's records are exactly what it wrote, each once.
    sf = clients[0]
    rows = sf.query_all("SELECT Id, Name, Description__c FROM Issue__c WHERE Name LIKE 'W%'")["records"]
    by_id = {row["Id"]: row["Description__c"] for row in rows}
    names = Counter(row["Name"] for row in rows)
    assert len(by_id) == len(rows) and max(names.values()) == 1
    expected = {key: value for worker in workers for key, value in worker.expected.items()}
    assert by_id == expected

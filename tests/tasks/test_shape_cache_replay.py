"""The reference solutions' queries, each answered by the engine with its plan and shape caches and by the
engine with no cache at all: the same records or the same error every time (the shape cache changes
nothing; tests/mock_org/query/test_shape_cache.py has the rest). A sample of the instances here, all of
them with --run-slow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_suite.reference import run_reference
from mock_org.clock import OrgClock
from mock_org.copies import prepared_copy
from mock_org.org import Org
from soql_parser.shapes import query_shape

SAMPLE_EVERY = 15


class Differential:
    """What the tools use of simple-salesforce's client (query_all, search), answered by both orgs; a
    difference fails the test at the query that shows it."""

    def __init__(self, cached: Org, full: Org) -> None:
        self.cached, self.full = cached, full
        self.queries = 0
        self.shared = 0  # queries answered from a plan their shape shares with an earlier text

    def query_all(self, soql: str) -> dict[str, Any]:
        shape = query_shape(soql)
        if shape is not None and any(key[0] == shape.key for key in self.cached.queries._shapes):
            self.shared += 1
        self.queries += 1
        answer = _all_records(self.full, soql)
        assert _all_records(self.cached, soql) == answer, soql
        if isinstance(answer, Exception):
            raise answer
        return answer

    def search(self, sosl: str) -> dict[str, Any]:
        return self.full.search(sosl)


def _all_records(org: Org, soql: str) -> Any:
    try:
        page = org.query(soql)
        records = list(page["records"])
        while not page["done"]:
            page = org.query_more(page["nextRecordsUrl"].rsplit("/", 1)[1])
            records += page["records"]
        return {"totalSize": page["totalSize"], "done": True, "records": records}
    except Exception as error:  # compared by class and message, then raised to the tool
        return _Failure(type(error).__name__, str(error))


class _Failure(Exception):
    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Failure) and self.args == other.args

    __hash__ = Exception.__hash__


@pytest.fixture(scope="module")
def differential(default_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = prepared_copy(default_db, tmp_path_factory.mktemp("replay") / "org.db")  # as a served org has it
    clock = OrgClock.for_date("2024-06-01")
    cached = Org(path, clock=clock, read_only=True)
    full = Org(path, clock=clock, read_only=True, plan_cache=0)
    yield Differential(cached, full)
    cached.close()
    full.close()


def _check(differential: Differential, chosen: list) -> None:
    for instance in chosen:
        assert run_reference(differential, instance.reference) == instance.answer, instance.idx  # type: ignore[arg-type]
    assert differential.shared > differential.queries // 3  # most texts were new; their shapes were not


def test_sampled_references_get_the_same_answers_through_shared_plans(differential, instances) -> None:
    _check(differential, instances[::SAMPLE_EVERY])


@pytest.mark.slow
def test_every_reference_gets_the_same_answers_through_shared_plans(differential, instances) -> None:
    _check(differential, instances)

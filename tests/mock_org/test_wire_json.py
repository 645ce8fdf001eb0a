"""The server's JSON (server/rest/wire.py): ``dumps`` writes exactly the bytes of the rules (``java_dumps``:
Java's doubles, null for NaN and infinities, key order kept, non-ASCII as it is), whether the json
module's C encoder or the rules write them."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mock_org.org import Org
from mock_org.query.shape import Records
from mock_org.server.rest.wire import dumps, dumps_bytes, java_dumps
from mock_org.values import format_datetime

from .conftest import PRODUCTS

datetimes = st.datetimes(min_value=dt.datetime(1700, 1, 1), max_value=dt.datetime(4000, 12, 31)).map(format_datetime)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.floats(min_value=-1e-2, max_value=1e-2)  # around 1e-3, where Java turns to E notation
    | st.floats(min_value=-1e8, max_value=1e8)  # around 1e7, likewise
    | st.text()
    | datetimes
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.lists(inner, max_size=5).map(tuple)
        | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)


@given(values)
def test_dumps_writes_the_rules_bytes(value: object) -> None:
    assert dumps(value) == java_dumps(value)


@given(st.lists(st.dictionaries(st.text(max_size=8), scalars, max_size=4), max_size=4), st.booleans())
def test_records_that_say_they_hold_no_java_double_are_written_by_the_rules_bytes(records: list, flag: bool) -> None:
    """A Records list is taken at its word; one that truly holds none is written as the rules would."""
    honest = any(
        isinstance(v, float) and not (v == 0 or 1e-3 <= abs(v) < 1e7) for record in records for v in record.values()
    )
    text = dumps({"totalSize": len(records), "records": Records(records, honest or flag)})
    assert text == java_dumps({"totalSize": len(records), "records": records})


def test_the_rules_are_salesforces() -> None:
    value = {"b": 99213206.0, "a": [1e-4, 15000.0, float("nan"), float("inf")], "ü": "Größe ✓", "n": None, "t": True}
    assert dumps(value) == '{"b":9.9213206E7,"a":[1.0E-4,15000.0,null,null],"ü":"Größe ✓","n":null,"t":true}'


@pytest.mark.parametrize(
    "soql",
    [
        "SELECT Id, Name, UnitPrice FROM PricebookEntry ORDER BY Name",  # 2.5E7 among them
        "SELECT Id, UnitPrice FROM PricebookEntry WHERE UnitPrice < 1000",
        "SELECT Product2Id, MAX(UnitPrice) top, AVG(UnitPrice) mean FROM PricebookEntry GROUP BY Product2Id",
        "SELECT Id, FORMAT(UnitPrice) FROM PricebookEntry",
        "SELECT Id, Quantity, UnitPrice, TotalPrice, Order.Status FROM OrderItem",
        "SELECT Id, Subject, CreatedDate, IsClosed FROM Case",
        "SELECT Id, (SELECT UnitPrice FROM PricebookEntries) FROM Product2",
    ],
)
def test_query_results_are_written_by_the_rules_bytes(org: Org, soql: str) -> None:
    result = org.query(soql)
    assert dumps(result) == java_dumps(result)
    assert json.loads(dumps(result)) == json.loads(java_dumps(result))


def test_a_large_double_in_a_query_result_prints_like_java(org: Org) -> None:
    result = org.query(f"SELECT UnitPrice FROM PricebookEntry WHERE Product2Id = '{PRODUCTS[2]}'")
    assert '"UnitPrice":2.5E7' in dumps(result)
    assert result["records"].java_doubles


def test_what_orjson_refuses_is_written_by_the_rules() -> None:
    """Ints beyond 64 bits and nesting past orjson's 255 levels still go out, as the rules write them."""
    deep: object = 1
    for _ in range(300):
        deep = [deep]
    for value in ({"n": 2**64 + 1, "m": -(2**70)}, deep):
        assert dumps_bytes(value) == java_dumps(value).encode() and json.loads(dumps_bytes(value)) == value

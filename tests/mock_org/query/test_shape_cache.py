"""The shape cache changes nothing but speed: a text served from its shape's plan (its literals bound into
a plan compiled for other literals) gives exactly the records, or exactly the error, of the full path
with the plan cache off. Checked on the engine tests' own queries, the public corpus, hypothesis'
literal substitutions of them and the queries of the reference solutions (tests/tasks)."""

from __future__ import annotations

import ast
import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mock_org.clock import OrgClock
from mock_org.org import Org
from soql_parser.parser import _query_parser
from soql_parser.shapes import query_shape
from tests.shared import shared_dir

from ..builder import build_org, rid
from ..conftest import ACCOUNTS, CASES, CONTACTS, ITEMS, PRODUCTS, tiny_records

HERE = Path(__file__).parent
TODAY = OrgClock.for_date("2023-05-15")


def _test_queries() -> list[str]:
    """Every SOQL text written out in the engine tests."""
    found = []
    for path in sorted(HERE.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if is_text and node.value.lstrip()[:7].upper() == "SELECT ":
                found.append(node.value)
    return list(dict.fromkeys(found))


def _corpus_queries() -> list[str]:
    shared = shared_dir()
    if shared is None:
        return []
    found = []
    for name in ("soql_valid.jsonl", "soql_invalid.jsonl", "soql_parser_extensions.jsonl"):
        for line in (shared / "corpus" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                found.append(entry.get("soql") or entry.get("text") or entry.get("query") or "")
    return found


TEST_QUERIES = _test_queries()
CORPUS = _corpus_queries()
ALL_QUERIES = TEST_QUERIES + CORPUS

# Replacement literals of each kind: valid, odd and invalid ones, so that errors are compared too.
REPLACEMENTS = {
    "s": [
        *(f"'{record_id}'" for record_id in (*CASES[:3], *ACCOUNTS[:2], *CONTACTS[:1], *ITEMS[:2], *PRODUCTS[:2])),
        f"'{CASES[1][:15]}'",
        f"'{CASES[1][:15].lower()}'",
        "'Closed'",
        "'closed'",
        "'High'",
        "'Size Mismatch'",
        "'wrong%'",
        "'%size%'",
        "'_rong size'",
        "'50\\% discount%'",
        "'O\\'Brien'",
        "'Größe falsch'",
        "''",
        "'001xyz'",
        "'\\u00e9mile'",
        "'\\q'",
        "'Owner Assignment'",
        "'Support Agent'",
        "'CA'",
        "'2023-01-01'",
    ],
    "i": ["0", "1", "-1", "2", "3", "2022", "2023", "12", "- 5", "99999999999999999999999", "9223372036854775807"],
    "d": ["0.5", "-1.5", "129.99", "14.0", ".5", "2023.0"],
    "D": ["2023-01-01", "2023-05-15", "2022-12-31", "2024-02-29", "2023-02-30", "0001-01-01"],
    "T": [
        "2023-01-01T00:00:00Z",
        "2023-03-01T23:30:00.000+0000",
        "2023-05-15T06:00:00-07:00",
        "2023-05-14T18:00:00.5+05:30",
        "2023-13-01T00:00:00Z",
        "2022-06-01T00:00:00z",
    ],
    "t": ["10:00:00Z", "23:59:59.999Z", "25:00:00Z"],
}
_MARKS = re.compile("\x00(.)")


def with_literals(text: str, choose: Any) -> str | None:
    """``text`` with each lifted literal replaced by ``choose(kind, index)``; None when nothing is lifted."""
    shape = query_shape(text)
    if shape is None or not shape.literals:
        return None
    counter = iter(range(len(shape.literals)))
    return _MARKS.sub(lambda mark: choose(mark.group(1), next(counter)), shape.key)


def _rotated(start: int) -> Any:
    """Replacements taken in turn, from ``start`` on."""
    return lambda kind, index: REPLACEMENTS[kind][(start + index) % len(REPLACEMENTS[kind])]


def outcome(org: Org, text: str, clock: OrgClock | None = None) -> tuple:
    """Every record of every page, or the error's class and message."""
    try:
        page = org.query(text, batch_size=200, clock=clock)
        records = list(page["records"])
        while not page["done"]:
            page = org.query_more(page["nextRecordsUrl"].rsplit("/", 1)[1])
            records += page["records"]
        return ("records", page["totalSize"], records)
    except Exception as error:  # every error an org reports, compared as it would be reported
        return (type(error).__name__, str(error))


@pytest.fixture(scope="module")
def orgs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The tiny org twice over one file: with the plan and shape caches, and with no cache at all."""
    path = tmp_path_factory.mktemp("shapes") / "org.db"
    build_org(path, tiny_records(), read_only=True).close()
    cached = Org(path, clock=TODAY, read_only=True)
    full = Org(path, clock=TODAY, read_only=True, plan_cache=0)
    yield cached, full
    cached.close()
    full.close()


def shared_plan_used(cached: Org, text: str) -> bool:
    """Whether the cached org keeps a plan for ``text``'s shape (so a new text of it is not compiled)."""
    shape = query_shape(text)
    return shape is not None and any(key[0] == shape.key for key in cached.queries._shapes)


def check(orgs: Any, primer: str, text: str, clock: OrgClock | None = None) -> bool:
    """``text`` after ``primer`` (same shape) on the cached org gives what the full path gives."""
    cached, full = orgs
    outcome(cached, primer, clock)
    shared = shared_plan_used(cached, text)
    assert outcome(cached, text, clock) == outcome(full, text, clock), (primer, text)
    return shared


def test_the_scan_lifts_exactly_the_lexers_literal_tokens() -> None:
    """Each lifted literal is a token of the lexer's, of the same terminal, at the same place."""
    lifted_any = 0
    for text in ALL_QUERIES:
        shape = query_shape(text)
        if shape is None:
            continue
        try:
            tokens = {(token.line, token.column): token for token in _query_parser().lex(text)}
        except Exception:  # the lexer refuses the text: so does the parser, before any plan is kept
            continue
        for literal in shape.literals:
            token = tokens[literal.pos]
            if literal.sign:
                assert (token.type, str(token)) == ("SIGN", literal.sign), text
                continue
            assert (token.type, str(token)) == (literal.kind, literal.text), text
            lifted_any += 1
    assert lifted_any > 100


def test_what_stays_in_the_shape() -> None:
    shape = query_shape(
        "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:5 AND IsClosed = TRUE AND ClosedDate != NULL "
        "AND Subject IN ('a', 'b') AND Amount__c > USD100 LIMIT 10 OFFSET 5"
    )
    assert shape is not None
    assert [literal.text for literal in shape.literals] == ["'a'", "'b'"]
    assert "LAST_N_DAYS:5" in shape.key and "LIMIT 10 OFFSET 5" in shape.key and "USD100" in shape.key
    dated, timed = (
        query_shape("SELECT Id FROM Case WHERE CreatedDate > 2023-01-01"),
        query_shape("SELECT Id FROM Case WHERE CreatedDate > 2023-01-01T00:00:00Z"),
    )
    assert dated and timed and dated.key != timed.key  # a date is not a datetime: another shape
    assert query_shape("FIND {Ida} RETURNING Case") is None


def test_engine_tests_queries_with_their_literals_replaced(orgs) -> None:
    shared = 0
    for number, text in enumerate(TEST_QUERIES):
        for turn in range(2):
            variant = with_literals(text, _rotated(number + turn))
            if variant is not None:
                shared += check(orgs, text, variant)  # the original's plan serves the variant
                shared += check(orgs, variant, text)  # and the other way round
    assert shared > 100  # the check is not vacuous: most texts went through a shared plan


def test_corpus_queries_with_their_literals_replaced(orgs) -> None:
    if not CORPUS:
        pytest.skip("the shared conformance corpus is not available")
    for number, text in enumerate(CORPUS):
        variant = with_literals(text, _rotated(number))
        if variant is not None:
            check(orgs, text, variant)
            check(orgs, variant, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hypothesis_literal_substitutions(orgs, data) -> None:
    text = data.draw(st.sampled_from([text for text in ALL_QUERIES if with_literals(text, lambda k, i: "")]))

    def substitute(kind: str, index: int) -> str:
        return data.draw(st.sampled_from(REPLACEMENTS[kind]))

    primer = with_literals(text, substitute)
    variant = with_literals(text, substitute)
    assert primer is not None and variant is not None
    check(orgs, primer, variant)


@pytest.mark.parametrize(
    ("primer", "text"),
    [
        # An Id that is no Id: the error and its caret are the full path's.
        (f"SELECT Id FROM Case WHERE Id = '{CASES[0]}'", "SELECT Id FROM Case WHERE Id = '500xyz'"),
        (
            f"SELECT Id FROM Case WHERE Id IN ('{CASES[0]}', '{CASES[1]}')",
            f"SELECT Id FROM Case WHERE Id IN ('{CASES[2]}', 'x')",
        ),
        # A string where a date goes, a number out of range, a date that does not exist.
        ("SELECT Id FROM Case WHERE Subject = 'a'", "SELECT Id FROM Case WHERE Subject = 'Wrong size'"),
        (
            "SELECT Id FROM Case WHERE CALENDAR_YEAR(CreatedDate) = 2023",
            "SELECT Id FROM Case WHERE CALENDAR_YEAR(CreatedDate) = 2023.5",
        ),
        (
            "SELECT Id FROM Case WHERE CALENDAR_YEAR(CreatedDate) = 2023",
            "SELECT Id FROM Case WHERE CALENDAR_YEAR(CreatedDate) = 2022",
        ),
        (
            "SELECT Name FROM PricebookEntry WHERE UnitPrice > 1",
            "SELECT Name FROM PricebookEntry WHERE UnitPrice > 99999999999999999999999999",
        ),
        (
            "SELECT Id FROM Order WHERE EffectiveDate = 2023-01-10",
            "SELECT Id FROM Order WHERE EffectiveDate = 2023-02-30",
        ),
        (
            "SELECT Id FROM Order WHERE EffectiveDate = 2023-01-10",
            "SELECT Id FROM Order WHERE EffectiveDate = 2023-03-05",
        ),
        # LIKE patterns: wildcards, escaped wildcards.
        ("SELECT Id FROM Case WHERE Subject LIKE 'x'", "SELECT Id FROM Case WHERE Subject LIKE '50\\% %'"),
        ("SELECT Id FROM Case WHERE Subject LIKE 'x'", "SELECT Id FROM Case WHERE Subject LIKE '%size%'"),
        # toLabel compares with labels; picklists case-insensitively.
        ("SELECT Id FROM Case WHERE toLabel(Status) = 'x'", "SELECT Id FROM Case WHERE toLabel(Status) = 'closed'"),
        # Literals inside a child subquery and a semi-join.
        (
            "SELECT Id, (SELECT Id FROM Cases WHERE Status = 'New') FROM Account WHERE Id IN (SELECT AccountId FROM Case WHERE Priority = 'Low')",
            "SELECT Id, (SELECT Id FROM Cases WHERE Status = 'Closed') FROM Account WHERE Id IN (SELECT AccountId FROM Case WHERE Priority = 'High')",
        ),
        # HAVING, and aggregates.
        (
            "SELECT OwnerId, COUNT(Id) FROM Case GROUP BY OwnerId HAVING COUNT(Id) > 5",
            "SELECT OwnerId, COUNT(Id) FROM Case GROUP BY OwnerId HAVING COUNT(Id) > 1",
        ),
    ],
)
def test_values_that_the_plan_or_the_error_depends_on(orgs, primer, text) -> None:
    assert check(orgs, primer, text)  # served from the primer's plan, or refused exactly as the full path refuses


@pytest.mark.parametrize("text", [None, "", "   ", "SELECT Id FROM Case WHERE Id = '\x00'", "FIND {x}"])
def test_texts_the_scan_refuses_take_the_full_path(orgs, text) -> None:
    cached, full = orgs
    assert outcome(cached, text) == outcome(full, text)


def test_a_long_in_list_is_not_shared(orgs) -> None:
    """Past 500 values an IN list is one JSON value, not binds: its shape keeps no plan."""
    many = ", ".join(f"'{CASES[i % 8]}'" for i in range(501))
    text = f"SELECT Id FROM Case WHERE Id IN ({many})"
    assert not check(orgs, text, text.replace(CASES[0], CASES[1], 1))


def test_relative_dates_follow_each_sessions_clock(orgs) -> None:
    """TODAY resolves against the clock of the call: a shape's plan never carries another day's dates."""
    cached, full = orgs
    for day in ("2023-05-15", "2023-01-12", "2023-03-06"):
        for zone in ("America/Los_Angeles", "Asia/Tokyo"):
            clock = OrgClock.for_date(day, zone)
            check(
                orgs,
                "SELECT Id FROM Case WHERE CreatedDate = TODAY AND Status != 'x'",
                "SELECT Id FROM Case WHERE CreatedDate = TODAY AND Status != 'New'",
                clock,
            )
            text = "SELECT Id FROM Case WHERE CreatedDate >= THIS_MONTH AND CreatedDate < 2030-01-01T00:00:00Z"
            assert outcome(cached, text, clock) == outcome(full, text, clock)
    assert dt.date(2023, 5, 15) == TODAY.today()


def test_paging_keeps_the_texts_own_literals(tmp_path) -> None:
    """query_more reruns the plan with the literals of the text that opened the cursor."""
    records = tiny_records()
    records["Case"] = [{**records["Case"][0], "Id": rid("500", i), "Subject": f"s{i % 3}"} for i in range(1, 700)]
    org_path = tmp_path / "org.db"
    build_org(org_path, records, read_only=True).close()
    cached = Org(org_path, clock=TODAY, read_only=True)
    full = Org(org_path, clock=TODAY, read_only=True, plan_cache=0)
    try:
        for subject in ("s0", "s1", "s2"):
            text = f"SELECT Id, Subject FROM Case WHERE Subject = '{subject}'"
            assert outcome(cached, text) == outcome(full, text)
            assert outcome(cached, text)[1] > 200
    finally:
        cached.close()
        full.close()


_FRAGMENTS = [
    "SELECT",
    "Id",
    "FROM",
    "Case",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "INCLUDES",
    "LIKE",
    "LIMIT",
    "OFFSET",
    "Amount__c",
    "a.b",
    "Field1",
    "USD",
    "USD-5",
    "count()",
    "all rows",
    ":x",
    "LAST_N_DAYS",
    ":",
    "TODAY",
    "NULL",
    "TRUE",
    "=",
    "!=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "(",
    ")",
    ",",
    "-",
    "+",
    ".",
    "5",
    "0.5",
    ".5",
    "12",
    "2023-01-01",
    "2023-1-1",
    "2023-01-01T00:00:00Z",
    "2023-01-01T00:00:00.5+05:30",
    "10:00:00Z",
    "'a'",
    "''",
    "'it\\'s'",
    "'\\\\'",
    "'x\\%'",
    "'\\u00e9'",
    "'open",
    "{",
    '"',
    "é",
    " ",
    "  ",
    "\n",
    "\t",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=30), st.lists(st.sampled_from(["", " "]), max_size=30))
def test_on_any_text_the_scan_lifts_only_the_lexers_literal_tokens(fragments, gaps) -> None:
    """Fragments glued with or without spaces: wherever the scan lifts a literal, the lexer has that very
    token there (same terminal, same text), so two texts of one shape lex alike outside their literals."""
    text = "".join(fragment + (gaps[index] if index < len(gaps) else "") for index, fragment in enumerate(fragments))
    shape = query_shape(text)
    if shape is None:
        return
    tokens, last = {}, (0, 0)
    try:
        for token in _query_parser().lex(text):
            tokens[(token.line, token.column)] = token
            last = (token.line, token.column)
    except Exception:  # the lexer (or its post-lexer) stops here: so would the parser, on the full path
        pass
    for literal in shape.literals:
        if literal.pos > last:
            break  # beyond where the lexer stopped: no plan is ever kept for such a text
        token = tokens[literal.pos]
        expected = ("SIGN", literal.sign) if literal.sign else (literal.kind, literal.text)
        assert (token.type, str(token)) == expected, text

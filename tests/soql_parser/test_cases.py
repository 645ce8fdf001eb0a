"""The project's own SOQL and SOSL cases: canonical identity, free-form valid, invalid with positions."""

from __future__ import annotations

import pytest

from soql_parser import QuerySyntaxError, parse_soql, parse_sosl, to_text

from .cases import blocks, lines, records

IDENTITY_SOQL = lines("identity_soql.txt")
VALID_SOQL = blocks("valid_soql.txt")
IDENTITY_SOSL = lines("identity_sosl.txt")
INVALID_SOQL = records("invalid_soql.jsonl")
INVALID_SOSL = records("invalid_sosl.jsonl")


def test_the_case_files_are_large_and_distinct() -> None:
    soql = IDENTITY_SOQL + VALID_SOQL
    invalid = [case["query"] for case in INVALID_SOQL + INVALID_SOSL]
    assert len(set(soql)) == len(soql) >= 400
    assert len(set(IDENTITY_SOSL)) == len(IDENTITY_SOSL) >= 100
    assert len(set(invalid)) == len(invalid) >= 100


@pytest.mark.parametrize("query", IDENTITY_SOQL)
def test_canonical_soql_renders_to_itself(query: str) -> None:
    assert to_text(parse_soql(query)) == query


@pytest.mark.parametrize("query", VALID_SOQL)
def test_free_form_soql_parses_and_round_trips(query: str) -> None:
    tree = parse_soql(query)
    assert parse_soql(to_text(tree)) == tree


@pytest.mark.parametrize("query", IDENTITY_SOSL)
def test_canonical_sosl_renders_to_itself(query: str) -> None:
    assert to_text(parse_sosl(query)) == query


@pytest.mark.parametrize(
    ("parse", "case"),
    [(parse_soql, case) for case in INVALID_SOQL] + [(parse_sosl, case) for case in INVALID_SOSL],
    ids=lambda value: value["query"][:50] if isinstance(value, dict) else value.__name__,
)
def test_invalid_query_is_refused_at_the_right_place(parse, case: dict) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse(case["query"])
    error = caught.value
    assert (error.line, error.column) == (case["line"], case["column"])
    assert case["message"] in error.message

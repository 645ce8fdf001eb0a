"""Property tests: rendering round-trips, and no input makes the parser raise anything else."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from soql_parser import QuerySyntaxError, parse, parse_soql, parse_sosl, to_text

from .cases import blocks, lines
from .strategies import soql_queries, sosl_queries

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(soql_queries())
def test_generated_soql_trees_round_trip(tree) -> None:
    assert parse_soql(to_text(tree)) == tree


@FUZZ
@given(sosl_queries)
def test_generated_sosl_trees_round_trip(tree) -> None:
    assert parse_sosl(to_text(tree)) == tree


def _parse_or_refuse(text: str) -> None:
    try:
        tree = parse(text)
    except QuerySyntaxError as error:
        assert error.line >= 1 and error.column >= 1
        assert isinstance(error.message, str) and error.message
    else:
        assert parse(to_text(tree)) == tree


@FUZZ
@given(st.text())
@example("SELECT")
@example("FIND {")
@example("SELECT Id FROM X WHERE A = '\\u12")
@example("(" * 5000)
def test_random_text_raises_only_query_syntax_errors(text: str) -> None:
    _parse_or_refuse(text)


_TOKENS = [
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "LIKE",
    "GROUP",
    "BY",
    "ORDER",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "WITH",
    "FOR",
    "UPDATE",
    "USING",
    "SCOPE",
    "TYPEOF",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "FIND",
    "RETURNING",
    "FIELDS",
    "COUNT()",
    "COUNT",
    "NULL",
    "TRUE",
    "Id",
    "Name",
    "Account.Name",
    "(",
    ")",
    ",",
    "=",
    "!=",
    "<",
    ">=",
    "'x'",
    "'a\\'b'",
    "42",
    "-",
    "4.5",
    "2020-01-01",
    "2020-01-01T00:00:00Z",
    "TODAY",
    "LAST_N_DAYS",
    ":",
    "30",
    "USD10",
    "{abc}",
    "{a OR b}",
    "ALL",
    "ROWS",
    ":x",
    "DATA",
    "CATEGORY",
    "AT",
]


@FUZZ
@given(st.lists(st.sampled_from(_TOKENS), max_size=30))
def test_token_soup_raises_only_query_syntax_errors(tokens: list[str]) -> None:
    _parse_or_refuse(" ".join(tokens))


_SEEDS = lines("identity_soql.txt") + lines("identity_sosl.txt") + blocks("valid_soql.txt")


@FUZZ
@given(
    st.sampled_from(_SEEDS),
    st.lists(st.tuples(st.floats(0, 1), st.sampled_from(["delete", "insert", "replace"]), st.characters()), max_size=4),
)
def test_mutated_queries_raise_only_query_syntax_errors(seed: str, edits: list) -> None:
    text = seed
    for where, action, char in edits:
        index = int(where * len(text))
        if action == "delete":
            text = text[:index] + text[index + 1 :]
        elif action == "insert":
            text = text[:index] + char + text[index:]
        else:
            text = text[:index] + char + text[index + 1 :]
    _parse_or_refuse(text)


@given(st.one_of(st.none(), st.integers(), st.binary()))
def test_non_text_input_is_refused(value) -> None:
    with pytest.raises(QuerySyntaxError):
        parse_soql(value)  # type: ignore[arg-type]

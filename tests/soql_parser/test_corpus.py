"""The public SOQL/SOSL conformance corpus (../shared/corpus), read at test time.

Its README: every valid entry whose `oracles.sf_tooling_parser` is not false must parse;
`kind: syntax` invalid entries must be refused by the parser, `kind: semantic` ones parse
(the engine refuses them); parser extensions (Apex binds, comments, ALL ROWS) are refused.
"""

from __future__ import annotations

import json

import pytest

from soql_parser import QuerySyntaxError, parse, parse_soql, parse_sosl, to_text
from tests.shared import shared_dir

SHARED = shared_dir()
pytestmark = pytest.mark.skipif(SHARED is None, reason="the shared conformance corpus is not on this machine")


def _rows(name: str) -> list[dict]:
    if SHARED is None:
        return []
    with open(SHARED / "corpus" / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


VALID_SOQL = [r for r in _rows("soql_valid.jsonl") if r["oracles"].get("sf_tooling_parser") is not False]
VALID_SOSL = _rows("sosl_valid.jsonl")
INVALID = _rows("soql_invalid.jsonl")
EXTENSIONS = _rows("soql_parser_extensions.jsonl")


def test_corpus_is_complete() -> None:
    # Guards against a silently truncated corpus turning the tests below into no-ops.
    assert len(VALID_SOQL) >= 400 and len(VALID_SOSL) >= 40 and len(INVALID) >= 70 and len(EXTENSIONS) >= 15


@pytest.mark.parametrize("row", VALID_SOQL, ids=lambda r: r["soql"][:60])
def test_valid_soql_parses_and_round_trips(row: dict) -> None:
    tree = parse_soql(row["soql"])
    assert parse_soql(to_text(tree)) == tree


@pytest.mark.parametrize("row", VALID_SOSL, ids=lambda r: r["sosl"][:60])
def test_valid_sosl_parses_and_round_trips(row: dict) -> None:
    tree = parse_sosl(row["sosl"])
    assert parse_sosl(to_text(tree)) == tree


@pytest.mark.parametrize("row", [r for r in INVALID if r["kind"] == "syntax"], ids=lambda r: r["soql"][:60])
def test_syntax_errors_are_refused(row: dict) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql(row["soql"])
    error = caught.value
    lines = row["soql"].split("\n")
    assert 1 <= error.line <= len(lines)
    assert 1 <= error.column <= len(lines[error.line - 1]) + 1


@pytest.mark.parametrize("row", [r for r in INVALID if r["kind"] == "semantic"], ids=lambda r: r["soql"][:60])
def test_semantic_errors_parse(row: dict) -> None:
    tree = parse_soql(row["soql"])
    assert parse_soql(to_text(tree)) == tree


@pytest.mark.parametrize("row", EXTENSIONS, ids=lambda r: r["query"][:60])
def test_parser_extensions_are_refused(row: dict) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse(row["query"])
    if "bind variable" in row["reason"].lower():
        assert caught.value.message == "Bind variables only allowed in Apex code"
    elif "ALL ROWS" in row["reason"]:
        assert "Apex" in caught.value.message
    else:  # comments: SOQL has none, the first slash is the unexpected character
        assert "unexpected token: '/'" in caught.value.message

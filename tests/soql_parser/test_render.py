"""The renderer: complete dispatch, canonical spelling, and the parentheses a tree needs."""

from __future__ import annotations

import pytest

from soql_parser import nodes as n
from soql_parser import parse_soql, parse_sosl, to_text
from soql_parser.render import TextRenderer, node_classes


def test_every_node_class_has_a_renderer() -> None:
    missing = [cls.__name__ for cls in node_classes() if cls not in TextRenderer.dispatch]
    assert missing == []


@pytest.mark.parametrize(
    ("query", "canonical"),
    [
        ("select id,name from account where name<>'x'", "SELECT id, name FROM account WHERE name != 'x'"),
        ("SELECT Id FROM Contact AS c", "SELECT Id FROM Contact c"),
        ("SELECT Id FROM X WHERE ((A = 1 AND B = 2))", "SELECT Id FROM X WHERE A = 1 AND B = 2"),
        ("SELECT Id FROM X WHERE NOT (A = 1)", "SELECT Id FROM X WHERE NOT A = 1"),
        ("SELECT Id FROM X WHERE A = 1 AND (NOT B = 2)", "SELECT Id FROM X WHERE A = 1 AND (NOT B = 2)"),
        ("SELECT Id FROM X WHERE (A = 1 OR B = 2) AND C = 3", "SELECT Id FROM X WHERE (A = 1 OR B = 2) AND C = 3"),
        (
            "SELECT Id FROM X WHERE D = 2020-01-01t10:00:00.5+0530",
            "SELECT Id FROM X WHERE D = 2020-01-01T10:00:00.500+05:30",
        ),
        ("SELECT Id FROM X WHERE D = last_n_days : 7", "SELECT Id FROM X WHERE D = LAST_N_DAYS:7"),
        ("SELECT Id FROM X WHERE A = usd1.50", "SELECT Id FROM X WHERE A = USD1.50"),
        ("SELECT Id FROM X WHERE A = +.5", "SELECT Id FROM X WHERE A = 0.5"),
        ("SELECT Id FROM X WHERE A = '\\u00e9\\\"'", "SELECT Id FROM X WHERE A = 'é\"'"),
        ("SELECT Id FROM X WHERE A LIKE '10\\%%'", "SELECT Id FROM X WHERE A LIKE '10\\%%'"),
        ("SELECT count() FROM X", "SELECT COUNT() FROM X"),
        ("SELECT Id FROM X GROUP BY rollup(A, B)", "SELECT Id FROM X GROUP BY ROLLUP(A, B)"),
        (
            "SELECT Id FROM X WITH DATA CATEGORY G__c at (a__c,b__c)",
            "SELECT Id FROM X WITH DATA CATEGORY G__c AT (a__c, b__c)",
        ),
    ],
)
def test_canonical_text(query: str, canonical: str) -> None:
    assert to_text(parse_soql(query)) == canonical


@pytest.mark.parametrize(
    ("query", "canonical"),
    [
        ("find {a b AND c}", "FIND {a b AND c}"),
        ("FIND {a OR (b AND c)}", "FIND {a OR b AND c}"),
        ("FIND {(a OR b) AND c}", "FIND {(a OR b) AND c}"),
        ("FIND {a AND (b AND c)}", "FIND {a AND (b AND c)}"),
        ("FIND {not found}", "FIND {not found}"),
        (
            "FIND {x} in name fields returning Account(Name limit 5)",
            "FIND {x} IN NAME FIELDS RETURNING Account(Name LIMIT 5)",
        ),
        ("FIND 'acme*  inc'", "FIND 'acme* inc'"),
    ],
)
def test_canonical_search_text(query: str, canonical: str) -> None:
    assert to_text(parse_sosl(query)) == canonical


def test_not_after_an_explicit_and_stays_a_word() -> None:
    tree = n.SoslQuery(n.SearchAnd(n.SearchTerm("x"), n.SearchTerm("not")))
    assert parse_sosl(to_text(tree)) == tree


def test_rendering_an_unknown_object_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        to_text(object())  # type: ignore[arg-type]


def test_years_below_1000_keep_four_digits() -> None:
    query = "SELECT Id FROM X WHERE A = 0999-01-02T03:04:05Z AND B = 0050-01-01"
    assert to_text(parse_soql(query)) == query

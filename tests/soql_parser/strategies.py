"""Hypothesis strategies for syntax trees the parser can produce.

Every tree drawn here stands for a query a real org's grammar accepts, so rendering it and
parsing the text must give the same tree back.
"""

from __future__ import annotations

import datetime as dt

from hypothesis import strategies as st

from soql_parser import keywords, literals
from soql_parser import nodes as n

# ALL and ROWS are left out as well: `All Rows` side by side reads as Apex's ALL ROWS.
_RESERVED = (
    {word.upper() for word in keywords.HARD_KEYWORDS | keywords.SOFT_KEYWORDS}
    | set(literals.RELATIVE_DATE_LITERALS)
    | {"ALL", "ROWS"}
)

# Plain names: letters, digits and underscores, never a keyword, never shaped like a currency
# literal (which Salesforce's grammar reads as a value, not a name).
plain_names = (
    st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}(__c)?", fullmatch=True)
    .filter(lambda name: name.upper() not in _RESERVED)
    .filter(lambda name: literals.read_currency(name) is None)
)
# Soft keywords that Salesforce accepts as names (TYPEOF excluded: `TypeOf x WHEN` is ambiguous).
soft_names = st.sampled_from(["Order", "Group", "Count", "Data", "Scope", "View", "Fields", "Offset", "Category", "At"])
names = st.one_of(plain_names, plain_names, plain_names, soft_names)

field_paths = st.lists(names, min_size=1, max_size=5).map(lambda parts: n.FieldPath(tuple(parts)))
function_names = st.one_of(st.sampled_from(sorted(keywords.FUNCTION_SPELLINGS.values())), plain_names)
inner_calls = st.builds(n.FunctionCall, function_names, field_paths)
function_calls = st.builds(n.FunctionCall, function_names, st.one_of(field_paths, inner_calls))
filterable = st.one_of(field_paths, function_calls)

# ----------------------------------------------------------------------------- literals

_numbers = st.one_of(
    st.integers(-(10**12), 10**12),
    st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-(10**9), max_value=10**9),
)
_offsets = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(lambda minutes: dt.timezone(dt.timedelta(minutes=minutes)))
_datetimes = st.builds(
    lambda moment, zone: moment.replace(tzinfo=zone),
    st.datetimes(min_value=dt.datetime(1000, 1, 1), max_value=dt.datetime(9999, 12, 30)),
    st.one_of(st.just(dt.UTC), _offsets),
)


@st.composite
def string_literals(draw: st.DrawFn) -> n.StringLiteral:
    value = draw(st.text(st.characters(exclude_categories=("Cs",)), max_size=20))
    wildcards = [index for index, char in enumerate(value) if char in "%_"]
    escaped = draw(st.lists(st.sampled_from(wildcards), unique=True)) if wildcards else []
    return n.StringLiteral(value, tuple(sorted(escaped)))


relative_dates = st.sampled_from(sorted(literals.RELATIVE_DATE_LITERALS)).flatmap(
    lambda name: st.builds(
        n.RelativeDateLiteral,
        st.just(name),
        st.integers(0, 1000) if literals.RELATIVE_DATE_LITERALS[name] else st.none(),
    )
)
values = st.one_of(
    string_literals(),
    st.builds(n.NumberLiteral, _numbers),
    st.builds(n.BooleanLiteral, st.booleans()),
    st.just(n.NullLiteral()),
    st.builds(n.DateLiteral, st.dates(min_value=dt.date(1000, 1, 1))),
    st.builds(n.DateTimeLiteral, _datetimes),
    st.builds(n.TimeLiteral, st.times().map(lambda t: t.replace(tzinfo=dt.UTC))),
    relative_dates,
    st.builds(n.CurrencyLiteral, st.from_regex(r"[A-Z]{3}", fullmatch=True), _numbers),
)
value_lists = st.lists(values, min_size=1, max_size=4).map(tuple)

# ----------------------------------------------------------------------------- expressions

distances = st.builds(
    n.Distance,
    field_paths,
    st.builds(n.Geolocation, _numbers, _numbers),
    st.sampled_from(["mi", "km"]),
)
typeofs = st.builds(
    n.TypeOf,
    field_paths,
    st.lists(
        st.builds(n.TypeOfWhen, plain_names, st.lists(field_paths, min_size=1, max_size=3).map(tuple)),
        min_size=1,
        max_size=3,
    ).map(tuple),
    st.lists(field_paths, max_size=2).map(tuple),
)


def from_items(subquery: bool = False) -> st.SearchStrategy[n.FromItem]:
    sobjects = st.lists(names, min_size=1, max_size=3).map(".".join) if subquery else names
    # One USING clause at most: a filter scope or a lookup.
    usings = st.one_of(
        st.just({}),
        plain_names.map(lambda scope: {"scope": scope}),
        field_paths.map(lambda path: {"lookup": path.text}),
    )
    return st.builds(
        lambda sobject, alias, using: n.FromItem(sobject, alias, **using), sobjects, st.none() | names, usings
    )


with_clauses = st.one_of(
    st.builds(
        n.WithDataCategory,
        st.lists(
            st.builds(
                n.DataCategoryFilter,
                plain_names,
                st.sampled_from(["AT", "ABOVE", "BELOW", "ABOVE_OR_BELOW"]),
                st.lists(plain_names, min_size=1, max_size=3).map(tuple),
            ),
            min_size=1,
            max_size=3,
        ).map(tuple),
    ),
    st.builds(n.WithIdentifier, st.sampled_from(["SECURITY_ENFORCED", "USER_MODE", "SYSTEM_MODE"])),
    st.builds(
        n.WithIdentifier,
        st.just("RecordVisibilityContext"),
        st.lists(st.builds(n.WithOption, plain_names, values), min_size=1, max_size=3).map(tuple),
    ),
    st.builds(n.WithFilter, plain_names, st.just("="), st.tuples(string_literals())),
)
order_items = st.builds(
    n.OrderItem,
    st.one_of(filterable, distances),
    st.sampled_from([None, "ASC", "DESC"]),
    st.sampled_from([None, "FIRST", "LAST"]),
)
group_bys = st.builds(
    n.GroupBy,
    st.lists(filterable, min_size=1, max_size=3).map(tuple),
    st.sampled_from(["", "ROLLUP", "CUBE"]),
)
limits = st.none() | st.integers(-5, 50_000)


def semijoin_queries(conditions: st.SearchStrategy[n.Condition]) -> st.SearchStrategy[n.SoqlQuery]:
    return st.builds(
        n.SoqlQuery,
        st.tuples(st.builds(n.SelectItem, filterable)),
        st.lists(from_items(), min_size=1, max_size=1).map(tuple),
        st.none() | conditions,
        st.lists(with_clauses, max_size=1).map(tuple),
    )


def conditions(depth: int = 2) -> st.SearchStrategy[n.Condition]:
    leaves = st.one_of(
        st.builds(
            n.Comparison, st.one_of(filterable, distances), st.sampled_from(["=", "!=", "<", "<=", ">", ">="]), values
        ),
        st.builds(n.Comparison, filterable, st.just("LIKE"), values),
        st.builds(n.SetCondition, filterable, st.sampled_from(["IN", "NOT IN", "INCLUDES", "EXCLUDES"]), value_lists),
    )
    if depth == 0:
        return leaves
    inner = conditions(depth - 1)
    return st.one_of(
        leaves,
        leaves,
        st.builds(n.SemiJoin, filterable, st.booleans(), semijoin_queries(inner)),
        st.lists(inner, min_size=2, max_size=3).map(lambda items: n.And(tuple(items))),
        st.lists(inner, min_size=2, max_size=3).map(lambda items: n.Or(tuple(items))),
        st.builds(n.Not, inner),
    )


def select_items(depth: int) -> st.SearchStrategy[tuple[n.SelectItem, ...]]:
    expressions = st.one_of(
        field_paths,
        function_calls,
        st.builds(n.Fields, st.sampled_from(["ALL", "STANDARD", "CUSTOM"])),
        typeofs,
        distances,
    )
    if depth > 0:
        expressions = st.one_of(expressions, soql_queries(depth - 1, subquery=True))
    items = st.lists(st.builds(n.SelectItem, expressions, st.none() | names), min_size=1, max_size=4).map(tuple)
    return st.one_of(items, items, items, st.just((n.SelectItem(n.CountAll()),)))


@st.composite
def _queries(draw: st.DrawFn, depth: int, subquery: bool) -> n.SoqlQuery:
    group_by = draw(st.none() | group_bys)
    return n.SoqlQuery(
        select_items=draw(select_items(depth)),
        from_items=draw(st.lists(from_items(subquery), min_size=1, max_size=2).map(tuple)),
        where=draw(st.none() | conditions(2)),
        with_clauses=draw(st.lists(with_clauses, max_size=2).map(tuple)),
        group_by=group_by,
        having=draw(st.none() | conditions(1)) if group_by else None,
        order_by=draw(st.lists(order_items, max_size=3).map(tuple)),
        limit=draw(limits),
        offset=draw(limits),
        bind=() if subquery else draw(st.lists(st.builds(n.BindItem, names, values), max_size=2).map(tuple)),
        for_options=draw(st.lists(st.sampled_from(["VIEW", "REFERENCE"]), max_size=2).map(tuple)),
        update_options=draw(st.lists(st.sampled_from(["TRACKING", "VIEWSTAT"]), max_size=2).map(tuple)),
    )


def soql_queries(depth: int = 1, subquery: bool = False) -> st.SearchStrategy[n.SoqlQuery]:
    return _queries(depth, subquery)


# ----------------------------------------------------------------------------- SOSL

_ESCAPED_RESERVED = ["\\-", "\\:", "\\'", "\\}", "\\&", "\\+", "\\!", "\\(", "\\)"]
_PLAIN_WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@._éß"
_word_chars = st.sampled_from([*_PLAIN_WORD_CHARS, *_ESCAPED_RESERVED])
_words = st.builds(
    lambda first, rest, wildcard: first + "".join(rest) + wildcard,
    _word_chars,
    st.lists(st.one_of(_word_chars, st.sampled_from(["*", "?"])), max_size=8),
    st.sampled_from(["", "", "*", "?"]),
).filter(lambda word: word.lower() not in ("and", "or", "not"))
_phrases = st.lists(st.one_of(_word_chars, st.sampled_from([" ", "*", '\\"'])), min_size=1, max_size=12).map("".join)
search_terms = st.one_of(st.builds(n.SearchTerm, _words), st.builds(n.SearchTerm, _phrases, st.just(True)))
search_expressions = st.recursive(
    search_terms,
    lambda inner: st.one_of(
        st.builds(n.SearchAnd, inner, inner, st.booleans()),
        st.builds(n.SearchAndNot, inner, inner),
        st.builds(n.SearchOr, inner, inner),
    ),
    max_leaves=6,
)
returning_objects = st.builds(
    n.ReturningObject,
    names,
    st.lists(st.builds(n.SelectItem, st.one_of(field_paths, function_calls), st.none() | names), max_size=3).map(tuple),
).flatmap(
    lambda item: (
        st.just(item)
        if not item.select_items
        else st.builds(
            n.ReturningObject,
            st.just(item.sobject),
            st.just(item.select_items),
            st.none() | plain_names,
            st.none() | field_paths.map(lambda path: path.text),
            st.lists(st.builds(n.BindItem, names, values), max_size=1).map(tuple),
            st.none() | conditions(1),
            st.lists(order_items, max_size=2).map(tuple),
            limits,
            limits,
        )
    )
)
sosl_with_clauses = st.one_of(
    st.builds(n.WithIdentifier, st.sampled_from(["HIGHLIGHT", "SNIPPET", "SECURITY_ENFORCED"])),
    st.builds(
        n.WithIdentifier,
        st.just("SNIPPET"),
        st.tuples(st.builds(n.WithOption, st.just("target_length"), st.builds(n.NumberLiteral, st.integers(1, 999)))),
    ),
    st.builds(
        n.WithFilter,
        st.sampled_from(["DIVISION", "METADATA", "PricebookId", "NETWORK"]),
        st.just("="),
        st.tuples(string_literals()),
    ),
    st.builds(
        n.WithFilter, st.just("SPELL_CORRECTION"), st.just("="), st.tuples(st.builds(n.BooleanLiteral, st.booleans()))
    ),
    st.builds(
        n.WithFilter, st.just("NETWORK"), st.just("IN"), st.lists(string_literals(), min_size=1, max_size=3).map(tuple)
    ),
)
sosl_queries = st.builds(
    n.SoslQuery,
    search_expressions,
    st.booleans(),
    st.sampled_from([None, "ALL", "NAME", "EMAIL", "PHONE", "SIDEBAR"]),
    st.lists(returning_objects, max_size=3).map(tuple),
    st.lists(sosl_with_clauses, max_size=2).map(tuple),
    st.sampled_from([None, "PHRASE", "ADVANCED"]),
    st.none() | st.integers(0, 2000),
    st.lists(st.sampled_from(["TRACKING", "VIEWSTAT"]), max_size=2).map(tuple),
)

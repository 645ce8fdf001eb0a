"""Property tests: any query over the schema returns records or a Salesforce error, never anything else."""

from __future__ import annotations

import contextlib
import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mock_org.errors import SalesforceError
from mock_org.schema import default_schema
from soql_parser import nodes as n
from soql_parser import to_text

from ...soql_parser.strategies import soql_queries, values
from ..conftest import ACCOUNTS, AGENT_A, CASES

SCHEMA = default_schema()
RECORD_IDS = [*CASES, *ACCOUNTS, AGENT_A]
OBJECTS = [sobject for sobject in SCHEMA]
SETTINGS = settings(
    max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@st.composite
def field_paths(draw: st.DrawFn, sobject, types: frozenset[str] | None = None):  # type: ignore[no-untyped-def]
    """A path that usually exists (a field of the object, or one or two parent hops away), with its field."""
    parts: list[str] = []
    current = sobject
    for _ in range(draw(st.integers(0, 2))):
        relationships = [f for f in current.relationships.values() if not f.polymorphic]
        if not relationships or draw(st.booleans()):
            break
        field = draw(st.sampled_from(relationships))
        parts.append(field.relationship_name)
        current = SCHEMA[field.reference_to[0]]
    fields = [field for field in current.field_list() if types is None or field.type in types] or current.field_list()
    if draw(st.integers(0, 19)) == 0:
        return n.FieldPath((*parts, "Nope")), None
    field = draw(st.sampled_from(fields))
    return n.FieldPath((*parts, field.name)), field


_DATES = frozenset({"date", "datetime"})
_NUMBERS = frozenset({"int", "double", "currency", "percent"})


@st.composite
def typed_value(draw: st.DrawFn, field):  # type: ignore[no-untyped-def]
    """Mostly a literal of the field's type, sometimes any literal at all."""
    kind = field.type if field is not None else "string"
    if draw(st.integers(0, 9)) == 0:
        return draw(values)
    if kind in ("id", "reference"):
        record = draw(st.sampled_from(RECORD_IDS))
        return n.StringLiteral(draw(st.sampled_from([record, record[:15], "001xx"])))
    if kind == "boolean":
        return n.BooleanLiteral(draw(st.booleans()))
    if kind in _NUMBERS:
        return n.NumberLiteral(draw(st.integers(-5, 300)))
    if kind == "date":
        return draw(st.one_of(st.dates().map(n.DateLiteral), relative))
    if kind == "datetime":
        return draw(st.one_of(st.datetimes(timezones=st.just(dt.UTC)).map(n.DateTimeLiteral), relative))
    if field is not None and field.picklist_values and draw(st.booleans()):
        return n.StringLiteral(draw(st.sampled_from([entry.value for entry in field.picklist_values])))
    return n.StringLiteral(draw(st.sampled_from(["", "a%", "%size%", "Closed", "High", "Wrong size", "CA", "x_y"])))


relative = st.sampled_from(
    ["TODAY", "YESTERDAY", "THIS_YEAR", "LAST_N_DAYS:30", "LAST_N_MONTHS:6", "NEXT_QUARTER"]
).map(
    lambda text: (
        n.RelativeDateLiteral(*text.split(":"))
        if ":" not in text
        else n.RelativeDateLiteral(text.split(":")[0], int(text.split(":")[1]))
    )
)


@st.composite
def conditions(draw: st.DrawFn, sobject, depth: int = 2):  # type: ignore[no-untyped-def]
    kind = draw(st.integers(0, 9 if depth else 4))
    path, field = draw(field_paths(sobject))
    left = path
    if field is not None and field.type in _DATES and draw(st.integers(0, 5)) == 0:
        left = n.FunctionCall(draw(st.sampled_from(["CALENDAR_YEAR", "CALENDAR_MONTH", "DAY_IN_WEEK"])), path)
        field = None
        value = n.NumberLiteral(draw(st.integers(1, 2024)))
        return n.Comparison(left, draw(st.sampled_from(["=", "!=", "<", ">="])), value)
    if kind <= 2:
        operator = draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">=", "LIKE"]))
        return n.Comparison(left, operator, draw(typed_value(field)))
    if kind <= 4:
        operator = draw(st.sampled_from(["IN", "NOT IN", "IN", "NOT IN", "INCLUDES"]))
        return n.SetCondition(left, operator, tuple(draw(st.lists(typed_value(field), min_size=1, max_size=3))))
    if kind == 5 and depth == 2:
        other = draw(st.sampled_from(OBJECTS))
        inner_path, _ = draw(field_paths(other, frozenset({"id", "reference"})))
        inner = n.SoqlQuery((n.SelectItem(inner_path),), (n.FromItem(other.name),))
        id_path, _ = draw(field_paths(sobject, frozenset({"id", "reference"})))
        return n.SemiJoin(id_path, draw(st.booleans()), inner)
    if kind == 6:
        return n.Not(draw(conditions(sobject, depth - 1)))
    operands = tuple(draw(st.lists(conditions(sobject, depth - 1), min_size=2, max_size=3)))
    return n.And(operands) if kind <= 8 else n.Or(operands)


@st.composite
def queries(draw: st.DrawFn) -> n.SoqlQuery:
    sobject = draw(st.sampled_from(OBJECTS))
    aggregate = draw(st.integers(0, 3)) == 0
    group = None
    items: list[n.SelectItem] = []
    if aggregate:
        groupable = frozenset({"id", "reference", "string", "picklist", "boolean", "date", "email", "phone"})
        keys = [draw(field_paths(sobject, groupable))[0] for _ in range(draw(st.integers(0, 2)))]
        if keys:
            group = n.GroupBy(tuple(keys), draw(st.sampled_from(["", "", "ROLLUP", "CUBE"])))
        items = [n.SelectItem(key, draw(st.none() | st.just(f"k{i}"))) for i, key in enumerate(keys)]
        for i in range(draw(st.integers(1, 2))):
            target, _ = draw(field_paths(sobject))
            function = draw(st.sampled_from(["COUNT", "COUNT_DISTINCT", "MIN", "MAX", "SUM", "AVG"]))
            items.append(n.SelectItem(n.FunctionCall(function, target), draw(st.none() | st.just(f"a{i}"))))
    else:
        items = [n.SelectItem(draw(field_paths(sobject))[0]) for _ in range(draw(st.integers(1, 4)))]
        if sobject.child_relationships and draw(st.integers(0, 3)) == 0:
            relationship = draw(st.sampled_from(list(sobject.child_relationships.values())))
            child = SCHEMA[relationship.child_sobject]
            subquery = n.SoqlQuery(
                (n.SelectItem(draw(field_paths(child))[0]),),
                (n.FromItem(relationship.name),),
                where=draw(st.none() | conditions(child, 1)),
                limit=draw(st.none() | st.integers(0, 3)),
            )
            items.append(n.SelectItem(subquery))
        if draw(st.integers(0, 9)) == 0:
            items = [n.SelectItem(n.CountAll())]
    order = ()
    if draw(st.booleans()):
        order = tuple(
            n.OrderItem(
                item.expression,
                draw(st.sampled_from([None, "ASC", "DESC"])),
                draw(st.sampled_from([None, "FIRST", "LAST"])),
            )
            for item in items[: draw(st.integers(1, 2))]
            if not isinstance(item.expression, (n.SoqlQuery, n.CountAll))
        )
    return n.SoqlQuery(
        select_items=tuple(items),
        from_items=(n.FromItem(sobject.name),),
        where=draw(st.none() | conditions(sobject)),
        group_by=group,
        having=n.Comparison(
            n.FunctionCall("COUNT", n.FieldPath(("Id",))), ">", n.NumberLiteral(draw(st.integers(0, 2)))
        )
        if group and draw(st.booleans())
        else None,
        order_by=order,
        limit=draw(st.none() | st.integers(0, 50)) if not aggregate or group else None,
        offset=draw(st.none() | st.integers(0, 5)),
    )


def _run(org, text: str) -> None:  # type: ignore[no-untyped-def]
    try:
        result = org.query(text)
    except SalesforceError as error:
        assert error.error_code and isinstance(error.message, str) and error.message
    else:
        assert set(result) >= {"totalSize", "done", "records"}


@SETTINGS
@given(queries())
def test_schema_shaped_queries_give_records_or_a_salesforce_error(org, query) -> None:  # type: ignore[no-untyped-def]
    _run(org, to_text(query))


@settings(SETTINGS, max_examples=120)
@given(soql_queries())
def test_arbitrary_queries_give_records_or_a_salesforce_error(org, query) -> None:  # type: ignore[no-untyped-def]
    _run(org, to_text(query))


@SETTINGS
@given(st.text(max_size=200))
def test_arbitrary_text_gives_a_salesforce_error(org, text: str) -> None:  # type: ignore[no-untyped-def]
    _run(org, text)
    with contextlib.suppress(SalesforceError):
        org.search(text)

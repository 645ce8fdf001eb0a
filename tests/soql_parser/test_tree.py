"""What the parser builds: the syntax tree of each construct, checked node by node."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from soql_parser import QuerySyntaxError, SoqlQuery, SoslQuery, parse, parse_soql, parse_sosl
from soql_parser import nodes as n


def where(query: str) -> n.Condition:
    tree = parse_soql(query)
    assert tree.where is not None
    return tree.where


def value_of(literal: str) -> n.Literal:
    condition = where(f"SELECT Id FROM Case WHERE Field__c = {literal}")
    assert isinstance(condition, n.Comparison)
    return condition.value


def path(text: str) -> n.FieldPath:
    return n.FieldPath(tuple(text.split(".")))


# ----------------------------------------------------------------------------- SELECT and FROM


def test_simple_query_tree() -> None:
    assert parse_soql("SELECT Id, Subject FROM Case") == SoqlQuery(
        select_items=(n.SelectItem(path("Id")), n.SelectItem(path("Subject"))),
        from_items=(n.FromItem("Case"),),
    )


def test_keywords_are_case_insensitive_and_names_keep_their_spelling() -> None:
    tree = parse_soql("sElEcT id, NAME fRoM account WhErE name = 'x' oRdEr By name DeSc NuLlS lAsT lImIt 5")
    assert tree.select_items == (n.SelectItem(path("id")), n.SelectItem(path("NAME")))
    assert tree.from_items == (n.FromItem("account"),)
    assert tree.order_by == (n.OrderItem(path("name"), "DESC", "LAST"),)
    assert tree.limit == 5


def test_relationship_paths_are_split_into_parts() -> None:
    tree = parse_soql("SELECT OrderItem.Order.Account.Owner.Name FROM Case")
    assert tree.select_items[0].expression == n.FieldPath(("OrderItem", "Order", "Account", "Owner", "Name"))


def test_keywords_inside_a_path_are_names() -> None:
    tree = parse_soql("SELECT Owner.Limit, Account.Group, Order.Status FROM Case")
    assert [item.expression for item in tree.select_items] == [
        path("Owner.Limit"),
        path("Account.Group"),
        path("Order.Status"),
    ]


@pytest.mark.parametrize("name", ["Order", "Group", "Case", "Count", "Fields", "Data", "Offset", "Scope", "View"])
def test_soft_keywords_are_accepted_as_bare_names(name: str) -> None:
    tree = parse_soql(f"SELECT {name} FROM {name} WHERE {name} = 'x'")
    assert tree.select_items == (n.SelectItem(path(name)),)
    assert tree.from_items == (n.FromItem(name),)


@pytest.mark.parametrize(
    "name", ["Limit", "Select", "Like", "Having", "First", "Last", "Using", "Update", "Null", "With"]
)
def test_hard_keywords_are_refused_as_bare_names(name: str) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql(f"SELECT {name} FROM Account")
    assert caught.value.message == f"unexpected token: '{name}'"
    assert caught.value.column == 8


def test_order_group_and_offset_are_aliases_unless_they_start_their_clause() -> None:
    assert parse_soql("SELECT Name FROM Account OFFSET").from_items == (n.FromItem("Account", "OFFSET"),)
    assert parse_soql("SELECT Name FROM Account Order").from_items == (n.FromItem("Account", "Order"),)
    tree = parse_soql("SELECT Name FROM Account Group GROUP BY Name ORDER BY Name OFFSET 5")
    assert tree.from_items == (n.FromItem("Account", "Group"),)
    assert tree.group_by == n.GroupBy((path("Name"),))
    assert tree.order_by == (n.OrderItem(path("Name")),)
    assert tree.offset == 5


def test_from_alias_scope_and_lookup() -> None:
    tree = parse_soql("SELECT c.Name FROM Contact AS c USING SCOPE mine")
    assert tree.from_items == (n.FromItem("Contact", "c", scope="mine"),)
    tree = parse_soql("SELECT Id FROM Contact USING LOOKUP Obj__c.Lookup__c BIND Account__c = '001'")
    assert tree.from_items == (n.FromItem("Contact", lookup="Obj__c.Lookup__c"),)
    assert tree.bind == (n.BindItem("Account__c", n.StringLiteral("001")),)


def test_count_all_is_the_whole_select_list() -> None:
    assert parse_soql("SELECT count( ) FROM Case").select_items == (n.SelectItem(n.CountAll()),)
    for query, column in [("SELECT COUNT(), Id FROM Case", 15), ("SELECT COUNT() cnt FROM Case", 16)]:
        with pytest.raises(QuerySyntaxError) as caught:
            parse_soql(query)
        assert caught.value.column == column


def test_function_names_get_the_reference_spelling() -> None:
    tree = parse_soql(
        "SELECT tolabel(Status), CONVERTCURRENCY(Amount) a, format(min(CreatedDate)) f, "
        "calendar_year(convertTIMEZONE(CreatedDate)) y, count_distinct(OwnerId) FROM Case GROUP BY Status"
    )
    names = [item.expression for item in tree.select_items]
    assert names == [
        n.FunctionCall("toLabel", path("Status")),
        n.FunctionCall("convertCurrency", path("Amount")),
        n.FunctionCall("FORMAT", n.FunctionCall("MIN", path("CreatedDate"))),
        n.FunctionCall("CALENDAR_YEAR", n.FunctionCall("convertTimezone", path("CreatedDate"))),
        n.FunctionCall("COUNT_DISTINCT", path("OwnerId")),
    ]
    assert [item.alias for item in tree.select_items] == [None, "a", "f", "y", None]


def test_functions_nest_at_most_two_levels() -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql("SELECT FORMAT(MIN(DAY_ONLY(CreatedDate))) FROM Case")
    assert caught.value.message == "unexpected token: '('"
    assert caught.value.column == 27


def test_fields_groups() -> None:
    tree = parse_soql("SELECT FIELDS(all), Id, fields(Standard) FROM Case LIMIT 200")
    assert [item.expression for item in tree.select_items] == [n.Fields("ALL"), path("Id"), n.Fields("STANDARD")]
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql("SELECT FIELDS(EVERYTHING) FROM Case")
    assert (caught.value.message, caught.value.column) == ("unexpected token: 'EVERYTHING'", 15)


def test_child_subquery_and_its_clauses() -> None:
    tree = parse_soql(
        "SELECT Name, (SELECT Subject FROM Cases WHERE Status = 'New' ORDER BY CreatedDate DESC LIMIT 3) FROM Account"
    )
    child = tree.select_items[1].expression
    assert child == SoqlQuery(
        select_items=(n.SelectItem(path("Subject")),),
        from_items=(n.FromItem("Cases"),),
        where=n.Comparison(path("Status"), "=", n.StringLiteral("New")),
        order_by=(n.OrderItem(path("CreatedDate"), "DESC"),),
        limit=3,
    )


def test_typeof() -> None:
    tree = parse_soql(
        "SELECT TYPEOF What WHEN Account THEN Phone, Name WHEN Case THEN Subject ELSE Name END FROM Event"
    )
    assert tree.select_items[0].expression == n.TypeOf(
        path("What"),
        (n.TypeOfWhen("Account", (path("Phone"), path("Name"))), n.TypeOfWhen("Case", (path("Subject"),))),
        (path("Name"),),
    )
    # Without a WHEN after it, TYPEOF is an ordinary field name.
    assert parse_soql("SELECT TypeOf, What FROM Event").select_items[0].expression == path("TypeOf")


def test_distance_and_geolocation() -> None:
    tree = parse_soql(
        "SELECT Name FROM Warehouse__c WHERE DISTANCE(Location__c, GEOLOCATION(37.775, -122.418), 'mi') < 20 "
        "ORDER BY DISTANCE(Location__c, GEOLOCATION(37.775, -122.418), 'mi')"
    )
    distance = n.Distance(path("Location__c"), n.Geolocation(Decimal("37.775"), Decimal("-122.418")), "mi")
    assert tree.where == n.Comparison(distance, "<", n.NumberLiteral(20))
    assert tree.order_by == (n.OrderItem(distance),)


# ----------------------------------------------------------------------------- conditions


def test_and_or_keep_their_grouping() -> None:
    a = n.Comparison(path("A"), "=", n.NumberLiteral(1))
    b = n.Comparison(path("B"), "=", n.NumberLiteral(2))
    c = n.Comparison(path("C"), "=", n.NumberLiteral(3))
    assert where("SELECT Id FROM X WHERE A = 1 AND B = 2 AND C = 3") == n.And((a, b, c))
    assert where("SELECT Id FROM X WHERE A = 1 OR (B = 2 AND C = 3)") == n.Or((a, n.And((b, c))))
    assert where("SELECT Id FROM X WHERE (A = 1 AND B = 2) AND C = 3") == n.And((n.And((a, b)), c))
    assert where("SELECT Id FROM X WHERE NOT (A = 1 OR B = 2)") == n.Not(n.Or((a, b)))
    assert where("SELECT Id FROM X WHERE A = 1 AND (NOT B = 2)") == n.And((a, n.Not(b)))
    assert where("SELECT Id FROM X WHERE ((A = 1))") == a


@pytest.mark.parametrize(
    ("condition", "column", "token"),
    [
        ("A = 1 AND B = 2 OR C = 3", 40, "OR"),
        ("A = 1 OR B = 2 AND C = 3", 39, "AND"),
        ("A = 1 AND NOT B = 2", 34, "NOT"),
        ("NOT A = 1 AND B = 2", 34, "AND"),
    ],
)
def test_mixing_and_or_and_misplacing_not_are_syntax_errors(condition: str, column: int, token: str) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql(f"SELECT Id FROM X WHERE {condition}")
    assert (caught.value.message, caught.value.column) == (f"unexpected token: '{token}'", column)


def test_operators() -> None:
    for operator in ["=", "!=", "<", "<=", ">", ">="]:
        assert where(f"SELECT Id FROM X WHERE A {operator} 1") == n.Comparison(path("A"), operator, n.NumberLiteral(1))
    assert where("SELECT Id FROM X WHERE A <> 1") == n.Comparison(path("A"), "!=", n.NumberLiteral(1))
    assert where("SELECT Id FROM X WHERE A like 'x%'") == n.Comparison(path("A"), "LIKE", n.StringLiteral("x%"))


def test_set_conditions() -> None:
    values = (n.StringLiteral("a"), n.NullLiteral())
    assert where("SELECT Id FROM X WHERE A IN ('a', null)") == n.SetCondition(path("A"), "IN", values)
    assert where("SELECT Id FROM X WHERE A NOT IN ('a', NULL)") == n.SetCondition(path("A"), "NOT IN", values)
    assert where("SELECT Id FROM X WHERE A includes ('a;b', 'c')") == n.SetCondition(
        path("A"), "INCLUDES", (n.StringLiteral("a;b"), n.StringLiteral("c"))
    )
    assert where("SELECT Id FROM X WHERE A EXCLUDES ('a')") == n.SetCondition(
        path("A"), "EXCLUDES", (n.StringLiteral("a"),)
    )
    with pytest.raises(QuerySyntaxError):
        parse_soql("SELECT Id FROM X WHERE A IN ()")


def test_semi_join_and_anti_join() -> None:
    condition = where(
        "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case WHERE Status = 'New') "
        "AND Id NOT IN (SELECT AccountId FROM Contact)"
    )
    assert condition == n.And(
        (
            n.SemiJoin(
                path("Id"),
                False,
                SoqlQuery(
                    select_items=(n.SelectItem(path("AccountId")),),
                    from_items=(n.FromItem("Case"),),
                    where=n.Comparison(path("Status"), "=", n.StringLiteral("New")),
                ),
            ),
            n.SemiJoin(
                path("Id"),
                True,
                SoqlQuery(select_items=(n.SelectItem(path("AccountId")),), from_items=(n.FromItem("Contact"),)),
            ),
        )
    )


def test_semi_joins_take_no_ordering_or_paging() -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql("SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case ORDER BY CreatedDate)")
    assert (caught.value.message, caught.value.column) == ("unexpected token: 'ORDER'", 64)


# ----------------------------------------------------------------------------- literals


def test_string_escapes_are_decoded() -> None:
    assert value_of(r"'a\'b\"c\\d\ne\rf\tg\bh\fi\u00e9\U2019'") == n.StringLiteral(
        "a'b\"c\\d\ne\rf\tg\bh\fi\u00e9\u2019"
    )
    assert value_of(r"'\N\R\T\B\F'") == n.StringLiteral("\n\r\t\b\f")
    assert value_of("''") == n.StringLiteral("")


def test_escaped_like_wildcards_are_remembered() -> None:
    condition = where(r"SELECT Id FROM X WHERE Name LIKE '50\%\_off%'")
    assert condition == n.Comparison(path("Name"), "LIKE", n.StringLiteral("50%_off%", (2, 3)))


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        (r"'a\qb'", r"Invalid string literal 'a\qb'. Illegal character sequence '\q' in string literal."),
        (r"'C:\users'", r"Invalid string literal 'C:\users'. Illegal unicode sequence. '\users' in string literal."),
        (r"'\uFFFF'", "Illegal unicode sequence"),
    ],
)
def test_bad_escapes_are_refused_at_the_string(literal: str, message: str) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        value_of(literal)
    assert message in caught.value.message
    assert caught.value.column == 38


def test_numbers() -> None:
    assert value_of("42") == n.NumberLiteral(42)
    assert value_of("-42") == n.NumberLiteral(-42)
    assert value_of("+ 4.50") == n.NumberLiteral(Decimal("4.5"))
    assert value_of(".5") == n.NumberLiteral(Decimal("0.5"))
    for bad in ["1e5", "5."]:
        with pytest.raises(QuerySyntaxError):
            value_of(bad)


def test_booleans_and_null_in_any_case() -> None:
    assert value_of("True") == n.BooleanLiteral(True)
    assert value_of("FALSE") == n.BooleanLiteral(False)
    assert value_of("nULL") == n.NullLiteral()


def test_dates_datetimes_and_times() -> None:
    assert value_of("2020-12-20") == n.DateLiteral(dt.date(2020, 12, 20))
    utc = dt.UTC
    assert value_of("2020-12-22T11:00:00Z") == n.DateTimeLiteral(dt.datetime(2020, 12, 22, 11, tzinfo=utc))
    assert value_of("2020-12-22t11:00:00.123z") == n.DateTimeLiteral(
        dt.datetime(2020, 12, 22, 11, 0, 0, 123000, tzinfo=utc)
    )
    plus = dt.timezone(dt.timedelta(hours=5, minutes=30))
    assert value_of("2020-12-22T11:00:00+05:30") == n.DateTimeLiteral(dt.datetime(2020, 12, 22, 11, tzinfo=plus))
    assert value_of("2020-12-22T11:00:00.000+0530") == n.DateTimeLiteral(dt.datetime(2020, 12, 22, 11, tzinfo=plus))
    minus = dt.timezone(-dt.timedelta(hours=8))
    assert value_of("2020-12-22T03:00:00-08:00").value == dt.datetime(2020, 12, 22, 11, tzinfo=utc)
    assert value_of("2020-12-22T03:00:00-08:00").value.tzinfo == minus
    assert value_of("13:45:00.000Z") == n.TimeLiteral(dt.time(13, 45, tzinfo=utc))


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ("2020-13-01", "Invalid date: 2020-13-01"),
        ("2020-02-30", "Invalid date: 2020-02-30"),
        ("2020-12-12T12:12:00-25:00", "Invalid datetime: 2020-12-12T12:12:00-25:00"),
        ("2020-12-12T25:00:00Z", "Invalid datetime"),
        ("2020-12-12T10:00:00", "unexpected token: '2020-12-12T10:00:00'"),
        ("2020-1-1", "unexpected token: '2020-1-1'"),
    ],
)
def test_bad_dates_are_refused(literal: str, message: str) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        value_of(literal)
    assert message in caught.value.message
    assert caught.value.column == 38


def test_relative_date_literals() -> None:
    assert value_of("today") == n.RelativeDateLiteral("TODAY")
    assert value_of("LAST_N_DAYS:30") == n.RelativeDateLiteral("LAST_N_DAYS", 30)
    assert value_of("last_n_fiscal_years : 2") == n.RelativeDateLiteral("LAST_N_FISCAL_YEARS", 2)
    for bad in ["LAST_N_DAYS", "TODAY:3", "SOMEDAY", "LAST_N_DAYS:-1"]:
        with pytest.raises(QuerySyntaxError):
            value_of(bad)


def test_currency_literals() -> None:
    assert value_of("USD5000") == n.CurrencyLiteral("USD", 5000)
    assert value_of("eur1250.50") == n.CurrencyLiteral("EUR", Decimal("1250.50"))
    assert value_of("USD-500") == n.CurrencyLiteral("USD", -500)


# ----------------------------------------------------------------------------- clauses


def test_with_clauses() -> None:
    tree = parse_soql(
        "SELECT Title FROM Knowledge__kav WHERE PublishStatus = 'Online' "
        "WITH DATA CATEGORY Geography__c AT (usa__c, uk__c) AND Product__c ABOVE_OR_BELOW shoes__c "
        "WITH security_enforced"
    )
    assert tree.with_clauses == (
        n.WithDataCategory(
            (
                n.DataCategoryFilter("Geography__c", "AT", ("usa__c", "uk__c")),
                n.DataCategoryFilter("Product__c", "ABOVE_OR_BELOW", ("shoes__c",)),
            )
        ),
        n.WithIdentifier("SECURITY_ENFORCED"),
    )
    tree = parse_soql(
        "SELECT Id FROM X WITH RecordVisibilityContext (maxDescriptorPerRecord=100, supportsDomains=true)"
    )
    assert tree.with_clauses == (
        n.WithIdentifier(
            "RecordVisibilityContext",
            (
                n.WithOption("maxDescriptorPerRecord", n.NumberLiteral(100)),
                n.WithOption("supportsDomains", n.BooleanLiteral(True)),
            ),
        ),
    )
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql("SELECT Id FROM X WITH EVERYTHING_ENFORCED")
    assert caught.value.message == "unexpected token: 'EVERYTHING_ENFORCED'"


def test_group_by_rollup_cube_and_having() -> None:
    tree = parse_soql(
        "SELECT Status, Priority, COUNT(Id) c FROM Case GROUP BY ROLLUP(Status, Priority) HAVING COUNT(Id) > 1"
    )
    assert tree.group_by == n.GroupBy((path("Status"), path("Priority")), "ROLLUP")
    assert tree.having == n.Comparison(n.FunctionCall("COUNT", path("Id")), ">", n.NumberLiteral(1))
    assert parse_soql("SELECT Status FROM Case GROUP BY CUBE(Status)").group_by == n.GroupBy((path("Status"),), "CUBE")


def test_limit_offset_for_and_update() -> None:
    tree = parse_soql("SELECT Id FROM FAQ__kav LIMIT 10 OFFSET 20 FOR VIEW, REFERENCE UPDATE TRACKING, VIEWSTAT")
    assert (tree.limit, tree.offset) == (10, 20)
    assert tree.for_options == ("VIEW", "REFERENCE")
    assert tree.update_options == ("TRACKING", "VIEWSTAT")
    # The sign parses (Salesforce's grammar allows it); the engine refuses the value.
    assert parse_soql("SELECT Id FROM X LIMIT -1").limit == -1


@pytest.mark.parametrize(
    ("query", "message", "column"),
    [
        ("SELECT Id FROM Account WHERE Id = :accountId", "Bind variables only allowed in Apex code", 35),
        ("SELECT Id FROM Account FOR UPDATE", "FOR UPDATE is only allowed in Apex code", 28),
        ("SELECT COUNT() FROM Contact ALL ROWS", "ALL ROWS is only allowed in Apex code", 29),
    ],
)
def test_apex_only_forms_are_refused_with_a_clear_message(query: str, message: str, column: int) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql(query)
    assert message in caught.value.message
    assert caught.value.column == column


@pytest.mark.parametrize(
    "query",
    [
        "SELECT Id FROM Account OFFSET 5 LIMIT 10",
        "SELECT Id FROM Account LIMIT 10 ORDER BY Name",
        "SELECT Id FROM Account HAVING COUNT(Id) > 1",
        "SELECT Id FROM Account ORDER BY Name WHERE Name = 'x'",
    ],
)
def test_clause_order_is_fixed(query: str) -> None:
    with pytest.raises(QuerySyntaxError):
        parse_soql(query)


# ----------------------------------------------------------------------------- SOSL


def test_sosl_tree() -> None:
    tree = parse_sosl(
        "FIND {refund policy} IN ALL FIELDS RETURNING Knowledge__kav(Id, Title WHERE PublishStatus = 'Online' "
        "ORDER BY Title LIMIT 5), Product2 WITH SNIPPET(target_length = 120) LIMIT 20"
    )
    assert tree == SoslQuery(
        search=n.SearchAnd(n.SearchTerm("refund"), n.SearchTerm("policy"), explicit=False),
        search_group="ALL",
        returning=(
            n.ReturningObject(
                "Knowledge__kav",
                select_items=(n.SelectItem(path("Id")), n.SelectItem(path("Title"))),
                where=n.Comparison(path("PublishStatus"), "=", n.StringLiteral("Online")),
                order_by=(n.OrderItem(path("Title")),),
                limit=5,
            ),
            n.ReturningObject("Product2"),
        ),
        with_clauses=(n.WithIdentifier("SNIPPET", (n.WithOption("target_length", n.NumberLiteral(120)),)),),
        limit=20,
    )


def test_search_expression_precedence() -> None:
    tree = parse_sosl('FIND {shoe* AND NOT "trail running" OR sock? (blue OR red)}')
    assert tree.search == n.SearchOr(
        n.SearchAndNot(n.SearchTerm("shoe*"), n.SearchTerm("trail running", phrase=True)),
        n.SearchAnd(
            n.SearchTerm("sock?"),
            n.SearchOr(n.SearchTerm("blue"), n.SearchTerm("red")),
            explicit=False,
        ),
    )


def test_search_text_escapes_and_quoted_form() -> None:
    assert parse_sosl(r"FIND {hello \} world\-wide}").search == n.SearchAnd(
        n.SearchAnd(n.SearchTerm("hello"), n.SearchTerm(r"\}"), explicit=False),
        n.SearchTerm(r"world\-wide"),
        explicit=False,
    )
    tree = parse_sosl("FIND 'Acme*' IN NAME FIELDS RETURNING Account")
    assert (tree.search, tree.quoted, tree.search_group) == (n.SearchTerm("Acme*"), True, "NAME")


@pytest.mark.parametrize(
    ("query", "message", "column"),
    [
        ("FIND {John|jane} RETURNING Account", "line 1:10 mismatched character '|' expecting '}'", 11),
        ("FIND {*son} RETURNING Contact", "mismatched character '*'", 7),
        ("FIND {name} IN ALL TYPE RETURNING Account(Name)", "Malformed search token: TYPE", 20),
        ("FIND {name} IN EVERY FIELDS", "Malformed search token: EVERY", 16),
        ("FIND {unclosed RETURNING Account", "line 1:32 mismatched character '<EOF>' expecting '}'", 33),
        ("FIND {Acme} IN ALL RETURNING Account", "Malformed search token: RETURNING", 20),
        ("FIND {Acme AND}", "unexpected token: '}'", 15),
        ("FIND {x} WITH DIVISION = 5", "unexpected token: '5'", 26),
        ("FIND {x} WITH SPELL_CORRECTION = 'yes'", "unexpected token: ''yes''", 34),
        ("FIND {x} WITH SNIPPET(length = 5)", "unexpected token: 'length'", 23),
        ("FIND {x} WITH DIVISION IN ('a')", "unexpected token: 'IN'", 24),
        ("FIND {} RETURNING Account", "unexpected token: '}'", 7),
        ("FIND :term RETURNING Account", "Bind variables only allowed in Apex code", 6),
    ],
)
def test_sosl_errors(query: str, message: str, column: int) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_sosl(query)
    assert message in caught.value.message
    assert caught.value.column == column


# ----------------------------------------------------------------------------- entry points and errors


def test_parse_dispatches_on_find() -> None:
    assert isinstance(parse("  find {x} RETURNING Account"), SoslQuery)
    assert isinstance(parse("SELECT Id FROM Account"), SoqlQuery)
    assert isinstance(parse("SELECT Finding__c FROM Account"), SoqlQuery)


def test_find_sent_as_soql_is_a_soql_error() -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql("find {Acme}")
    assert caught.value.message == "unexpected token: 'find'"


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_statements(text: str) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql(text)
    assert caught.value.message == "SOQL statements cannot be empty or null"


def test_errors_give_line_column_token_and_expected_set() -> None:
    query = "SELECT Id\nFROM Case\nWHERE Status = 'New'\n  LIMIT Name"
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql(query)
    error = caught.value
    assert (error.message, error.line, error.column, error.token) == ("unexpected token: 'Name'", 4, 9, "Name")
    assert error.caret_message(query) == "\n  LIMIT Name\n        ^\nERROR at Row:4:Column:9\nunexpected token: 'Name'"
    assert error.expected == ("'+' or '-'", "an integer")
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql("SELECT Id FORM Case")
    assert caught.value.expected == ("','", "FROM")


def test_end_of_input_is_reported_after_the_last_character() -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql("SELECT Id FROM Case WHERE  \n  ")
    assert (caught.value.message, caught.value.line, caught.value.column) == ("unexpected token: <EOF>", 1, 26)


def test_lexer_errors_name_the_character() -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql("SELECT Id FROM Case WHERE Subject = $x")
    assert (caught.value.message, caught.value.column) == ("line 1:36 unexpected token: '$'", 37)
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql('SELECT Id FROM Case WHERE Subject = "x"')
    assert caught.value.message == "line 1:36 unexpected token: '\"'"
    with pytest.raises(QuerySyntaxError) as caught:
        parse_soql("SELECT Id FROM Case WHERE Subject = 'open")
    expected = ("line 1:41 mismatched character '<EOF>' expecting '''", 42)
    assert (caught.value.message, caught.value.column) == expected


def test_an_orphan_keyword_is_reported_at_the_token_that_should_follow_it() -> None:
    for query, message, column in [
        ("SELECT Id FROM Case WHERE Status = 'New' ORDER CreatedDate", "unexpected token: 'CreatedDate'", 48),
        ("SELECT Id FROM Case LIMIT 10 OFFSET 2.5", "unexpected token: '2.5'", 37),
        ("SELECT Id FROM Case LIMIT 5 OFFSET", "unexpected token: <EOF>", 35),
        ("SELECT Name, COUNT() FROM Account", "unexpected token: ')'", 20),
    ]:
        with pytest.raises(QuerySyntaxError) as caught:
            parse_soql(query)
        assert (caught.value.message, caught.value.column) == (message, column)


def test_the_error_text_states_the_position_once() -> None:
    with pytest.raises(QuerySyntaxError) as lexer:
        parse("SELECT $ FROM Case")
    assert str(lexer.value) == "line 1:7 unexpected token: '$'"  # the org's own position, 0-based column
    with pytest.raises(QuerySyntaxError) as parser:
        parse("SELECT Id FORM Case")
    assert str(parser.value) == "unexpected token: 'Case' (line 1, column 16)"

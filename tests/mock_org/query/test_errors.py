"""Errors worded and coded as a real org words them, with the caret block where a real org has one."""

from __future__ import annotations

import pytest

from mock_org.errors import InvalidField, InvalidType, MalformedQuery, NumberOutsideValidRange, SalesforceError


def error_of(org, query: str) -> SalesforceError:  # type: ignore[no-untyped-def]
    with pytest.raises(SalesforceError) as caught:
        org.query(query)
    return caught.value


def test_unknown_object(org) -> None:
    error = error_of(org, "SELECT Id FROM Bogus")
    assert isinstance(error, InvalidType)
    assert error.message.startswith("\nSELECT Id FROM Bogus\n               ^\nERROR at Row:1:Column:16\n")
    assert error.message.endswith(
        "sObject type 'Bogus' is not supported. If you are attempting to use a custom object, be sure to append the "
        "'__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names."
    )


def test_unknown_field(org) -> None:
    error = error_of(org, "SELECT Id, Foo FROM Account")
    assert isinstance(error, InvalidField)
    assert error.message.startswith("\nSELECT Id, Foo FROM Account\n           ^\nERROR at Row:1:Column:12\n")
    assert "No such column 'Foo' on entity 'Account'." in error.message


def test_unknown_relationship(org) -> None:
    error = error_of(org, "SELECT Id FROM Case WHERE Acount.Name = 'x'")
    assert isinstance(error, InvalidField)
    assert "Didn't understand relationship 'Acount' in field path." in error.message
    assert "ERROR at Row:1:Column:27" in error.message


def test_unknown_field_on_a_parent(org) -> None:
    error = error_of(org, "SELECT Account.Nome FROM Case")
    assert "No such column 'Nome' on entity 'Account'." in error.message


def test_polymorphic_relationships_reach_only_name_fields(org) -> None:
    error = error_of(org, "SELECT Owner.LanguageLocaleKey FROM Case")
    assert "No such column 'LanguageLocaleKey' on entity 'Name'." in error.message


def test_unknown_child_relationship(org) -> None:
    error = error_of(org, "SELECT Id, (SELECT Id FROM Casez) FROM Account")
    assert isinstance(error, InvalidType)
    assert "Didn't understand relationship 'Casez' in FROM part of query call." in error.message


def test_syntax_errors_are_malformed_query_with_the_caret(org) -> None:
    error = error_of(org, "SELECT Id FORM Case")
    assert isinstance(error, MalformedQuery)
    assert (
        error.message == "\nSELECT Id FORM Case\n               ^\nERROR at Row:1:Column:16\nunexpected token: 'Case'"
    )


def test_lower_case_find_sent_to_query(org) -> None:
    error = error_of(org, "find {Acme}")
    assert error.error_code == "MALFORMED_QUERY" and error.message.endswith("unexpected token: 'find'")


def test_empty_query(org) -> None:
    assert error_of(org, "  ").message == "SOQL statements cannot be empty or null"


@pytest.mark.parametrize(
    ("query", "word"),
    [
        ("SELECT Id FROM Case WHERE CreatedDate > 2023-01-01", "dateTime"),
        ("SELECT Id FROM Case WHERE CreatedDate > '2023-01-01T00:00:00Z'", "dateTime"),
        ("SELECT Id FROM Order WHERE EffectiveDate = 2023-01-01T00:00:00Z", "date"),
        ("SELECT Id FROM OrderItem WHERE Quantity > '1'", "double"),
        ("SELECT Id FROM Product2 WHERE IsActive = 'true'", "boolean"),
    ],
)
def test_literal_of_the_wrong_type(org, query: str, word: str) -> None:
    error = error_of(org, query)
    assert isinstance(error, InvalidField)
    assert f"must be of type {word} and should not be enclosed in quotes" in error.message


def test_unquoted_value_for_a_text_field(org) -> None:
    error = error_of(org, "SELECT Id FROM Case WHERE Subject = 5")
    assert "value of filter criterion for field 'Subject' must be of type string and should be enclosed in quotes" in (
        error.message
    )


@pytest.mark.parametrize(
    ("query", "verb"),
    [
        ("SELECT Id FROM Case WHERE Description = 'x'", "filtered"),
        ("SELECT Id FROM Case ORDER BY Description", "sorted"),
        ("SELECT Description, COUNT(Id) FROM Case GROUP BY Description", "grouped"),
        ("SELECT CreatedDate, COUNT(Id) FROM Case GROUP BY CreatedDate", "grouped"),
    ],
)
def test_long_text_and_datetimes_cannot_be_used_everywhere(org, query: str, verb: str) -> None:
    error = error_of(org, query)
    assert isinstance(error, InvalidField)
    assert f"can not be {verb} in a query call" in error.message


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "SELECT Status, Priority, COUNT(Id) FROM Case GROUP BY Status",
            "Field must be grouped or aggregated: Priority",
        ),
        (
            "SELECT Status FROM Case GROUP BY Status ORDER BY Priority",
            "Ordered field must be grouped or aggregated: Priority",
        ),
        ("SELECT Status, COUNT(Status) FROM Case GROUP BY Status", "Grouped field should not be aggregated: Status"),
        ("SELECT Name, COUNT(Id) FROM Account", "Field must be grouped or aggregated: Name"),
        ("SELECT MAX(CreatedDate) FROM Account LIMIT 1", "LIMIT cannot be used"),
        ("SELECT SUM(Subject) FROM Case", "field Subject does not support aggregate operator SUM"),
        ("SELECT Id, (SELECT COUNT(Id) FROM Cases) FROM Account", "Only root queries support aggregate expressions"),
        ("SELECT Id Name FROM Account", "only aggregate expressions use field aliasing"),
        ("SELECT COUNT() FROM Case GROUP BY Status", "COUNT() cannot be used with GROUP BY"),
        ("SELECT Id FROM Case WHERE COUNT(Id) > 1", "Aggregate functions are not allowed in the WHERE clause"),
        ("SELECT FIELDS(ALL) FROM Case", "The SOQL FIELDS function must have a LIMIT of at most 200"),
        ("SELECT FIELDS(CUSTOM) FROM Case LIMIT 201", "The SOQL FIELDS function must have a LIMIT of at most 200"),
        ("SELECT Id, Id FROM Case", "duplicate field selected: Id"),
        (
            "SELECT Id FROM Case WHERE HOUR_IN_DAY(ClosedDate) = 1 AND convertTimezone(CreatedDate) = 1",
            "convertTimezone()",
        ),
        ("SELECT Id FROM Case WHERE Subject LIKE null", "invalid operator"),
        ("SELECT Id FROM Case WHERE OwnerId LIKE '005%'", "invalid operator on reference field"),
        ("SELECT Id FROM Case WHERE Status INCLUDES ('Closed')", "only valid on multi-select picklist fields"),
    ],
)
def test_query_rules(org, query: str, message: str) -> None:
    error = error_of(org, query)
    assert isinstance(error, (MalformedQuery, InvalidField))
    assert message in error.message


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "SELECT Id FROM Account WHERE Name = 'x' OR Id IN (SELECT AccountId FROM Case)",
            "Semi join sub-selects are not allowed with the 'OR' operator",
        ),
        (
            "SELECT Id FROM Account WHERE Name = 'x' AND (Name = 'y' AND Id IN (SELECT AccountId FROM Case))",
            "only allowed at the top level WHERE expressions",
        ),
        (
            "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case WHERE Id IN (SELECT CaseId__c FROM CaseHistory__c))",
            "Nesting of semi join sub-selects is not supported",
        ),
        (
            "SELECT Id FROM Account WHERE Id IN (SELECT Subject FROM Case)",
            "semi join sub selects can only query id fields, cannot use: 'Subject'",
        ),
        ("SELECT Id FROM Account WHERE Id IN (SELECT Id FROM Account)", "should not be on the same object type"),
        (
            "SELECT Id FROM Account WHERE Id IN (SELECT AccountId FROM Case) AND Id IN (SELECT AccountId FROM Contact) "
            "AND Id IN (SELECT AccountId FROM Order)",
            "Maximum 2 semi join sub-selects are allowed",
        ),
    ],
)
def test_semi_join_rules(org, query: str, message: str) -> None:
    assert message in error_of(org, query).message


def test_offset_above_2000(org) -> None:
    error = error_of(org, "SELECT Id FROM Case OFFSET 2001")
    assert isinstance(error, NumberOutsideValidRange)
    assert error.message == "Maximum SOQL offset allowed is 2000"


def test_errors_serialise_as_the_rest_error_body(org) -> None:
    body = error_of(org, "SELECT Id FROM Bogus").to_json()
    assert list(body) == ["message", "errorCode"] and body["errorCode"] == "INVALID_TYPE"

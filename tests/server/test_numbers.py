"""Numbers in SOQL and SOSL (issue 25, problem 8): a literal of any length is read exactly and answered
with the org's 400 (a 4,301-digit one was a 500: Python's limit on turning text into an int), and only
ASCII digits are digits (``LIMIT ٣`` returned 3 rows)."""

from __future__ import annotations

import pytest

from .conftest import Client, assert_error

V = "/services/data/v59.0"
LONG = "9" * 4301


@pytest.mark.parametrize(
    ("soql", "code"),
    [
        (f"SELECT Id FROM PricebookEntry WHERE UnitPrice > {LONG}", "NUMBER_OUTSIDE_VALID_RANGE"),
        (f"SELECT Id FROM PricebookEntry WHERE UnitPrice IN (1, -{LONG})", "NUMBER_OUTSIDE_VALID_RANGE"),
        (f"SELECT Id FROM PricebookEntry WHERE UnitPrice > USD{LONG}", "NUMBER_OUTSIDE_VALID_RANGE"),
        (f"SELECT Id FROM Account LIMIT {LONG}", "NUMBER_OUTSIDE_VALID_RANGE"),
        (f"SELECT Id FROM Account OFFSET {LONG}", "NUMBER_OUTSIDE_VALID_RANGE"),
        (f"SELECT Id FROM Account WHERE CreatedDate = LAST_N_DAYS:{LONG}", "NUMBER_OUTSIDE_VALID_RANGE"),
        (f"SELECT Id, (SELECT Id FROM Contacts LIMIT {LONG}) FROM Account", "NUMBER_OUTSIDE_VALID_RANGE"),
        ("SELECT Id FROM Account LIMIT ٣", "MALFORMED_QUERY"),  # Arabic-Indic three
        ("SELECT Id FROM PricebookEntry WHERE UnitPrice > ３", "MALFORMED_QUERY"),  # fullwidth three
        ("SELECT Id FROM Account WHERE CreatedDate > ２０２０-01-01T00:00:00Z", "MALFORMED_QUERY"),
        ("SELECT Id FROM PricebookEntry WHERE UnitPrice > USD٣", "MALFORMED_QUERY"),
    ],
    ids=range(11),
)
def test_query_numbers_answer_400(client: Client, soql: str, code: str) -> None:
    assert_error(client.get(f"{V}/query", params={"q": soql}), 400, code)


@pytest.mark.parametrize(
    "sosl",
    [
        f"FIND {{Bulk}} RETURNING Product2(Id LIMIT {LONG})",
        f"FIND {{Bulk}} RETURNING Product2(Id WHERE IsActive = true LIMIT 5 OFFSET {LONG})",
        f"FIND {{Bulk}} RETURNING Product2 LIMIT {LONG}",
        "FIND {Bulk} RETURNING Product2(Id LIMIT ٣)",
    ],
    ids=range(4),
)
def test_search_numbers_never_fail_the_server(client: Client, sosl: str) -> None:
    answer = client.get(f"{V}/search", params={"q": sosl})
    assert answer.status in (200, 400), answer.text
    if "٣" in sosl:
        assert_error(answer, 400, "MALFORMED_SEARCH")


def test_other_digits_in_a_locator_or_a_page_number_are_no_500(client: Client, running) -> None:  # type: ignore[no-untyped-def]
    """``"²".isdigit()`` is true but ``int("²")`` fails: a locator or a list page number written so
    answers as any bad one does."""
    from .ui.pages import log_in

    first = client.get(
        f"{V}/query", headers={"Sforce-Query-Options": "batchSize=200"}, params={"q": "SELECT Id FROM Product2"}
    ).json()
    cursor = first["nextRecordsUrl"].rsplit("/", 1)[1].split("-")[0]
    assert_error(client.get(f"{V}/query/{cursor}-²"), 400, "INVALID_QUERY_LOCATOR")
    ui = running.app.test_client()
    log_in(ui, running.username, running.password)
    assert ui.get("/lightning/o/Product2/list", query_string={"page": "²", "size": "²"}).status_code == 200

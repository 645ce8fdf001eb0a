"""The pages against the org they show: every number, row and value on a page is what the org's own
API answers for the same question."""

from __future__ import annotations

import re
from html import unescape

from flask.testing import FlaskClient

from mock_org.server.serve import RunningOrg
from tests.mock_org.conftest import ACCOUNTS, CASES, ITEMS, PRODUCTS

from .pages import form_token


def text(answer) -> str:  # type: ignore[no-untyped-def]
    assert answer.status_code == 200, answer.get_data(as_text=True)[:2000]
    return answer.get_data(as_text=True)


def row_ids(page: str, table: str = "list-table") -> list[str]:
    body = page.split(f'id="{table}"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr data-record-id="(\w+)"', body)


def count(page: str) -> int:
    return int(re.search(r'id="row-count" data-count="(\d+)"', page).group(1))


def test_home_counts_every_object(ui: FlaskClient, running: RunningOrg) -> None:
    page = text(ui.get("/lightning/page/home"))
    for name in ("Case", "Account", "Product2", "OrderItem"):
        total = running.org.query(f"SELECT COUNT() FROM {name}")["totalSize"]
        assert re.search(rf'id="object-{name}"[^>]*>[^<]*</a> <span class="count" data-count="{total}"', page)


def test_a_list_sorts_filters_and_pages_as_the_org_does(ui: FlaskClient, running: RunningOrg) -> None:
    def ids(soql: str) -> list[str]:
        return [record["Id"] for record in running.org.query(soql)["records"]]

    page = text(ui.get("/lightning/o/Product2/list?sort=Name&dir=asc&size=25&page=2"))
    assert row_ids(page) == ids("SELECT Id FROM Product2 ORDER BY Name ASC NULLS LAST, Id ASC LIMIT 25 OFFSET 25")
    assert count(page) == running.org.query("SELECT COUNT() FROM Product2")["totalSize"]
    assert 'aria-sort="ascending"' in page and 'id="next-page"' in page and 'id="previous-page"' in page
    products = count(page)
    page = text(ui.get("/lightning/o/Product2/list?sort=Name&dir=asc&size=10&page=999"))  # past the end
    last = -(-products // 10)
    assert f"Page {last} of {last}" in page and len(row_ids(page)) == products - 10 * (last - 1)
    page = text(ui.get("/lightning/o/Case/list?sort=Priority&dir=desc&field=Status&op=not_equal&value=Closed"))
    expected = ids("SELECT Id FROM Case WHERE Status != 'Closed' ORDER BY Priority DESC NULLS LAST, Id DESC LIMIT 50")
    assert row_ids(page) == expected and count(page) == len(expected)
    page = text(ui.get("/lightning/o/Case/list?field=AccountId&op=equals&value=Patricia Walker"))  # a lookup by name
    assert set(row_ids(page)) == set(ids(f"SELECT Id FROM Case WHERE AccountId = '{ACCOUNTS[0]}'")) != set()


def test_filter_values_are_data_not_soql(ui: FlaskClient) -> None:
    sneaky = "x' OR Name != 'y"
    page = text(ui.get("/lightning/o/Account/list", query_string={"field": "Name", "op": "equals", "value": sneaky}))
    assert count(page) == 0 and row_ids(page) == []
    assert "Name = &#39;x\\&#39; OR Name != \\&#39;y&#39;" in page  # the SOQL shown quotes it as one string
    page = text(ui.get("/lightning/o/Account/list", query_string={"field": "Name", "op": "contains", "value": "%"}))
    assert count(page) == 0  # a wildcard typed into "contains" is looked for literally


def test_bad_filters_show_the_reason(ui: FlaskClient) -> None:
    for query, message in [
        ({"field": "Quantity", "op": "equals", "value": "lots"}, "Quantity is a number"),
        ({"field": "Bogus", "op": "equals", "value": "1"}, "Bogus is not a field"),
        ({"field": "Quantity", "op": "about", "value": "1"}, "Unknown filter operator"),
        ({"field": "CreatedDate", "op": "less", "value": "soon-ish"}, "Created Date takes a date"),
    ]:
        page = text(ui.get("/lightning/o/OrderItem/list", query_string=query))
        assert 'id="list-error" role="alert"' in page and message in unescape(page), query


def test_a_case_page_shows_its_fields_lookups_and_related_lists(ui: FlaskClient, running: RunningOrg) -> None:
    case = running.org.retrieve("Case", CASES[0])
    page = text(ui.get(f"/lightning/r/Case/{CASES[0]}/view"))
    assert f'<h1 class="page-title" id="record-title">{case["CaseNumber"]}</h1>' in page
    assert f'href="/lightning/r/Account/{case["AccountId"]}/view"' in page and "Patricia Walker" in page
    assert '<dt id="details-label-Subject">Subject</dt>' in page
    histories = running.org.query(f"SELECT COUNT() FROM CaseHistory__c WHERE CaseId__c = '{CASES[0]}'")["totalSize"]
    assert len(row_ids(page, "related-table-CaseHistories__r")) == histories > 0
    emails = running.org.query(f"SELECT Subject FROM EmailMessage WHERE ParentId = '{CASES[0]}'")["records"]
    assert emails and all(email["Subject"] in unescape(page) for email in emails)
    item = running.org.query(f"SELECT OrderItemNumber, Product2.Name FROM OrderItem WHERE Id = '{ITEMS[0]}'")
    assert case["OrderItemId__c"] == ITEMS[0] and item["records"][0]["Product2"]["Name"] in page  # the card
    related = text(ui.get(f"/lightning/r/Case/{CASES[0]}/related/CaseHistories__r/view"))
    assert count(related) == histories


def test_a_knowledge_article_reads_as_an_article(ui: FlaskClient, running: RunningOrg) -> None:
    article = running.org.query("SELECT Id, Title FROM Knowledge__kav LIMIT 1")["records"][0]
    page = text(ui.get(f"/lightning/r/Knowledge__kav/{article['Id']}/view"))
    assert '<article class="card knowledge-article"' in page and article["Title"] in unescape(page)


def test_an_article_page_shows_its_text_as_stored(ui: FlaskClient, running: RunningOrg) -> None:
    """Numbered and bulleted lines keep their numbers and bullets, a paragraph's lines stay in one paragraph:
    reading the page back gives the article's text (what a reader quotes, and what a span counts)."""
    body = "Steps:\n1. Rinse &amp; dry.\n2. Don&#39;t iron.\n\nNotes:\n- Cold wash\n- Air dry"
    admin = running.app.extensions["crmarena"].auth.admin
    article_id = running.org.create(
        "Knowledge__kav", {"Title": "Care steps", "UrlName": "care-steps", "FAQ_Answer__c": body}, user_id=admin.id
    )
    page = text(ui.get(f"/lightning/r/Knowledge__kav/{article_id}/view"))
    shown = page.split('id="article-body"', 1)[1].split("</article>", 1)[0]
    paragraphs = re.findall(r'<div class="article-paragraph" role="group">(.*?)</div>', shown, re.S)
    lines = [[unescape(line) for line in re.findall(r"(?:<p>|<li>|<br>)([^<]+)", part)] for part in paragraphs]
    assert lines == [["Steps:", "1. Rinse & dry.", "2. Don't iron."], ["Notes:", "- Cold wash", "- Air dry"]]
    assert "<ol><li>1. Rinse" in shown and "<ul><li>- Cold wash" in shown


def test_unknown_records_and_pages_are_not_found(ui: FlaskClient) -> None:
    for path in (
        "/lightning/r/Case/500000000000000AAA/view",
        "/lightning/r/Case/nonsense/view",
        "/lightning/o/Bogus__c/list",
        "/lightning/o/Organization/list",
        "/lightning/whatever/else",
    ):
        answer = ui.get(path)
        assert answer.status_code == 404 and answer.content_type.startswith("text/html"), path
    assert ui.get(f"/lightning/r/{ACCOUNTS[0]}/view").headers["Location"] == f"/lightning/r/Account/{ACCOUNTS[0]}/view"


def test_search_groups_results_by_object(ui: FlaskClient, running: RunningOrg) -> None:
    page = text(ui.get("/lightning/search?q=Bulk Item 01*"))
    found = running.org.search("FIND {Bulk Item 01*} IN ALL FIELDS RETURNING Product2(Id LIMIT 25)")["searchRecords"]
    assert sorted(row_ids(page, "results-table-Product2")) == sorted(record["Id"] for record in found)
    assert 'id="results-Product2"' in page
    odd = text(ui.get("/lightning/search", query_string={"q": "a} OR {b (c) 'd'"}))  # reserved characters are text
    assert 'id="search-error"' not in odd
    short = text(ui.get("/lightning/search?q=a"))
    assert 'id="search-error"' in short


def test_the_console_runs_soql_and_sosl_and_shows_errors(ui: FlaskClient, running: RunningOrg) -> None:
    token = form_token(ui, "/lightning/setup/query")
    soql = "SELECT Name, (SELECT LastName FROM Contacts) FROM Account ORDER BY Name LIMIT 3"
    page = text(ui.post("/lightning/setup/query", data={"csrf_token": token, "q": soql}))
    names = [record["Name"] for record in running.org.query(soql)["records"]]
    assert 'id="total-size" data-count="3"' in page and all(name in unescape(page) for name in names)
    assert '<th scope="col">Contacts</th>' in page  # child records nest in their cell
    page = text(
        ui.post(
            "/lightning/setup/query",
            data={"csrf_token": token, "q": "FIND {Walker} RETURNING Account(Name), Contact(Name)"},
        )
    )
    assert "<caption>Account</caption>" in page and "<caption>Contact</caption>" in page
    page = text(ui.post("/lightning/setup/query", data={"csrf_token": token, "q": "SELECT Nme FROM Account"}))
    assert "<code>INVALID_FIELD</code>" in page and "ERROR at Row:1:Column:8" in page
    paged = text(ui.post("/lightning/setup/query", data={"csrf_token": token, "q": "SELECT Id FROM Product2"}))
    assert 'id="next-records"' not in paged or 'name="locator"' in paged


def test_records_are_created_edited_and_deleted_through_forms(ui: FlaskClient, running: RunningOrg) -> None:
    token = form_token(ui, "/lightning/o/Case/new")
    answer = ui.post(
        "/lightning/o/Case/new",
        data={"csrf_token": token, "Subject": "Made in the UI", "Status": "New", "AccountId": ACCOUNTS[1]},
    )
    assert answer.status_code == 303, re.findall(r'id="form-error-message">[^<]*', answer.get_data(as_text=True))
    case_id = answer.headers["Location"].split("/")[4]
    case = running.org.retrieve("Case", case_id)
    assert (case["Subject"], case["Status"], case["AccountId"]) == ("Made in the UI", "New", ACCOUNTS[1])
    before = case["LastModifiedDate"]
    form = text(ui.get(f"/lightning/r/Case/{case_id}/edit"))
    assert 'value="Made in the UI"' in form
    ui.post(
        f"/lightning/r/Case/{case_id}/edit",
        data={"csrf_token": token, "Subject": "Made in the UI", "Status": "New", "AccountId": ACCOUNTS[1]},
    )
    assert running.org.retrieve("Case", case_id)["LastModifiedDate"] == before  # nothing changed, nothing written
    answer = ui.post(
        f"/lightning/r/Case/{case_id}/edit",
        data={"csrf_token": token, "Subject": "Edited", "Status": "Working", "AccountId": ACCOUNTS[1]},
    )
    assert answer.status_code == 303 and running.org.retrieve("Case", case_id)["Status"] == "Working"
    refused = text(ui.post(f"/lightning/r/Case/{case_id}/edit", data={"csrf_token": token, "AccountId": "001bad"}))
    assert 'id="form-error-code">MALFORMED_ID<' in refused and 'aria-invalid="true"' in refused
    answer = ui.post(f"/lightning/r/Case/{case_id}/delete", data={"csrf_token": token})
    assert answer.status_code == 303 and "toast=deleted" in answer.headers["Location"]
    assert running.org.query(f"SELECT COUNT() FROM Case WHERE Id = '{case_id}'")["totalSize"] == 0
    missing = text(ui.post("/lightning/o/Product2/new", data={"csrf_token": token, "ProductCode": "X"}))
    assert "REQUIRED_FIELD_MISSING" in missing


def test_a_read_only_org_refuses_writes_on_the_page(read_only_ui: FlaskClient, running: RunningOrg) -> None:
    token = form_token(read_only_ui, f"/lightning/r/Product2/{PRODUCTS[0]}/edit")
    name = running.org.retrieve("Product2", PRODUCTS[0])["Name"]
    for path, data in [
        (f"/lightning/r/Product2/{PRODUCTS[0]}/edit", {"Name": "Renamed"}),
        ("/lightning/o/Product2/new", {"Name": "New one"}),
        (f"/lightning/r/Product2/{PRODUCTS[0]}/delete", {}),
    ]:
        page = text(read_only_ui.post(path, data={"csrf_token": token, **data}))
        assert "INSUFFICIENT_ACCESS_OR_READONLY" in page and "This org is read-only" in page, path
    assert running.org.retrieve("Product2", PRODUCTS[0])["Name"] == name

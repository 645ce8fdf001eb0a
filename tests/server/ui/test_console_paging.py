"""The query console's "Next records" (issue 25, problem 10): the locator of a query serves only the
user who opened it, so the console asks for the next page as that user; it always failed with
INVALID_QUERY_LOCATOR."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from mock_org.server.serve import serve_org
from tests.mock_org.builder import build_org, rid

from ..conftest import server_records
from .pages import form_token, log_in

PRODUCTS = 2_300  # more than one page of 2,000


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """The console of an org with more products than a page holds, logged in as its administrator."""
    records = server_records()
    records["Product2"] = [
        {"Id": rid("01t", 5000 + i), "Name": f"Paged {i:04d}", "IsActive": 1} for i in range(PRODUCTS)
    ]
    path = tmp_path_factory.mktemp("paged") / "org.db"
    build_org(path, records).close()
    with serve_org(path, today="2023-05-15") as served:
        client = served.app.test_client()
        log_in(client, served.username, served.password)
        yield client


def test_the_console_pages_through_a_query(console: FlaskClient) -> None:
    token = form_token(console, "/lightning/setup/query")
    soql = "SELECT Id, Name FROM Product2 ORDER BY Name"
    seen: list[str] = []
    page = console.post("/lightning/setup/query", data={"csrf_token": token, "q": soql}).get_data(as_text=True)
    pages = 1
    while True:
        assert 'id="query-error"' not in page, re.findall(r'<pre id="query-error"[^>]*>[^<]*', page)
        seen += re.findall(r"Paged \d{4}", page.split('id="query-json"')[0])
        locator = re.search(r'name="locator" value="([^"]+)"', page)
        if locator is None:
            break
        page = console.post(
            "/lightning/setup/query", data={"csrf_token": token, "q": soql, "locator": locator.group(1)}
        ).get_data(as_text=True)
        pages += 1
    assert pages == 2
    assert seen == [f"Paged {i:04d}" for i in range(PRODUCTS)]

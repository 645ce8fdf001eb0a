"""The UI in a real browser: headless chromium on the default CRMArena org over HTTPS, as a person or a
browser agent would use it. One browser for the module; every page is checked for console errors and
photographed into the test's output directory."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fixtures import default_org
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org

from .browser import ARGS, CHROMIUM, ensure_browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    reason = ensure_browser()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="crmarena-chromium-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=ARGS,
            ignore_https_errors=True,
            viewport={"width": 1280, "height": 900},
        )
        yield context
        context.close()


@pytest.fixture(scope="module")
def default(tls_files: tls.TlsFiles) -> Iterator[RunningOrg]:
    with serve_org(default_org(), today="2023-05-15", tls_files=tls_files) as running:
        yield running


@pytest.fixture(scope="module")
def read_only(org_dump: Path, tls_files: tls.TlsFiles) -> Iterator[RunningOrg]:
    with serve_org(org_dump, read_only=True, tls_files=tls_files) as running:
        yield running


SCREENSHOT_TIMEOUT_MS = 120_000


class Tab:
    """One browser page that records console errors and saves a screenshot of every step."""

    def __init__(self, context: Any, out: Path) -> None:
        self.page = context.new_page()
        self.out = out
        self.errors: list[str] = []
        self.shots: list[Path] = []
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def shot(self, name: str) -> None:
        path = self.out / f"{len(self.shots):02d}-{name}.png"
        # A full-page shot of a tall page (a case's whole conversation) on a loaded 2-core machine can pass
        # Playwright's default 30 s.
        self.page.screenshot(path=str(path), full_page=True, timeout=SCREENSHOT_TIMEOUT_MS)
        self.shots.append(path)
        assert self.errors == [], f"console errors on {self.page.url}: {self.errors}"

    def log_in(self, running: RunningOrg) -> None:
        self.page.goto(running.url + "/lightning/o/Case/list")
        assert "/?startURL=" in self.page.url
        self.page.get_by_label("Username").fill(running.username)
        self.page.get_by_label("Password").fill(running.password)
        self.page.get_by_role("button", name="Log In").click()
        self.page.wait_for_url("**/lightning/o/Case/list")


def test_a_support_session_in_the_browser(browser: Any, default: RunningOrg, tmp_path: Path) -> None:
    tab = Tab(browser, tmp_path)
    page = tab.page
    tab.page.goto(default.url + "/")
    tab.shot("login")
    tab.log_in(default)
    total = int(page.locator("#row-count").get_attribute("data-count"))
    assert total == default.org.query("SELECT COUNT() FROM Case")["totalSize"]
    tab.shot("cases")

    page.get_by_role("link", name="Priority").click()  # sort by a column
    assert page.locator("#list-table-col-Priority").get_attribute("aria-sort") == "ascending"
    priorities = page.locator("#list-table tbody tr td:nth-child(4)").all_inner_texts()
    order = ["High", "Medium", "Low"]  # picklists sort in definition order
    assert [order.index(p) for p in priorities] == sorted(order.index(p) for p in priorities)
    page.get_by_label("Field").select_option(label="Status")
    page.get_by_label("Operator").select_option(label="equals")
    page.get_by_label("Value").fill("New")
    page.get_by_role("button", name="Apply").click()
    new = default.org.query("SELECT COUNT() FROM Case WHERE Status = 'New'")["totalSize"]
    assert int(page.locator("#row-count").get_attribute("data-count")) == new < total
    assert set(page.locator("#list-table tbody tr td:nth-child(3)").all_inner_texts()) == {"New"}
    tab.shot("cases-filtered")

    case = default.org.query(
        "SELECT Id, CaseNumber, Account.Name, AccountId FROM Case WHERE Id IN "
        "(SELECT CaseId FROM LiveChatTranscript) AND Id IN "
        "(SELECT CaseId__c FROM CaseHistory__c) LIMIT 1"
    )["records"][0]
    page.goto(f"{default.url}/lightning/r/Case/{case['Id']}/view")
    assert page.locator("#record-title").inner_text() == case["CaseNumber"]
    chat = default.org.query(f"SELECT Body FROM LiveChatTranscript WHERE CaseId = '{case['Id']}'")["records"][0]
    first_line = re.sub(r"^\[[^\]]*\] [^:]*: ", "", chat["Body"].splitlines()[0]).replace("&#39;", "'")
    turns = page.get_by_role("log", name="Messages").locator("li")
    assert turns.count() == len(chat["Body"].splitlines())
    assert turns.first.locator(".text").inner_text() == first_line.replace("&amp;", "&")
    history = default.org.query(f"SELECT COUNT() FROM CaseHistory__c WHERE CaseId__c = '{case['Id']}'")["totalSize"]
    assert page.locator("#related-table-CaseHistories__r tbody tr").count() == min(history, 10)
    tab.shot("case")

    page.locator("#details-AccountId a").click()  # follow the lookup
    page.wait_for_url(f"**/lightning/r/Account/{case['AccountId']}/view")
    assert page.locator("#record-title").inner_text() == case["Account"]["Name"]
    cases = default.org.query(f"SELECT COUNT() FROM Case WHERE AccountId = '{case['AccountId']}'")["totalSize"]
    assert page.locator("#related-table-Cases tbody tr").count() == min(cases, 10)
    # An account's chats are a related list (first rows, then View All), not its cases' threads read in full.
    chats = default.org.query(f"SELECT COUNT() FROM LiveChatTranscript WHERE AccountId = '{case['AccountId']}'")
    assert page.locator("#related-table-LiveChatTranscripts tbody tr").count() == min(chats["totalSize"], 10) > 0
    assert page.locator("#conversation").count() == 0
    tab.shot("account")

    product = default.org.query("SELECT Name FROM Product2 ORDER BY Name LIMIT 1")["records"][0]["Name"]
    word = product.split()[-1]
    page.get_by_role("searchbox", name="Search the org").fill(word)
    page.keyboard.press("Enter")
    page.wait_for_url("**/lightning/search?q=*")
    results = page.locator("#results-table-Product2")
    assert results.get_by_role("link", name=product, exact=True).count() == 1
    tab.shot("search")

    page.get_by_role("link", name="Query Console").click()
    page.get_by_label("SOQL query or SOSL search").fill(
        "SELECT Id, Name, Account.Name FROM Contact ORDER BY Name LIMIT 7"
    )
    page.get_by_role("button", name="Run").click()
    assert page.locator("#total-size").inner_text() == "7"
    assert page.locator("#result-grid-1 tbody tr").count() == 7
    assert page.locator("#result-grid-1 thead th").all_inner_texts() == ["Id", "Name", "Account.Name"]
    tab.shot("console")
    page.get_by_label("SOQL query or SOSL search").fill("SELECT Id FORM Case")
    page.get_by_role("button", name="Run").click()
    error = page.locator("#query-error").inner_text()
    assert (
        "^" in error
        and "ERROR at Row:1:Column:" in error
        and page.locator("#query-error-code").inner_text() == ("MALFORMED_QUERY")
    )
    tab.shot("console-error")

    page.get_by_role("button", name="Log Out").click()
    page.wait_for_url("**/?loggedOut=1")
    page.goto(default.url + "/lightning/page/home")
    assert "/?startURL=" in page.url and page.get_by_role("button", name="Log In").count() == 1
    tab.shot("logged-out")
    assert len(tab.shots) == 9 and all(shot.stat().st_size > 5000 for shot in tab.shots)


def test_a_write_on_a_read_only_org_is_refused(browser: Any, read_only: RunningOrg, tmp_path: Path) -> None:
    tab = Tab(browser, tmp_path)
    page = tab.page
    tab.log_in(read_only)
    assert page.locator("#read-only-banner").is_visible()
    page.locator("#list-table tbody th a").first.click()
    subject = page.locator("#details-Subject dd").inner_text()
    page.get_by_role("link", name="Edit").click()
    page.get_by_label("Subject").fill("Changed in the browser")
    page.get_by_role("button", name="Save").click()
    alert = page.get_by_role("alert")
    assert "read-only" in alert.inner_text() and page.locator("#form-error-code").inner_text() == (
        "INSUFFICIENT_ACCESS_OR_READONLY"
    )
    tab.shot("read-only-refusal")
    case_id = page.url.split("/")[-2]
    assert (read_only.org.retrieve("Case", case_id)["Subject"] or "") == subject != "Changed in the browser"

"""The case page reads right: Case History names the users of an owner change (their names, linked,
never a raw 005… Id), every time says its time zone, and the related lists stay inside their cards in
a 1,280-pixel browser window."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from mock_org.server.serve import RunningOrg
from tests.mock_org.conftest import AGENT_A, AGENT_B, CASES

from .test_browser import Tab, browser, default  # noqa: F401 - the browser tests' fixtures
from .test_pages import text

TIME = re.compile(r'<time datetime="(?P<wire>[^"]+)" title="[^"]+">(?P<shown>[^<]+)</time>')


def history_table(page: str) -> str:
    return page.split('id="related-table-CaseHistories__r"', 1)[1].split("</table>", 1)[0]


def test_case_history_shows_the_names_of_the_users_an_owner_change_holds(ui: FlaskClient, running: RunningOrg) -> None:
    names = {
        user["Id"]: user["Name"]
        for user in running.org.query(f"SELECT Id, Name FROM User WHERE Id IN ('{AGENT_A}', '{AGENT_B}')")["records"]
    }
    for path in (f"/lightning/r/Case/{CASES[0]}/view", f"/lightning/r/Case/{CASES[0]}/related/CaseHistories__r/view"):
        page = text(ui.get(path))
        table = history_table(page) if "related-table" in page else page.split('id="list-table"', 1)[1]
        for agent in (AGENT_A, AGENT_B):
            assert (
                f'<a href="/lightning/r/User/{agent}/view" data-record-id="{agent}">{escape(names[agent])}</a>' in table
            )
            assert f">{agent}<" not in table  # the Id is in the link, never shown as text
    change = running.org.query(f"SELECT Id FROM CaseHistory__c WHERE OldValue__c = '{AGENT_B}'")["records"][0]["Id"]
    record = text(ui.get(f"/lightning/r/CaseHistory__c/{change}/view"))
    old_value = record.split('data-field="OldValue__c">', 1)[1].split("</dd>", 1)[0]
    assert f'href="/lightning/r/User/{AGENT_B}/view"' in old_value and escape(names[AGENT_B]) in old_value
    assert "Owner Assignment" in record  # other text stays text


def test_every_time_on_the_case_page_says_its_time_zone(ui: FlaskClient, running: RunningOrg) -> None:
    page = text(ui.get(f"/lightning/r/Case/{CASES[0]}/view"))
    times = TIME.findall(page)
    assert times
    for wire, shown in times:
        assert re.fullmatch(r"\d{1,2}/\d{1,2}/\d{4}, \d{1,2}:\d\d [AP]M [A-Z][A-Za-z0-9+-]{1,5}", shown), (wire, shown)


def test_related_lists_stay_inside_their_cards(browser: Any, default: RunningOrg, tmp_path: Path) -> None:  # noqa: F811
    tab = Tab(browser, tmp_path)
    tab.log_in(default)
    case = default.org.query(
        "SELECT Id FROM Case WHERE Id IN (SELECT ParentId FROM EmailMessage) AND Id IN "
        "(SELECT CaseId__c FROM CaseHistory__c WHERE Field__c = 'Owner Assignment') "
        "LIMIT 1"
    )["records"][0]["Id"]
    tab.page.goto(f"{default.url}/lightning/r/Case/{case}/view")
    tab.shot("case")
    overflow = tab.page.evaluate("""() => [...document.querySelectorAll('.related-list')].map((card) => {
        const table = card.querySelector('table');
        if (!table) return null;
        const shown = (table.closest('.table-scroll') || table).getBoundingClientRect();
        return shown.right - card.getBoundingClientRect().right;
    }).filter((excess) => excess !== null && excess > 0.5)""")
    assert overflow == [], overflow  # no related list reaches past its card's edge
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= 1280
    history = tab.page.locator("#related-table-CaseHistories__r")
    assert not re.search(r"\b005\w{15}\b", history.inner_text())  # names, not User Ids
    assert history.locator("a[href^='/lightning/r/User/']").count() >= 1

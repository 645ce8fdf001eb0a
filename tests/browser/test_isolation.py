"""Eight browser episodes at once on one served org, each in its own browser context and UI session with its
own "today" (the session clock a run sets per instance), each writing through the edit form into a record of
its own: none sees another's session, clock or write."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from eval_suite.agents.ui_pages import field
from eval_suite.browser.session import BrowserEpisode, BrowserPool
from fixtures.default import default_org
from mock_org.clock import OrgClock
from mock_org.copies import prepared_copy
from mock_org.server.serve import serve_org

EPISODES = 8
DAYS = ("2020-01-15", "2020-04-20", "2020-07-02", "2020-10-11", "2021-01-30", "2021-05-05", "2021-09-09", "2022-02-14")
COUNT = re.compile(r"StaticText '([\d,]+) items?")


def bid(tree: str, role: str, name: str) -> str:
    match = re.search(rf"\[(\d+)\] {role} {re.escape(repr(name))}", tree)
    assert match, f"no {role} {name!r} on the page:\n{tree[:3000]}"
    return match.group(1)


def test_eight_parallel_episodes_keep_their_sessions_days_and_writes_apart(tmp_path: Path) -> None:
    org_path = prepared_copy(Path(default_org()), tmp_path / "org.db")
    with serve_org(org_path, today="2023-05-15") as running:
        auth = running.app.extensions["crmarena"].auth
        cases = [record["Id"] for record in running.org.query("SELECT Id FROM Case ORDER BY Id LIMIT 8")["records"]]
        before = "SELECT COUNT() FROM Case WHERE CreatedDate < TODAY"
        expected = [running.org.query(before, clock=OrgClock.for_date(day))["totalSize"] for day in DAYS]
        assert len(set(expected)) == EPISODES  # each day gives its own count: a borrowed "today" would show
        pool = BrowserPool()

        def episode(number: int) -> tuple[int, int, str]:
            sid = auth.issue(auth.admin, clock=OrgClock.for_date(DAYS[number]))
            browser = BrowserEpisode(pool.host(), running.url, sid)
            try:
                form = browser.step(f'goto("/lightning/r/Case/{cases[number]}/edit")').axtree_txt
                browser.step(f'fill("{bid(form, "textbox", "Subject")}", "written by episode {number}")')
                saved = browser.step(f'click("{bid(form, "button", "Save")}")')
                if "/edit" in saved.url:  # the click's 5 s ran out before the form went (a busy machine): again
                    saved = browser.step(f'click("{bid(form, "button", "Save")}")')
                assert "/edit" not in saved.url, saved.last_action_error
                listed = browser.step('goto("/lightning/o/Case/list?field=CreatedDate&op=less&value=TODAY")')
                counted = COUNT.search(listed.axtree_txt)
                assert counted, listed.axtree_txt[:3000]
                shown = browser.step(f'goto("/lightning/r/Case/{cases[number]}/view")').axtree_txt
                return number, int(counted.group(1).replace(",", "")), field(shown, "Subject")
            finally:
                browser.close()

        try:
            with ThreadPoolExecutor(EPISODES) as workers:
                results = sorted(workers.map(episode, range(EPISODES)))
        finally:
            pool.close()
        listed = ", ".join(f"'{case_id}'" for case_id in cases)
        found = running.org.query(f"SELECT Id, Subject FROM Case WHERE Id IN ({listed})")["records"]
        stored = {record["Id"]: record["Subject"] for record in found}
    assert [count for _, count, _ in results] == expected
    assert [subject for _, _, subject in results] == [f"written by episode {number}" for number in range(EPISODES)]
    assert [stored[case_id] for case_id in cases] == [f"written by episode {number}" for number in range(EPISODES)]

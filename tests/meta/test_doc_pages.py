"""The README and docs/ hold together: every link and image between them leads somewhere (a file, and a
heading when the link names one), every page of docs/ is reachable from the README, and the canary they
quote is the one the task files carry."""

from __future__ import annotations

import re
from pathlib import Path

from fixtures.tasks.model import CANARY
from tests import documentation

GUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in documentation.links(page):
        if re.match(r"[a-z]+:", target):
            continue  # a web address: tests never reach the internet
        file, _, fragment = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        if not path.is_file():
            broken.append(f"{page.name}: {target} (no such file)")
        elif fragment and (path.suffix != ".md" or fragment not in documentation.anchors(path)):
            broken.append(f"{page.name}: {target} (no such heading)")
    return broken


def test_every_link_and_image_leads_somewhere() -> None:
    assert [problem for page in documentation.pages() for problem in broken_links(page)] == []


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {
        (documentation.ROOT / target.partition("#")[0]).resolve()
        for target in documentation.links(documentation.README)
    }
    assert sorted(page.name for page in documentation.pages()[1:] if page.resolve() not in linked) == []


def test_the_docs_quote_the_canary_of_the_task_files() -> None:
    quoted = re.findall(rf"canary (?:string|GUID) `({GUID})`", documentation.text())
    assert quoted and set(quoted) == {CANARY}

"""The browser lane's tests need Debian's chromium and the Playwright driver; without them they skip, saying why."""

from __future__ import annotations

import pytest

from eval_suite.browser.session import chromium_missing


@pytest.fixture(scope="session", autouse=True)
def chromium() -> None:
    reason = chromium_missing()
    if reason:
        pytest.skip(reason)

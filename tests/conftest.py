"""The opt-in switch for long checks: tests marked ``slow`` run only with ``--run-slow``, so the
default suite stays fast on a 2-core CI machine."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run the long checks marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="a long check: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)

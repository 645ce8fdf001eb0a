"""The docs keep up with the server: every `crmarena serve` flag and every CRMARENA_ variable the org's
code reads is documented in the README or docs/ (tests/documentation.py)."""

from __future__ import annotations

import argparse
import re

from eval_suite.commands import serve
from fixtures import default_org
from tests import documentation

ROOT = documentation.ROOT
DOCS = documentation.text()


def test_every_serve_flag_is_documented() -> None:
    parser = argparse.ArgumentParser()
    serve.add(parser.add_subparsers(), default_org=default_org)
    command = parser._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    flags = {option for action in command._actions for option in action.option_strings if option.startswith("--")}
    missing = sorted(flag for flag in flags - {"--help"} if f"`{flag}" not in DOCS and f" {flag}" not in DOCS)
    assert missing == []


def test_every_environment_variable_is_documented() -> None:
    names = set()
    for path in (ROOT / "mock_org").rglob("*.py"):
        names |= set(re.findall(r"CRMARENA_[A-Z_]+", path.read_text(encoding="utf-8")))
    assert names and sorted(name for name in names if name not in DOCS) == []

"""The docs keep up with the harness: every `crmarena eval` and `rescore` flag and every environment
variable eval_suite reads is documented in the README or docs/ (tests/documentation.py)."""

from __future__ import annotations

import argparse
import re

from eval_suite.commands import evaluate
from tests import documentation

ROOT = documentation.ROOT
DOCS = documentation.text()


def test_every_eval_flag_is_documented() -> None:
    parser = argparse.ArgumentParser()
    evaluate.add(parser.add_subparsers())
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    flags = {
        option
        for name in ("eval", "rescore")
        for action in commands[name]._actions
        for option in action.option_strings
        if option.startswith("--")
    }
    assert sorted(flag for flag in flags - {"--help"} if f"`{flag}" not in DOCS) == []


def test_every_environment_variable_of_the_harness_is_documented() -> None:
    names = set()
    for path in (ROOT / "eval_suite").rglob("*.py"):
        if path.name == "registry.py":
            continue  # its __all__ names the constant CRMARENA_TOOLS, not a variable
        # names read from the environment are string literals
        names |= set(
            re.findall(r"[\"']((?:CRMARENA|SALESFORCE|OPENAI)_[A-Z_]+)[\"']", path.read_text(encoding="utf-8"))
        )
    assert names >= {"CRMARENA_TARGET", "CRMARENA_MOCK_URL", "SALESFORCE_DOMAIN", "OPENAI_BASE_URL"}
    assert sorted(name for name in names if name not in DOCS) == []


def test_the_docs_state_the_canary() -> None:
    assert re.search(r"canary string `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`", DOCS)

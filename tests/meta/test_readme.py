"""The README stays true: the quick start is two commands (CI runs the second, the first answers), the
command table names every `crmarena` command and only real ones, every flag is documented, the exit
codes are the code's, and the default org's date is the manifest's."""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path

from eval_suite.cli import build_parser
from mock_org import user_errors

ROOT = Path(__file__).resolve().parents[2]


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_two_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert "pip install" in commands[0]


def test_ci_runs_the_readme_test_command() -> None:
    test_command = quick_start_commands()[1]
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def command_table() -> list[str]:
    """The first cell of each row of the README's command table (`crmarena …`)."""
    readme = (ROOT / "README.md").read_text()
    table = readme.split("| command | what it does |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| `(crmarena [^`]*)`", table, re.M)


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every command and sub-command of `crmarena`, by its words (`fixtures build`)."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, words: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    found[f"{words} {name}".strip()] = child
                    walk(child, f"{words} {name}")

    walk(build_parser(), "")
    return {words: parser for words, parser in found.items() if not _has_children(parser)}


def _has_children(parser: argparse.ArgumentParser) -> bool:
    return any(isinstance(action, argparse._SubParsersAction) for action in parser._actions)


def test_the_command_table_names_every_command_and_only_real_ones() -> None:
    rows = command_table()
    commands = subcommands()
    named = {words for words in commands for row in rows if row == f"crmarena {words}"
             or row.startswith(f"crmarena {words} ")}  # fmt: skip
    assert sorted(set(commands) - named) == []
    for row in rows:
        words = row.removeprefix("crmarena ").split()
        assert words[0].startswith("--") or any(" ".join(words[: len(key.split())]) == key for key in commands), row


def test_every_flag_of_every_command_is_documented() -> None:
    readme = (ROOT / "README.md").read_text()
    missing = []
    for words, parser in [("", build_parser()), *subcommands().items()]:
        for action in parser._actions:
            for flag in action.option_strings:
                if flag.startswith("--") and flag != "--help" and f"`{flag}" not in readme and f" {flag}" not in readme:
                    missing.append(f"crmarena {words} {flag}")
    assert missing == []


def test_the_exit_code_table_matches_the_code() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("| code | meaning |", 1)[1].split("\n\n", 1)[0]
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.M)}
    codes = {value for name, value in vars(user_errors).items() if name.isupper() and isinstance(value, int)}
    assert documented == codes


def test_the_readme_states_the_default_org_reference_date() -> None:
    manifest = json.loads((ROOT / "fixtures" / "data" / "default" / "manifest.json").read_text())
    assert f"**{manifest['as_of_date']}**" in (ROOT / "README.md").read_text()


def test_the_quick_start_runs_the_oracle_on_the_default_org() -> None:
    from eval_suite.eval_cli import config_from

    command = shlex.split(quick_start_commands()[0].split("&& crmarena ", 1)[1])
    assert command[0] == "eval"
    settings = config_from(build_parser().parse_args(command)).check()
    assert settings.agent == "oracle" and settings.tasks_file is None and settings.db is None and settings.model is None

"""The README and docs/ stay true: the quick start is two commands (CI runs the second, the first answers),
the README is a front page of at most 200 lines whose command table names every `crmarena` command and only
real ones, each linked to its page, every flag is documented on that page or in docs/cli.md, the exit codes
are the code's, and the default org's date is the manifest's."""

from __future__ import annotations

import argparse
import json
import re
import shlex

import pytest

from eval_suite.commands.cli import build_parser
from mock_org import user_errors
from tests import documentation

ROOT = documentation.ROOT
README_TABLE = "| command | what it does | docs |"
CLI_TABLE = "| command | flags and what it does |"


def quick_start_commands() -> list[str]:
    readme = documentation.README.read_text(encoding="utf-8")
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


def command_table(header: str = README_TABLE, page: str = "README.md") -> list[str]:
    """The first cell of each row of a command table (`crmarena …`): the README's, or docs/cli.md's."""
    path = documentation.README if page == "README.md" else documentation.DOCS / page
    table = path.read_text(encoding="utf-8").split(header, 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| `(crmarena [^`]*)`", table, re.M)


def readme_rows() -> dict[str, list[str]]:
    """Each row of the README's command table: its command words → the docs pages the row links to."""
    table = documentation.README.read_text(encoding="utf-8").split(README_TABLE, 1)[1].split("\n\n", 1)[0]
    return {
        words: re.findall(r"\]\(docs/([^)#]+)", rest)
        for words, rest in re.findall(r"^\| `crmarena ([^`]*)` \|(.*)$", table, re.M)
    }


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


@pytest.mark.parametrize(("header", "page"), [(README_TABLE, "README.md"), (CLI_TABLE, "cli.md")])
def test_the_command_table_names_every_command_and_only_real_ones(header: str, page: str) -> None:
    rows = command_table(header, page)
    commands = subcommands()
    named = {
        words
        for words in commands
        for row in rows
        if row == f"crmarena {words}" or row.startswith(f"crmarena {words} ")
    }
    assert sorted(set(commands) - named) == []
    for row in rows:
        words = row.removeprefix("crmarena ").split()
        assert words[0].startswith("--") or any(" ".join(words[: len(key.split())]) == key for key in commands), row


def test_every_row_of_the_readme_command_table_links_to_a_docs_page() -> None:
    rows = readme_rows()
    assert rows and {words: pages for words, pages in rows.items() if not pages} == {}
    missing = {page for pages in rows.values() for page in pages if not (documentation.DOCS / page).is_file()}
    assert missing == set()


def pages_of(words: str) -> str:
    """What documents a command: the README, docs/cli.md and the pages its README row links to."""
    rows = readme_rows()
    linked = {page for row in rows if words and (row == words or row.startswith(f"{words} ")) for page in rows[row]}
    paths = [documentation.README, documentation.DOCS / "cli.md", *(documentation.DOCS / page for page in linked)]
    return "\n\n".join(path.read_text(encoding="utf-8") for path in paths)


def test_every_flag_of_every_command_is_documented_on_its_page() -> None:
    missing = []
    for words, parser in [("", build_parser()), *subcommands().items()]:
        text = pages_of(words)
        for action in parser._actions:
            for flag in action.option_strings:
                if (
                    flag.startswith("--")
                    and flag != "--help"
                    and not any(f"{before}{flag}" in text for before in "` [")
                ):
                    missing.append(f"crmarena {words} {flag}")
    assert missing == []


def test_the_exit_code_table_matches_the_code() -> None:
    table = documentation.text().split("| code | meaning |", 1)[1].split("\n\n", 1)[0]
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.M)}
    codes = {value for name, value in vars(user_errors).items() if name.isupper() and isinstance(value, int)}
    assert documented == codes


def test_the_docs_state_the_default_org_reference_date() -> None:
    manifest = json.loads((ROOT / "fixtures" / "data" / "default" / "manifest.json").read_text())
    assert f"**{manifest['as_of_date']}**" in documentation.text()


def test_the_quick_start_runs_the_oracle_on_the_default_org() -> None:
    from eval_suite.commands.evaluate import config_from

    command = shlex.split(quick_start_commands()[0].split("&& crmarena ", 1)[1])
    assert command[0] == "eval"
    settings = config_from(build_parser().parse_args(command)).check()
    assert settings.agent == "oracle" and settings.tasks_file is None and settings.db is None and settings.model is None


def test_the_readme_is_a_front_page_of_at_most_200_lines() -> None:
    assert len(documentation.README.read_text(encoding="utf-8").splitlines()) <= 200

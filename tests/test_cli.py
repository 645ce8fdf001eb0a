"""The `crmarena` command line."""

from __future__ import annotations

import json
import subprocess
import sys

from eval_suite.commands.cli import main


def test_help_lists_the_commands(capsys) -> None:
    assert main([]) == 0
    assert "parse" in capsys.readouterr().out


def test_parse_prints_canonical_text(capsys) -> None:
    assert main(["parse", "select id from case where status = 'New' limit 5"]) == 0
    assert capsys.readouterr().out.strip() == "SELECT id FROM case WHERE status = 'New' LIMIT 5"


def test_parse_reports_the_error_like_a_real_org(capsys) -> None:
    assert main(["parse", "--json", "SELECT Id FROM Case WHERE"]) == 1
    body = json.loads(capsys.readouterr().out)
    assert body[0]["errorCode"] == "MALFORMED_QUERY"
    assert body[0]["message"].endswith("ERROR at Row:1:Column:26\nunexpected token: <EOF>")


def test_sosl_errors_are_malformed_search(capsys) -> None:
    assert main(["parse", "--json", "FIND {a|b}"]) == 1
    assert json.loads(capsys.readouterr().out)[0]["errorCode"] == "MALFORMED_SEARCH"


def test_console_script_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "eval_suite.commands.cli", "parse", "FIND {x} RETURNING Account"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "FIND {x} RETURNING Account"

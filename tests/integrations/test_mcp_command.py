"""`crmarena mcp` where the mcp extra may be missing: the core package imports and works without it, the command
then says in one line what to install, and the extra is declared with a lower bound."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from mock_org import user_errors

ROOT = Path(__file__).resolve().parents[2]
# Python in which the MCP SDK cannot be imported, as in an installation without the extra.
WITHOUT_MCP = "import sys; sys.modules.update(dict.fromkeys(('mcp', 'mcp_types'))); "


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_without_the_extra_the_command_says_what_to_install_in_one_line() -> None:
    result = python(WITHOUT_MCP + "from eval_suite.commands.cli import main; sys.exit(main(['mcp']))")
    assert result.returncode == user_errors.UNAVAILABLE
    assert result.stdout == ""
    assert result.stderr.startswith("crmarena mcp needs the MCP SDK 2 (")
    assert result.stderr.endswith(": pip install 'crmarena-selfhosted[mcp]'\n") and result.stderr.count("\n") == 1


def test_without_the_extra_the_package_imports_and_lists_the_command() -> None:
    result = python(
        WITHOUT_MCP + "import eval_suite.integrations, eval_suite.commands.mcp, eval_suite.tools.registry; "
        "from eval_suite.commands.cli import main; main(['--help'])"
    )
    assert result.returncode == 0, result.stderr
    assert "    mcp " in result.stdout


def test_the_extra_names_the_sdk_with_a_lower_bound() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "crmarena-selfhosted"
    assert project["optional-dependencies"]["mcp"] == ["mcp>=2.0"]


@pytest.mark.parametrize("flags", [["--port", "8765"], ["--host", "127.0.0.1"]])
def test_host_and_port_without_http_are_a_usage_error(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", *flags]) == user_errors.USAGE
    assert capsys.readouterr().err == "crmarena mcp: --host and --port are for --transport http\n"

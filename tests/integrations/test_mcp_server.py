"""`crmarena mcp` as MCP clients meet it: the real command spawned and spoken to with the mcp library's
ClientSession, over standard input/output and over streamable HTTP. Its answers are compared with what the
agents' Toolbox gives on another served copy of the same org: same text, same error flag. Skipped without the
mcp extra (CI installs it); the refusal without the extra is tested in test_mcp_command.py.

Every server binds 127.0.0.1 on a free port and is stopped by its test; every client request has a timeout and
every scenario a deadline."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

import pytest
import requests

pytest.importorskip("mcp_types", reason="the mcp extra is not installed: pip install 'crmarena-selfhosted[mcp]'")

import anyio
import anyio.to_thread
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from eval_suite.commands.cli import main
from eval_suite.integrations.inprocess_backend import InProcessOrg
from eval_suite.integrations.served_org import ServedOrg
from eval_suite.tools import registry
from eval_suite.tools.catalog import registry_tools
from eval_suite.tools.toolbox import Toolbox
from fixtures import default_org
from mock_org import user_errors
from mock_org.server.serve import serve_org

REQUEST_TIMEOUT = 60.0  # seconds any one MCP request may go unanswered
SCENARIO_DEADLINE = 300.0  # seconds a whole client scenario may take (the server serves a copy of the org first)
ACCOUNTS = "SELECT Id, Name FROM Account ORDER BY Name LIMIT 3"
# Calls a client makes, and what each shows: records of a raw query and a search, a CRMArena tool, the org's
# refusal (INVALID_FIELD with its caret block) and arguments the tool does not take.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("issue_soql_query", {"query": ACCOUNTS}),
    ("issue_sosl_query", {"query": "FIND {Gregory} RETURNING Account(Id, Name)"}),
    ("search_knowledge_articles", {"search_term": "return policy"}),
    ("issue_soql_query", {"query": "SELECT Idd FROM Account"}),
    ("get_cases", {"case_id": "500000000000001"}),
]
T = TypeVar("T")


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    async def bounded() -> T:
        with anyio.fail_after(SCENARIO_DEADLINE):
            return await scenario()

    return anyio.run(bounded)


def server_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This session's environment without any org setting of the developer's (CRMARENA_TARGET, a mock URL,
    SALESFORCE_*): the server picks its org from ``extra`` and its flags alone. The cache stays shared."""
    kept = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("CRMARENA_", "SALESFORCE_", "REQUESTS_CA_BUNDLE")) or name == "CRMARENA_CACHE_DIR"
    }
    return kept | (extra or {})


def crmarena() -> list[str]:
    """The installed console script, as a client's configuration names it (else the module)."""
    script = Path(sys.executable).with_name("crmarena")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "eval_suite.commands.cli"]


@asynccontextmanager
async def stdio_session(errlog: IO[str], *args: str, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """A session with `crmarena mcp ARGS` spawned over stdio; the server ends when the client closes its stdin."""
    command, *prefix = crmarena()
    parameters = StdioServerParameters(command=command, args=[*prefix, "mcp", *args], env=server_environment(env))
    async with (
        stdio_client(parameters, errlog=errlog) as (read, write),
        ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT) as session,
    ):
        await session.initialize()
        yield session


def text_of(result: Any) -> str:
    assert [item.type for item in result.content] == ["text"]
    return str(result.content[0].text)


@pytest.fixture
def toolbox(crm_org: ServedOrg) -> Toolbox:
    """The agents' Toolbox on another served copy of the default org: what a model agent would read."""
    return Toolbox(crm_org.connect(), registry_tools())


def test_stdio_lists_the_tools_and_answers_as_the_agents_toolbox_does(toolbox: Toolbox, tmp_path: Path) -> None:
    async def scenario() -> tuple[Any, list[Any], Any]:
        with (tmp_path / "stderr.txt").open("w") as errlog:
            async with stdio_session(errlog) as session:
                listed = await session.list_tools()
                results = [await session.call_tool(name, arguments) for name, arguments in CALLS]
                respond = await session.call_tool("respond", {"content": "done"})
        return listed, results, respond

    listed, results, respond = run(scenario)
    tools = registry_tools()
    assert [tool.name for tool in listed.tools] == [tool.name for tool in tools]
    assert len(tools) == 26 and "respond" not in [tool.name for tool in tools]  # the agent loop's, not a tool
    for tool in listed.tools:
        schema = registry.TOOLS[tool.name].schema
        assert tool.input_schema == schema["parameters"] and tool.description == schema["description"]
    for (name, arguments), result in zip(CALLS, results, strict=True):
        expected = toolbox.call(name, arguments)
        assert (text_of(result), result.is_error) == (expected.text, expected.error), name
    accounts, _, articles, refused, bad_arguments = results
    assert not accounts.is_error and text_of(accounts).count("'Id': '001") == 3
    assert not articles.is_error and "'Title': " in text_of(articles)
    assert refused.is_error and text_of(refused).startswith("INVALID_FIELD: \nSELECT Idd FROM Account\n")
    assert bad_arguments.is_error and "case_id" in text_of(bad_arguments)
    assert respond.is_error and text_of(respond).startswith("Error: there is no tool named 'respond'.")
    banner = (tmp_path / "stderr.txt").read_text()
    assert "crmarena mcp: 26 tools of the mock org (a private read-only copy of " in banner
    assert "Traceback" not in banner


class HttpServer:
    """`crmarena mcp --transport http --port 0 ARGS` in a process of its own; its stderr is read on a thread, so
    the banner (which names the URL) is waited for with a timeout and the pipe never fills."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [*crmarena(), "mcp", "--transport", "http", "--port", "0", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=server_environment(),
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)
            self.lines.put(line)

    def url(self) -> str:
        try:
            banner = self.lines.get(timeout=SCENARIO_DEADLINE)
        except queue.Empty:
            pytest.fail(f"no banner from crmarena mcp within {SCENARIO_DEADLINE:.0f} s: {''.join(self.stderr)}")
        assert " on http://127.0.0.1:" in banner, banner
        return banner.split(" on ", 1)[1].split()[0]

    def stop(self) -> int:
        """SIGTERM, as a supervisor stops it: the command ends normally (exit 0), its org copy removed."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=60)
            raise


def test_streamable_http_serves_the_db_named_and_moves_its_clock_with_today(toolbox: Toolbox) -> None:
    before_setup = "SELECT Id FROM Account WHERE CreatedDate < TODAY LIMIT 2"
    server = HttpServer("--db", str(default_org()), "--today", "2019-01-01")
    try:
        url = server.url()

        async def scenario() -> tuple[Any, Any, Any]:
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT) as session,
            ):
                await session.initialize()
                return (
                    await session.list_tools(),
                    await session.call_tool("issue_soql_query", {"query": ACCOUNTS}),
                    await session.call_tool("issue_soql_query", {"query": before_setup}),
                )

        listed, accounts, early = run(scenario)
        # A page elsewhere cannot reach the server by DNS rebinding: a foreign Host header is refused.
        foreign = requests.post(url, json={}, headers={"Host": "attacker.example"}, timeout=REQUEST_TIMEOUT)
    finally:
        code = server.stop()
    assert code == user_errors.OK, "".join(server.stderr)
    assert len(listed.tools) == 26
    assert (text_of(accounts), accounts.is_error) == (toolbox.call("issue_soql_query", {"query": ACCOUNTS}).text, False)
    # On 2019-01-01 the org (set up on 2019-06-03) has no record created before today; on its own date it has.
    assert (text_of(early), early.is_error) == ("[]", False)
    assert toolbox.call("issue_soql_query", {"query": before_setup}).text.count("'Id': '001") == 2
    assert foreign.status_code in (400, 421)
    assert "Traceback" not in "".join(server.stderr)


def test_an_org_that_goes_away_is_a_tool_error_and_the_server_answers_again_when_it_is_back(tmp_path: Path) -> None:
    """Against a running mock (CRMARENA_MOCK_URL): while the org is gone a call is a tool error saying so (not a
    crash, not a hang); the server stays up, and once the org is back on its address the next call logs in anew."""
    org = InProcessOrg(default_org())
    port = int(org.url.rsplit(":", 1)[1])
    call = ("get_account_id_by_contact_id", {"contact_id": "003Ws0000000001IAA"})
    with ExitStack() as back:

        def serve_again() -> None:
            running = back.enter_context(serve_org(default_org(), port=port))
            assert (running.url, running.username, running.password) == (org.url, org.username, org.password)

        async def scenario() -> tuple[Any, Any, list[Any]]:
            with (tmp_path / "stderr.txt").open("w") as errlog:
                async with stdio_session(errlog, "--no-raw", env=org.environment | {"CRMARENA_MOCK_URL": org.url}) as s:
                    listed = await s.list_tools()
                    results = [await s.call_tool(*call)]
                    await anyio.to_thread.run_sync(org.close)  # the org goes away
                    results.append(await s.call_tool(*call))
                    listed_while_down = await s.list_tools()
                    await anyio.to_thread.run_sync(serve_again)
                    results.append(await s.call_tool(*call))
            return listed, listed_while_down, results

        try:
            listed, listed_while_down, (first, gone, again) = run(scenario)
        finally:
            org.close()
    assert [tool.name for tool in listed.tools] == [
        tool.name for tool in registry_tools() if tool.category != "raw SOQL/SOSL"
    ]
    assert listed_while_down == listed
    assert (first.is_error, text_of(first)) == (False, "001Ws0000000001IAA")
    assert gone.is_error and text_of(gone).startswith("Error: the org is unavailable (an infrastructure failure")
    assert "the org could not be reached" in text_of(gone)
    assert (again.is_error, text_of(again)) == (False, "001Ws0000000001IAA")
    stderr = (tmp_path / "stderr.txt").read_text()
    assert "crmarena mcp: get_account_id_by_contact_id: the org could not be reached" in stderr
    assert "Traceback" not in stderr


def test_an_org_that_is_down_at_start_is_one_line_and_exit_5() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # nothing listens on it once the probe closes
    result = subprocess.run(
        [*crmarena(), "mcp"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=server_environment(
            {"CRMARENA_MOCK_URL": f"https://127.0.0.1:{closed}", "CRMARENA_USERNAME": "a@b.c", "CRMARENA_PASSWORD": "x"}
        ),
        timeout=120,
    )
    assert result.returncode == user_errors.UNAVAILABLE
    assert result.stdout == ""
    assert result.stderr.startswith(
        f"crmarena mcp: the mock org at https://127.0.0.1:{closed} (CRMARENA_MOCK_URL) cannot"
    )
    assert "the org could not be reached" in result.stderr and result.stderr.count("\n") == 1


def test_a_port_in_use_is_refused_before_any_org_starts(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["mcp", "--transport", "http", "--port", str(port)]) == user_errors.UNAVAILABLE
    err = capsys.readouterr().err
    assert err == f"crmarena mcp: port {port} on 127.0.0.1 is in use; pick another with --port, or 0\n"


def test_today_on_a_real_org_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CRMARENA_TARGET", "salesforce")
    assert main(["mcp", "--today", "2024-05-01"]) == user_errors.USAGE
    assert capsys.readouterr().err == "crmarena mcp: --today sets a mock org's date; a real org has one clock\n"

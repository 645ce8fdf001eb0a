"""End to end with the official Salesforce MCP server (``@salesforce/mcp``, npm, installed by the test run),
driven over stdio by a small MCP client as an agent host drives it, against an org that ``sf org login
access-token`` authorized: get_username, list_all_orgs, run_soql_query (REST and Tooling API, parent paths,
child subqueries, aggregates, an error) and assign_permission_set.

Opt-in (``--run-slow``), like the sf CLI test whose installation it shares: Node 22 and the server weigh
several hundred MB.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from mock_org.server.serve import RunningOrg

from . import npm
from .conftest import Client
from .test_sf_cli import NODE_22, SfCli, _node_is_recent, sf, stored_org  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow

MCP_SERVER = "@salesforce/mcp@0.30.15"
PROTOCOL = "2025-06-18"


class StdioMcpClient:
    """JSON-RPC 2.0, one message a line, over a child process's stdin and stdout (the MCP stdio transport)."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.strip().startswith("{"):
                self.messages.put(json.loads(line))

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any], timeout: float = 120) -> dict[str, Any]:
        self._next_id += 1
        self._send({"id": self._next_id, "method": method, "params": params})
        while True:
            message = self.messages.get(timeout=timeout)
            if message.get("id") == self._next_id:
                assert "error" not in message, message
                return message["result"]

    def notify(self, method: str) -> None:
        self._send({"method": method})

    def call(self, tool: str, **arguments: Any) -> tuple[bool, str]:
        """A tool's text answer and whether the server flagged it as an error."""
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        return bool(result.get("isError")), "".join(part.get("text", "") for part in result["content"])


@pytest.fixture(scope="module")
def mcp(sf: SfCli, stored_org: str) -> Iterator[StdioMcpClient]:  # noqa: F811 (the fixtures above)
    packages = [MCP_SERVER] if _node_is_recent() else [MCP_SERVER, NODE_22]
    modules = npm.installed(*packages, timeout=900)
    command = [
        "node",
        str(modules / "@salesforce" / "mcp" / "bin" / "run.js"),
        "--orgs",
        stored_org,
        "--toolsets",
        "orgs,data,users",
        "--no-telemetry",
    ]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=sf.home,
        env=sf.env,
    )
    try:
        client = StdioMcpClient(process)
        info = {"name": "crmarena-tests", "version": "1.0"}
        client.request("initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": info})
        client.notify("notifications/initialized")
        yield client
    finally:
        process.terminate()
        process.wait(timeout=30)


def _records(text: str) -> dict[str, Any]:
    return json.loads(text.split("\n\n", 1)[1])


def test_tools_are_listed(mcp: StdioMcpClient) -> None:
    names = {tool["name"] for tool in mcp.request("tools/list", {})["tools"]}
    assert {"get_username", "list_all_orgs", "run_soql_query", "assign_permission_set"} <= names


def test_get_username_and_list_all_orgs(mcp: StdioMcpClient, sf: SfCli, running: RunningOrg) -> None:  # noqa: F811
    failed, text = mcp.call("get_username", directory=str(sf.home), defaultTargetOrg=False, defaultDevHub=False)
    assert not failed and running.username in text, text
    failed, text = mcp.call("list_all_orgs", directory=str(sf.home))
    assert not failed and running.username in text, text


def test_run_soql_query(mcp: StdioMcpClient, sf: SfCli, stored_org: str) -> None:  # noqa: F811
    ask = {"directory": str(sf.home), "usernameOrAlias": stored_org}
    failed, text = mcp.call(
        "run_soql_query", query="SELECT Name, Account.Name FROM Contact WHERE Name = 'kim lee'", **ask
    )
    assert not failed, text
    assert _records(text)["records"][0]["Account"]["Name"] == "kim lee"
    failed, text = mcp.call(
        "run_soql_query",
        query="SELECT Name, (SELECT LastName FROM Contacts) FROM Account WHERE Name = 'Ola Nordmann'",
        **ask,
    )
    assert _records(text)["records"][0]["Contacts"]["records"][0]["LastName"] == "Nordmann"
    failed, text = mcp.call(
        "run_soql_query", query="SELECT COUNT(Id) n FROM Contact WHERE IsPersonAccount = true", **ask
    )
    assert not failed and _records(text)["records"][0]["n"] >= 4, text
    failed, text = mcp.call("run_soql_query", query="SELECT Nme FROM Account", **ask)
    assert failed and "No such column 'Nme' on entity 'Account'" in text


def test_run_soql_query_with_the_tooling_api(mcp: StdioMcpClient, sf: SfCli, stored_org: str) -> None:  # noqa: F811
    ask = {"directory": str(sf.home), "usernameOrAlias": stored_org, "useToolingApi": True}
    soql = "SELECT QualifiedApiName, DataType FROM FieldDefinition WHERE EntityDefinition.QualifiedApiName = 'Case' AND QualifiedApiName = 'Subject'"
    failed, text = mcp.call("run_soql_query", query=soql, **ask)
    assert not failed, text
    assert _records(text)["records"][0]["DataType"].startswith("Text(")
    failed, text = mcp.call("run_soql_query", query="SELECT Id FROM Account", **ask)
    assert failed and "is not supported." in text and "Try not using the Tooling API" in text


def test_assign_permission_set(mcp: StdioMcpClient, sf: SfCli, stored_org: str, running: RunningOrg) -> None:  # noqa: F811
    client = Client("https", running)
    created = client.post(
        "/services/data/v59.0/sobjects/PermissionSet", json_body={"Name": "MCP_Tools", "Label": "MCP tools"}
    )
    assert created.status == 201, created.text
    failed, text = mcp.call(
        "assign_permission_set", permissionSetName="MCP_Tools", directory=str(sf.home), usernameOrAlias=stored_org
    )
    assert not failed and text == f"Assigned MCP_Tools to {running.username}", text
    soql = "SELECT Assignee.Username FROM PermissionSetAssignment WHERE PermissionSet.Name = 'MCP_Tools'"
    rows = client.get("/services/data/v59.0/query", params={"q": soql}).json()["records"]
    assert [row["Assignee"]["Username"] for row in rows] == [running.username]

"""Serves the CRMArena org on port 443 of this network namespace's loopback as ``login.salesforce.com`` (the
host Airbyte's Salesforce source logs in at) and runs the unmodified source as Airbyte's platform does,
one process per command: ``check``, ``discover``, ``read`` of Account, Contact and Case in full refresh
mode, then an incremental read, a few writes, and an incremental read from the state the first one left.
Prints what it saw as one JSON object.

Run by tests/server/test_airbyte.py inside ``unshare --net --mount``, with a private /etc/hosts
bind-mounted over the namespace's view (the machine's own file is never touched).
Environment: ORG_DUMP, TLS_DIR, WORK_DIR, HOST_NAME, AIRBYTE_PATH (the installed source, for its own processes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from mock_org.auth import DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET
from mock_org.clock import OrgClock
from mock_org.server.http import tls
from mock_org.server.serve import RunningOrg, serve_org
from tests.server.grants import refresh_token

HOST = os.environ["HOST_NAME"]
STREAMS = ("Account", "Contact", "Case")
WORK = Path(os.environ["WORK_DIR"])


def source(running: RunningOrg, *args: str) -> list[dict]:
    """``source-salesforce ARGS`` in its own process; its Airbyte messages (one JSON object a line)."""
    env = {**os.environ, "PYTHONPATH": os.environ["AIRBYTE_PATH"], "REQUESTS_CA_BUNDLE": str(running.ca_bundle)}
    command = [sys.executable, "-c", "from source_salesforce.run import run; run()", *args]
    result = subprocess.run(command, cwd=WORK, env=env, capture_output=True, text=True, timeout=600)
    (WORK / f"{args[0]}.log").write_text(result.stdout + result.stderr)  # for a reader of a failure
    messages = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    failures = [m for m in messages if m["type"] == "TRACE" and m["trace"]["type"] == "ERROR"]
    if result.returncode != 0 or failures:
        raise SystemExit(
            f"source-salesforce {args[0]} failed ({result.returncode}): {failures}\n{result.stderr[-3000:]}"
        )
    return messages


def config(running: RunningOrg) -> Path:
    """The source's config: the connected app and a refresh token, as Airbyte's OAuth flow leaves them."""
    path = WORK / "config.json"
    path.write_text(
        json.dumps(
            {
                "client_id": DEFAULT_CLIENT_ID,
                "client_secret": DEFAULT_CLIENT_SECRET,
                "is_sandbox": False,
                "refresh_token": refresh_token(running, f"https://{HOST}"),
                "start_date": "2019-01-01T00:00:00Z",
                "stream_slice_step": "P365D",
                "streams_criteria": [{"criteria": "exacts", "value": name} for name in STREAMS],
            }
        )
    )
    return path


def catalog(streams: list[dict], mode: str) -> Path:
    chosen = [
        {
            "stream": stream,
            "sync_mode": mode,
            "destination_sync_mode": "append" if mode == "incremental" else "overwrite",
            **({"cursor_field": stream["default_cursor_field"]} if mode == "incremental" else {}),
        }
        for stream in streams
        if stream["name"] in STREAMS
    ]
    path = WORK / f"catalog-{mode}.json"
    path.write_text(json.dumps({"streams": chosen}))
    return path


def records(messages: list[dict]) -> Counter:
    return Counter(message["record"]["stream"] for message in messages if message["type"] == "RECORD")


def main() -> None:
    files = tls.ensure(Path(os.environ["TLS_DIR"]), extra_names=(HOST,))
    seen: dict = {}
    # The org keeps the machine's time: the source bounds each sync by its own clock and resumes from there.
    with serve_org(Path(os.environ["ORG_DUMP"]), port=443, tls_files=files, clock=OrgClock()) as running:
        sf = running.connect()
        seen["org"] = {name: sf.query(f"SELECT COUNT() FROM {name}")["totalSize"] for name in STREAMS}
        settings = config(running)
        status = source(running, "check", "--config", str(settings))
        seen["check"] = [m["connectionStatus"]["status"] for m in status if m["type"] == "CONNECTION_STATUS"]
        streams = [m for m in source(running, "discover", "--config", str(settings)) if m["type"] == "CATALOG"]
        streams = streams[0]["catalog"]["streams"]
        seen["discovered"] = sorted(stream["name"] for stream in streams)
        seen["cursors"] = {s["name"]: s.get("default_cursor_field") for s in streams if s["name"] in STREAMS}
        seen["full"] = records(
            source(running, "read", "--config", str(settings), "--catalog", str(catalog(streams, "full_refresh")))
        )
        incremental = catalog(streams, "incremental")
        first = source(running, "read", "--config", str(settings), "--catalog", str(incremental))
        seen["incremental"] = records(first)
        states = [m["state"] for m in first if m["type"] == "STATE"]
        last = {state["stream"]["stream_descriptor"]["name"]: state for state in states}
        (WORK / "state.json").write_text(json.dumps(list(last.values())))
        changed = sf.query("SELECT Id FROM Case ORDER BY CaseNumber LIMIT 2")["records"]
        for record in changed:
            sf.Case.update(record["Id"], {"Priority": "High"})
        sf.Account.create({"Name": "Made between two syncs"})
        second = source(
            running,
            "read",
            "--config",
            str(settings),
            "--catalog",
            str(incremental),
            "--state",
            str(WORK / "state.json"),
        )
        seen["after_writes"] = records(second)
        seen["changed_seen"] = sorted(
            m["record"]["data"]["Id"]
            for m in second
            if m["type"] == "RECORD" and m["record"]["data"]["Id"] in {r["Id"] for r in changed}
        )
        seen["changed"] = sorted(record["Id"] for record in changed)
        seen["new_account_seen"] = any(
            m["record"]["data"].get("Name") == "Made between two syncs" for m in second if m["type"] == "RECORD"
        )
    json.dump(seen, sys.stdout)


main()

"""The lane end to end (slow): the default org pushed into an empty org served by `crmarena serve --empty`
over HTTPS, the push killed midway and run again, the tasks remapped, and the oracle scoring every task
there; an uninterrupted push into a second empty org gives the same org."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
from simple_salesforce import Salesforce

from eval_suite.lane.idmap import load_idmap
from eval_suite.lane.push import MATCHED
from eval_suite.lane.source import Dump
from fixtures import default_org
from fixtures.default import default_tasks

from .helpers import org_digest, source_digest

pytestmark = pytest.mark.slow
CRMARENA = [sys.executable, "-m", "eval_suite.commands.cli"]


@contextmanager
def served_empty_org(tls_dir: Path) -> Iterator[dict[str, str]]:
    """`crmarena serve --empty` on a free port; the environment that targets it as a real org."""
    server = subprocess.Popen(
        [*CRMARENA, "serve", "--empty", "--port", "0", "--tls-dir", str(tls_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        exported: dict[str, str] = {}
        for line in server.stdout:
            if found := re.match(r"export (\w+)=(.*)", line.strip()):
                exported[found[1]] = found[2].strip("'")
            if line.startswith("Ctrl-C"):
                break
        hostport = exported["CRMARENA_URL"].removeprefix("https://")
        yield {
            "CRMARENA_TARGET": "salesforce",
            "SALESFORCE_USERNAME": exported["CRMARENA_USERNAME"],
            "SALESFORCE_PASSWORD": exported["CRMARENA_PASSWORD"],
            "SALESFORCE_SECURITY_TOKEN": exported["CRMARENA_SECURITY_TOKEN"],
            "SALESFORCE_DOMAIN": f"{hostport}/login",
            "REQUESTS_CA_BUNDLE": exported["REQUESTS_CA_BUNDLE"],
        }
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)


def _login(env: dict[str, str]) -> Salesforce:
    session = requests.Session()
    session.verify, session.trust_env = env["REQUESTS_CA_BUNDLE"], False
    return Salesforce(
        username=env["SALESFORCE_USERNAME"],
        password=env["SALESFORCE_PASSWORD"],
        security_token=env["SALESFORCE_SECURITY_TOKEN"],
        domain=env["SALESFORCE_DOMAIN"],
        session=session,
    )


def _grant_audit_fields(sf: Salesforce, username: str) -> None:
    me = sf.query(f"SELECT Id FROM User WHERE Username = '{username}'")["records"][0]["Id"]
    permission_set = sf.PermissionSet.create(
        {"Name": "CRMArena_Lane", "Label": "CRMArena Lane", "PermissionsCreateAuditFields": True}
    )["id"]
    sf.PermissionSetAssignment.create({"AssigneeId": me, "PermissionSetId": permission_set})


def _push(env: dict[str, str], idmap: Path, kill_after: float | None = None) -> subprocess.CompletedProcess | None:
    command = [*CRMARENA, "org", "push", "--idmap", str(idmap), "--no-progress"]
    if kill_after is None:
        return subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True, timeout=3600)
    process = subprocess.Popen(command, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(kill_after)
    assert process.poll() is None, "the push ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    return None


def _digests(sf: Salesforce, dump: Dump, idmap_path: Path) -> dict[str, tuple[int, str]]:
    idmap = load_idmap(idmap_path)
    return {name: org_digest(sf, dump, idmap, name) for name in dump.objects if name not in MATCHED}


def test_the_default_org_pushed_into_an_empty_org_scores_every_task(tmp_path: Path) -> None:
    dump = Dump(default_org())
    interrupted, whole = tmp_path / "interrupted.json", tmp_path / "whole.json"
    with served_empty_org(tmp_path / "tls") as env:
        sf = _login(env)
        _grant_audit_fields(sf, env["SALESFORCE_USERNAME"])
        _push(env, interrupted, kill_after=25)
        assert interrupted.exists() and 0 < len(load_idmap(interrupted)) < 41_000
        done = _push(env, interrupted)
        assert done.returncode == 0, done.stderr
        remapped = tmp_path / "remapped.jsonl"
        remap = [*CRMARENA, "tasks", "remap", str(default_tasks()), "--idmap", str(interrupted), "--out", str(remapped)]
        assert subprocess.run(remap, capture_output=True).returncode == 0
        evaluation = subprocess.run(
            [
                *CRMARENA,
                "eval",
                "--agent",
                "oracle",
                "--tasks-file",
                str(remapped),
                "--out",
                str(tmp_path / "run"),
                "--no-progress",
            ],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=3600,
        )
        assert evaluation.returncode == 0, evaluation.stderr
        assert "attempts: 1170 passed" in evaluation.stdout
        report = tmp_path / "conformance.json"
        conformance = subprocess.run(
            [
                *CRMARENA,
                "conformance",
                "--a",
                "mock",
                "--b",
                "salesforce",
                "--idmap",
                str(interrupted),
                "--out",
                str(report),
                "--no-progress",
            ],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=3600,
        )
        assert conformance.returncode == 0, conformance.stdout[-5000:] + conformance.stderr[-2000:]
        assert json.loads(report.read_text())["summary"]["differences"] == 0
        after_kill = _digests(sf, dump, interrupted)
        sf.session.close()
    with served_empty_org(tmp_path / "tls") as env:
        sf = _login(env)
        _grant_audit_fields(sf, env["SALESFORCE_USERNAME"])
        started = time.monotonic()
        assert _push(env, whole).returncode == 0
        print(f"uninterrupted push of the scale-1 org: {time.monotonic() - started:.0f}s")
        uninterrupted = _digests(sf, dump, whole)
        sf.session.close()
    assert after_kill == uninterrupted
    assert uninterrupted == {name: source_digest(dump, name) for name in uninterrupted}

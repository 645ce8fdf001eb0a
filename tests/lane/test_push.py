"""crmarena org push on a small cut of the default org into an empty mock org: the same records, the
audit fields kept, users matched, and a push interrupted anywhere (kill -9 included) resumed without
a record made twice."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from eval_suite.lane.idmap import load_idmap, save_idmap
from eval_suite.lane.push import MATCHED, Pusher, PushRefused
from eval_suite.lane.source import Dump
from mock_org.user_errors import REFUSED

from .helpers import cut_dump, empty_org, org_digest, source_digest


@pytest.fixture(scope="module")
def cut(tmp_path_factory: pytest.TempPathFactory) -> Dump:
    return Dump(cut_dump(tmp_path_factory.mktemp("cut") / "crmarena.db"))


def _assert_same_org(sf, dump: Dump, idmap_path: Path) -> None:
    idmap = load_idmap(idmap_path)
    for name in dump.objects:
        if name not in MATCHED:
            assert org_digest(sf, dump, idmap, name) == source_digest(dump, name), name


def test_a_push_makes_the_dump_and_a_second_run_makes_nothing(cut: Dump, tmp_path: Path, monkeypatch, capsys) -> None:
    idmap_path = tmp_path / "idmap.json"
    with empty_org(cut.path) as org:
        for name, value in org.env().items():
            monkeypatch.setenv(name, value)
        args = ["org", "push", "--db", str(cut.path), "--idmap", str(idmap_path), "--no-progress"]
        assert main(args) == 0
        sf = org.connect()
        _assert_same_org(sf, cut, idmap_path)
        idmap = load_idmap(idmap_path)
        users = sf.query_all("SELECT Id, Username FROM User")["records"]
        by_name = {user["Username"]: user["Id"] for user in users}
        assert {idmap.objects["User"][row["Id"]] for row in cut.rows("User")} == {
            by_name[r["Username"]] for r in cut.rows("User")
        }
        assert all(target[3:5] == "Fr" for name, _, target in idmap if name not in MATCHED and name != "Pricebook2")
        total = sf.query("SELECT COUNT() FROM Case")["totalSize"]
        capsys.readouterr()
        assert main(args) == 0
        assert "pushed 0 records" in capsys.readouterr().out
        assert sf.query("SELECT COUNT() FROM Case")["totalSize"] == total


def test_a_missing_user_or_permission_is_refused_before_anything_is_made(
    cut: Dump, tmp_path: Path, monkeypatch, capsys
) -> None:
    with empty_org(cut.path, audit=False) as org:
        agent = cut.rows("User")[1]["Username"]
        lost = Pusher(
            org.connect(),
            cut,
            tmp_path / "lost.json",
            target={},
            progress=False,
            user_map={agent: "nobody@example.com"},
        )
        with pytest.raises(PushRefused, match=f"1 User record.* not in the org: {re.escape(agent)}"):
            lost.run()
        for name, value in org.env().items():
            monkeypatch.setenv(name, value)
        idmap_path = tmp_path / "idmap.json"
        assert main(["org", "push", "--db", str(cut.path), "--idmap", str(idmap_path), "--no-progress"]) == REFUSED
        error = capsys.readouterr().err
        assert "INVALID_FIELD_FOR_INSERT_UPDATE" in error and "Set Audit Fields upon Record Creation" in error
        sf = org.connect()
        assert all(
            sf.query(f"SELECT COUNT() FROM {name}")["totalSize"] == 0 for name in ("Account", "Product2", "Issue__c")
        )
        assert not (tmp_path / "idmap.json.pending").exists()


def test_a_request_the_org_committed_but_the_map_missed_is_found_not_made_again(cut: Dump, tmp_path: Path) -> None:
    idmap_path = tmp_path / "idmap.json"
    with empty_org(cut.path) as org:
        sf = org.connect()

        def stop_after_three(name: str, made: int) -> None:
            if name == "Case" and made >= 3:
                raise KeyboardInterrupt

        pusher = Pusher(sf, cut, idmap_path, target={}, batch_size=3, progress=False, after_batch=stop_after_three)
        with pytest.raises(KeyboardInterrupt):
            pusher.run()
        # The crash's worst moment: the org made the last request's records, the map was not saved yet.
        idmap = load_idmap(idmap_path)
        in_flight = sorted(idmap.objects["Case"])[-3:]
        for source_id in in_flight:
            del idmap.objects["Case"][source_id]
        save_idmap(idmap, idmap_path)
        (tmp_path / "idmap.json.pending").write_text(json.dumps({"object": "Case", "source_ids": in_flight}))
        Pusher(sf, cut, idmap_path, target={}, progress=False).run()
        assert sf.query("SELECT COUNT() FROM Case")["totalSize"] == len(cut.rows("Case"))
        _assert_same_org(sf, cut, idmap_path)


def test_kill_9_anywhere_then_run_again_gives_the_same_org(cut: Dump, tmp_path: Path) -> None:
    idmap_path = tmp_path / "idmap.json"
    with empty_org(cut.path) as org:
        env = {**os.environ, **org.env()}
        command = [
            sys.executable,
            "-m",
            "eval_suite.commands.cli",
            "org",
            "push",
            "--db",
            str(cut.path),
            "--idmap",
            str(idmap_path),
            "--batch-size",
            "2",
            "--no-progress",
        ]
        kills = 0
        for delay in (0.3, 0.6, 0.9):
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 60
            while not idmap_path.exists() and time.monotonic() < deadline and process.poll() is None:
                time.sleep(0.05)
            time.sleep(delay)
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                kills += 1
            process.wait()
        assert kills >= 1
        assert subprocess.run(command, env=env, capture_output=True).returncode == 0
        _assert_same_org(org.connect(), cut, idmap_path)

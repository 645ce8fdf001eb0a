"""crmarena tasks remap: every Id of the dump, in both forms, becomes the org's; an unknown one is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from eval_suite.lane.idmap import IdMap, save_idmap
from eval_suite.lane.remap import Remapper, UnmappedId
from mock_org.user_errors import INVALID_DATA

CASE, CASE_ORG = "500Ws0000000001IAA", "500Fr000000000aIAA"
USER, USER_ORG = "005Ws0000000002IAA", "005Fr0000000007IAA"


def _idmap() -> IdMap:
    idmap = IdMap()
    idmap.add("Case", CASE, CASE_ORG)
    idmap.add("User", USER, USER_ORG)
    return idmap


def test_both_forms_in_every_string_are_rewritten() -> None:
    remapper = Remapper(_idmap(), ["500", "005"])
    task = {
        "query": f"Who owns case {CASE[:15]}?",
        "answer": USER,
        "params": {"case_id": CASE},
        "reference": [
            {"tool": "soql", "args": {"q": f"SELECT OwnerId FROM Case WHERE Id = '{CASE}'"}},
            {"derive": "pick", "args": {"equals": [USER[:15], 3, None]}},
        ],
        "canary": "11e33fcc-cf0a-442a-9275-e5bc7a89cea7",
        "note": "ABCDEFGHIJKLMNOPQR is no Id, nor is 500 alone",
    }
    out = remapper.value(task, "t")
    assert out["query"] == f"Who owns case {CASE_ORG[:15]}?"
    assert out["answer"] == USER_ORG and out["params"] == {"case_id": CASE_ORG}
    assert out["reference"][0]["args"]["q"] == f"SELECT OwnerId FROM Case WHERE Id = '{CASE_ORG}'"
    assert out["reference"][1]["args"]["equals"] == [USER_ORG[:15], 3, None]
    assert out["canary"] == task["canary"] and out["note"] == task["note"]


def test_an_unknown_id_of_the_dump_is_refused_with_where_it_is() -> None:
    remapper = Remapper(_idmap(), ["500", "005"])
    with pytest.raises(UnmappedId, match=r"t\.params\.case_id: 500Ws0000000009IAA"):
        remapper.value({"params": {"case_id": "500Ws0000000009IAA"}}, "t")
    with pytest.raises(UnmappedId):
        remapper.value({"query": "case 500Ws0000000009 please"}, "t")


def _task(idx: int, answer: str) -> str:
    return (
        json.dumps(
            {
                "idx": idx,
                "task": "case_routing",
                "query": f"Who? ({idx})",
                "answer": answer,
                "metadata": {"required": "", "optional": ""},
            }
        )
        + "\n"
    )


def test_the_command_writes_atomically_and_refuses_without_writing(tmp_path: Path, capsys) -> None:
    idmap_path, tasks, out = tmp_path / "idmap.json", tmp_path / "tasks.jsonl", tmp_path / "out.jsonl"
    save_idmap(_idmap(), idmap_path)
    tasks.write_text(_task(0, CASE) + _task(1, USER))
    assert main(["tasks", "remap", str(tasks), "--idmap", str(idmap_path), "--out", str(out)]) == 0
    assert [json.loads(line)["answer"] for line in out.read_text().splitlines()] == [CASE_ORG, USER_ORG]
    before = out.read_text()
    tasks.write_text(_task(7, "500Ws0000000009IAA"))
    assert main(["tasks", "remap", str(tasks), "--idmap", str(idmap_path), "--out", str(out)]) == INVALID_DATA
    assert "idx 7" in capsys.readouterr().err and out.read_text() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    tasks.write_text(_task(8, CASE).replace('"query"', '"qeury"'))  # the one task-file loader checks every row
    assert main(["tasks", "remap", str(tasks), "--idmap", str(idmap_path), "--out", str(out)]) == 3
    assert "tasks.jsonl line 1: field 'query' is missing" in capsys.readouterr().err and out.read_text() == before

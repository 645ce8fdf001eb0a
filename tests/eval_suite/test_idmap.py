"""The Id map file: round trip, both Id forms, refusal of other files, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_suite.lane.idmap import IdMap, IdMapError, load_idmap, save_idmap


def test_round_trip_and_both_id_forms(tmp_path: Path) -> None:
    idmap = IdMap(source={"dump_sha256": "abc"}, target={"instance_url": "https://x"})
    idmap.add("Account", "001000000000001AAA", "001Hs00000AbCdEIAV")
    idmap.add("Case", "500000000000001AAA", "500Hs00000AbCdEIAV")
    path = tmp_path / "idmap.json"
    save_idmap(idmap, path)
    loaded = load_idmap(path)
    assert loaded == idmap and len(loaded) == 2
    flat = loaded.flat()
    assert flat["001000000000001"] == flat["001000000000001AAA"] == "001Hs00000AbCdEIAV"
    assert sorted(loaded) == [
        ("Account", "001000000000001AAA", "001Hs00000AbCdEIAV"),
        ("Case", "500000000000001AAA", "500Hs00000AbCdEIAV"),
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["idmap.json"]


@pytest.mark.parametrize(
    "text", ["[]", '{"format": "other"}', '{"format": "crmarena-idmap/1", "objects": {"A": 1}}', "not json"]
)
def test_other_files_are_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "idmap.json"
    path.write_text(text)
    with pytest.raises(IdMapError):
        load_idmap(path)


def test_a_failed_write_leaves_the_old_map(tmp_path: Path) -> None:
    path = tmp_path / "idmap.json"
    save_idmap(IdMap({"Account": {"a": "b"}}), path)
    broken = IdMap({"Account": {"a": object()}})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        save_idmap(broken, path)
    assert json.loads(path.read_text())["objects"] == {"Account": {"a": "b"}}
    assert [p.name for p in tmp_path.iterdir()] == ["idmap.json"]

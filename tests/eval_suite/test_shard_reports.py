"""``crmarena report`` over a sharded run: the shards merge into one row identical to a one-machine run
(scores and instance set), whether given as their folder or one by one; a shard missing or unfinished
is named, the row stays partial and the command exits 5; an attempt read twice is a warning; shards of
different runs in one folder are refused; and reading changes no file."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from eval_suite.reports.runs import ReportInputError, load_runs
from eval_suite.reports.table import build_rows
from eval_suite.run.records import RECORDS_FILE, SCORED, read_records
from mock_org.user_errors import BAD_FILE, OK, UNAVAILABLE

from .conftest import SHARDS


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``root``: its content's hash and its modification time."""
    return {
        str(path.relative_to(root)): (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def row_of(*paths: Path):  # type: ignore[no-untyped-def]
    (row,) = build_rows(load_runs(list(paths)))
    return row


def instance_set(records: list[dict]) -> set[tuple[int, int, str]]:
    return {(record["task_id"], record["trial"], record["task_type"]) for record in records}


@pytest.fixture
def sweep(oracle_sweep: dict[str, Path], tmp_path: Path) -> Path:
    """A copy of the 4 shards' folder that a test may change."""
    return Path(shutil.copytree(oracle_sweep["sweep"], tmp_path / "sweep"))


def test_the_shards_merge_into_the_one_machine_run(oracle_sweep: dict[str, Path]) -> None:
    whole, merged = row_of(oracle_sweep["whole"]), row_of(oracle_sweep["sweep"])
    assert merged.summary == whole.summary and merged.summary["complete"]
    assert instance_set(merged.run.records) == instance_set(whole.run.records)
    assert len(merged.run.records) == 18 and all(record["status"] in SCORED for record in merged.run.records)
    assert merged.run.notes == [] and not merged.run.shards_missing
    assert sorted(path.name for path in merged.run.sources) == [f"shard-{index}-of-4" for index in range(SHARDS)]
    # Given one by one, or their folder inside a folder of runs: the same row.
    one_by_one = sorted(oracle_sweep["sweep"].iterdir())
    assert row_of(*one_by_one).summary == whole.summary
    assert [row.summary for row in build_rows(load_runs([oracle_sweep["sweep"].parent]))] == [
        whole.summary,
        whole.summary,
    ]


def test_beside_the_one_machine_run_each_is_a_row_named_by_its_machines(
    oracle_sweep: dict[str, Path], tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    before = snapshot(oracle_sweep["sweep"].parent)
    code = main(["report", str(oracle_sweep["whole"]), str(oracle_sweep["sweep"]), "--out", str(tmp_path / "report")])
    assert code == OK and capsys.readouterr().err == ""
    rows = list(csv.DictReader((tmp_path / "report" / "leaderboard.csv").open()))
    assert [row["run"] for row in rows] == ["oracle · one machine", "oracle · 4 shards"]
    numbers = [{key: value for key, value in row.items() if key != "run"} for row in rows]
    assert numbers[0] == numbers[1] and rows[0]["Overall"] == "1.0"
    assert snapshot(oracle_sweep["sweep"].parent) == before  # reading changed no file


def test_diff_of_the_sweep_and_the_one_machine_run_finds_no_difference(oracle_sweep: dict[str, Path], capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["report", "diff", str(oracle_sweep["sweep"]), str(oracle_sweep["whole"]), "--json"]) == OK
    result = json.loads(capsys.readouterr().out)
    assert result["differ"] == ["shards"]
    assert all(not bucket["only_a"] and not bucket["only_b"] for bucket in result["tasks"].values())
    assert sum(len(bucket["both"]) for bucket in result["tasks"].values()) == 18


def test_a_missing_shard_is_named_and_the_report_exits_5(sweep: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    gone = {(record["task_id"], record["trial"]) for record in read_records(sweep / "shard-2-of-4" / RECORDS_FILE)}
    shutil.rmtree(sweep / "shard-2-of-4")
    before = snapshot(sweep)
    assert main(["report", str(sweep), "--out", str(tmp_path / "report")]) == UNAVAILABLE
    captured = capsys.readouterr()
    warning = "shard 2 of 4 is missing (no directory read): its attempts are not in this row, so it is partial"
    assert captured.err == f"crmarena report: warning: oracle: {warning}\n"
    assert "partial (" in captured.out  # the report is still written and shown, its row partial
    assert f"- oracle: {warning}" in (tmp_path / "report" / "leaderboard.md").read_text()
    assert warning in (tmp_path / "report" / "index.html").read_text()
    row = row_of(sweep)
    assert gone and not gone & {(record["task_id"], record["trial"]) for record in row.run.records}
    assert not row.summary["complete"] and row.run.shards_missing
    assert snapshot(sweep) == before


def test_an_unfinished_shard_is_named_with_what_to_do(sweep: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    manifest = sweep / "shard-1-of-4" / "run.json"
    manifest.write_text(json.dumps(json.loads(manifest.read_text()) | {"status": "running"}))
    stopped = sweep / "shard-3-of-4" / "run.json"
    stopped.write_text(
        json.dumps(json.loads(stopped.read_text()) | {"status": "incomplete", "stopped": "stopped at a fatal error: x"})
    )
    assert main(["report", str(sweep), "--out", str(tmp_path / "report")]) == UNAVAILABLE
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"crmarena report: warning: oracle: shard 1/4 ({sweep / 'shard-1-of-4'}) is not complete: its run.json says "
        "running (still running, or killed): run the same command again to finish it",
        f"crmarena report: warning: oracle: shard 3/4 ({sweep / 'shard-3-of-4'}) is not complete: stopped at a fatal "
        "error: x; run the same command again to resume it",
    ]


def test_a_shard_read_twice_is_a_warning_and_the_scores_stand(
    sweep: Path, oracle_sweep: dict[str, Path], tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    copy = shutil.copytree(sweep / "shard-0-of-4", tmp_path / "elsewhere" / "shard-0-of-4")
    twice = len(read_records(copy / RECORDS_FILE))
    assert main(["report", str(sweep), str(copy), "--out", str(tmp_path / "report")]) == OK
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"crmarena report: warning: oracle: shard 0/4 was read from 2 directories: {sweep / 'shard-0-of-4'}, {copy}",
        f"crmarena report: warning: oracle: {twice} attempts are in more than one directory "
        f"({sweep / 'shard-0-of-4'} and {copy}): the report keeps the first directory's record (all of them agree)",
    ]
    assert row_of(sweep, copy).summary == row_of(oracle_sweep["whole"]).summary


def test_duplicates_that_disagree_are_counted(sweep: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(sweep / "shard-0-of-4", tmp_path / "elsewhere" / "shard-0-of-4"))
    records = read_records(copy / RECORDS_FILE)
    records[0] |= {"status": "failed", "score": 0.0}
    (copy / RECORDS_FILE).write_text("".join(json.dumps(record) + "\n" for record in records))
    notes = row_of(sweep, copy).run.notes
    assert notes[-1].endswith("the report keeps the first directory's record (1 of them differ in status or score)")
    assert row_of(sweep, copy).summary["statuses"]["failed"] == 0  # the first directory's records are kept


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"model": "gpt-4o"}, "differ in model (default vs gpt-4o)"),
        ({"agent": "null"}, "differ in agent (oracle vs null)"),
        ({"sampling": {"limit": 3}}, "differ in sampling (limit 2 vs limit 3)"),
        ({"task_set": {"version": "1"}}, "differ in task set"),
        ({"prompt_sha256": "0" * 64}, "differ in prompts"),
        ({"shard": {"index": 3, "count": 8}}, "differ in shards (4 vs 8)"),
    ],
)
def test_shards_of_different_runs_in_one_folder_are_refused(
    sweep: Path, tmp_path: Path, change: dict, says: str, capsys
) -> None:  # type: ignore[no-untyped-def]
    manifest = sweep / "shard-3-of-4" / "run.json"
    manifest.write_text(json.dumps(json.loads(manifest.read_text()) | change))
    before = snapshot(sweep)
    assert main(["report", str(sweep), "--out", str(tmp_path / "report")]) == BAD_FILE
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and f"{sweep.resolve()} holds shards of different runs" in err
    assert says in err and "put another run's shards in a folder of their own" in err
    assert not (tmp_path / "report").exists() and snapshot(sweep) == before


def test_sharded_runs_of_different_settings_in_their_own_folders_are_rows_of_their_own(
    sweep: Path, tmp_path: Path
) -> None:
    other = Path(shutil.copytree(sweep, tmp_path / "other"))
    for manifest in other.glob("*/run.json"):
        manifest.write_text(json.dumps(json.loads(manifest.read_text()) | {"label": "again"}))
    rows = build_rows(load_runs([sweep, other]))
    assert [row.run.label for row in rows] == ["oracle", "again · oracle"]
    assert rows[0].summary["tasks"] == rows[1].summary["tasks"] and not any(row.run.notes for row in rows)


def test_a_shard_that_is_not_an_index_below_a_count_is_unreadable(sweep: Path) -> None:
    manifest = sweep / "shard-3-of-4" / "run.json"
    manifest.write_text(json.dumps(json.loads(manifest.read_text()) | {"shard": {"index": 4, "count": 4}}))
    with pytest.raises(ReportInputError, match="a shard that is not an index below a count"):
        load_runs([sweep])


@pytest.mark.slow
def test_four_shards_of_the_oracle_over_all_1170_instances_are_the_one_machine_run(tmp_path: Path) -> None:
    from benchmarks.shards import compare

    found = compare(tmp_path, shards=4, workers=4)
    assert found["instances"] == 1170 and sum(shard["attempts"] for shard in found["shards"]) == 1170
    assert found["identical_scores"] and found["identical_attempts"] and found["notes"] == []
    assert found["overall"]["value"] == 1.0

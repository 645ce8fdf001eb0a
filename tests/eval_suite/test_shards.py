"""``crmarena eval --shard I/K``: every attempt in exactly one shard, by a split that depends on the attempt
alone (so resuming, or choosing other tasks or trials, never moves one); ``auto/K`` takes the index from
a Kubernetes Indexed Job or a Slurm array; bad values are one line and exit 2 with nothing written; the
shard is in the manifest, and a shard's folder is kept apart from whole runs."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval_suite.commands.cli import main
from eval_suite.run.config import RunConfig
from eval_suite.run.records import RECORDS_FILE, SCORED, latest, read_records
from eval_suite.run.runner import RunRefused, run
from eval_suite.run.selection import select
from eval_suite.run.shards import Shard, ShardError, attempts, owner, parse
from eval_suite.tools.catalog import default_task_file
from fixtures.tasks.task_file import read_task_file
from mock_org.user_errors import BAD_FILE, OK, USAGE

from .conftest import SHARDS, default_org_served

ENGINES = ("JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID")


@pytest.fixture(scope="module")
def instances() -> list:
    return read_task_file(default_task_file()).instances


def units(pairs: list) -> list[tuple[str, int, int]]:
    return [(instance.task, instance.idx, trial) for instance, trial in pairs]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7, 16])
@pytest.mark.parametrize("trials", [1, 3])
def test_every_attempt_of_the_task_set_is_in_exactly_one_shard(instances, count: int, trials: int) -> None:
    whole = Counter(units(attempts(instances, trials, None)))
    split = Counter(unit for index in range(count) for unit in units(attempts(instances, trials, Shard(index, count))))
    assert split == whole and set(split.values()) == {1} and sum(whole.values()) == 1170 * trials
    sizes = [len(attempts(instances, trials, Shard(index, count))) for index in range(count)]
    assert max(sizes) - min(sizes) <= 6 * (1170 * trials / count) ** 0.5  # even on average, as a hash is


def test_the_split_depends_on_the_attempt_alone(instances) -> None:
    shard = Shard(1, 4)
    every = units(attempts(instances, 3, shard))
    fewer = [instance for instance in instances if instance.task in ("case_routing", "knowledge_qa")]
    # Fewer tasks or fewer trials (a resume may change both) keep exactly the shard's attempts among them.
    assert units(attempts(fewer, 3, shard)) == [unit for unit in every if unit[0] in ("case_routing", "knowledge_qa")]
    assert units(attempts(instances, 1, shard)) == [unit for unit in every if unit[2] == 0]
    assert units(attempts(list(reversed(instances)), 1, shard)) == list(reversed(units(attempts(instances, 1, shard))))


def test_the_split_never_changes_between_versions() -> None:
    # A shard resumed by a later version must find its own attempts: the hash is pinned here.
    assert [owner("case_routing", idx, 0, 4) for idx in range(390, 400)] == [2, 1, 0, 0, 2, 0, 1, 3, 0, 2]
    assert [owner("knowledge_qa", 0, trial, 8) for trial in range(5)] == [6, 3, 1, 1, 5]


@given(
    task=st.text(min_size=1, max_size=30),
    idx=st.integers(min_value=0, max_value=10**6),
    trial=st.integers(min_value=0, max_value=50),
    count=st.integers(min_value=1, max_value=500),
)
def test_exactly_one_shard_owns_any_attempt(task: str, idx: int, trial: int, count: int) -> None:
    owners = [index for index in range(count) if Shard(index, count).owns(task, idx, trial)]
    assert owners == [owner(task, idx, trial, count)]


@pytest.mark.parametrize(
    ("text", "environ", "expected"),
    [
        ("0/4", {}, (Shard(0, 4), None)),
        ("3/4", {"JOB_COMPLETION_INDEX": "1"}, (Shard(3, 4), None)),  # given: the variable is not read
        (" 2 / 5 ", {}, (Shard(2, 5), None)),
        ("0/1", {}, (Shard(0, 1), None)),
        ("auto/4", {"JOB_COMPLETION_INDEX": "2"}, (Shard(2, 4), "JOB_COMPLETION_INDEX")),
        ("auto/4", {"SLURM_ARRAY_TASK_ID": "3"}, (Shard(3, 4), "SLURM_ARRAY_TASK_ID")),
        ("AUTO/4", {"JOB_COMPLETION_INDEX": "0", "SLURM_ARRAY_TASK_ID": "3"}, (Shard(0, 4), "JOB_COMPLETION_INDEX")),
        ("auto/4", {"JOB_COMPLETION_INDEX": "", "SLURM_ARRAY_TASK_ID": "1"}, (Shard(1, 4), "SLURM_ARRAY_TASK_ID")),
    ],
)
def test_a_shard_is_given_or_read_from_the_batch_engine(text: str, environ: dict, expected: tuple) -> None:
    assert parse(text, environ) == expected


@pytest.mark.parametrize(
    ("text", "environ", "says"),
    [
        ("4/4", {}, "the index 4 is not below the number of shards (indices run 0 to 3)"),
        ("0/0", {}, "the number of shards K must be a whole number of at least 1"),
        ("1/x", {}, "the number of shards K must be a whole number"),
        ("x/4", {}, "the shard index I must be a whole number (0 to 3) or auto"),
        ("4", {}, "names no shard: write I/4 (this machine's shard I of 4, from 0) or auto/4"),
        ("1/2/3", {}, "names no shard"),
        ("", {}, "names no shard"),
        ("auto/4", {}, "neither is set: give it as --shard I/4"),
        ("auto/4", {"JOB_COMPLETION_INDEX": "4"}, "JOB_COMPLETION_INDEX=4 is not below the number of shards"),
        ("auto/4", {"SLURM_ARRAY_TASK_ID": "two"}, "SLURM_ARRAY_TASK_ID='two' is not a shard index"),
        ("auto/4", {"JOB_COMPLETION_INDEX": "-1"}, "JOB_COMPLETION_INDEX='-1' is not a shard index"),
    ],
)
def test_a_bad_shard_is_refused_in_one_line(text: str, environ: dict, says: str) -> None:
    with pytest.raises(ShardError) as refused:
        parse(text, environ)
    assert says in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("shard", "environ", "says"),
    [
        ("5/4", {}, "--shard '5/4': the index 5 is not below"),
        ("4", {}, "--shard '4' names no shard"),
        ("auto/4", {}, "--shard auto/4 takes this machine's shard index from JOB_COMPLETION_INDEX"),
        ("auto/2", {"SLURM_ARRAY_TASK_ID": "2"}, "SLURM_ARRAY_TASK_ID=2 is not below"),
    ],
)
def test_the_command_refuses_a_bad_shard_before_anything_runs(
    shard: str, environ: dict, says: str, tmp_path: Path, monkeypatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    for name in ENGINES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "sweep"
    assert main(["eval", "--agent", "oracle", "--shard", shard, "--out", str(out)]) == USAGE
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1 and says in captured.err
    assert "Traceback" not in captured.err and not out.exists()


def test_a_shard_without_a_value_is_a_usage_error(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["eval", "--agent", "oracle", "--out", str(tmp_path / "x"), "--shard"]) == USAGE
    assert "--shard: expected one argument" in capsys.readouterr().err


def test_each_shard_runs_its_own_attempts_and_says_so(oracle_sweep: dict[str, Path]) -> None:
    folders = sorted(path.name for path in oracle_sweep["sweep"].iterdir())
    assert folders == [f"shard-{index}-of-{SHARDS}" for index in range(SHARDS)]
    seen: list[tuple[int, int]] = []
    for index in range(SHARDS):
        directory = oracle_sweep["sweep"] / f"shard-{index}-of-{SHARDS}"
        manifest = json.loads((directory / "run.json").read_text())
        assert manifest["shard"] == {"index": index, "count": SHARDS} and manifest["status"] == "complete"
        records = latest(read_records(directory / RECORDS_FILE)).values()
        assert records and all(record["status"] in SCORED for record in records)
        assert all(
            owner(record["task_type"], record["task_id"], record["trial"], SHARDS) == index for record in records
        )
        seen += [(record["task_id"], record["trial"]) for record in records]
    whole = latest(read_records(oracle_sweep["whole"] / RECORDS_FILE))
    assert sorted(seen) == sorted(whole) and len(seen) == len(set(seen)) == 18
    assert json.loads((oracle_sweep["whole"] / "run.json").read_text())["shard"] is None


def test_a_shard_resumed_runs_nothing_again_and_more_trials_add_only_its_own(
    oracle_sweep: dict[str, Path], tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    sweep = tmp_path / "sweep"
    shutil.copytree(oracle_sweep["sweep"], sweep)
    records = sweep / "shard-2-of-4" / RECORDS_FILE
    before = records.read_bytes()
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "2")  # the same shard, as a restarted pod names it
    settings = RunConfig(agent="oracle", limit=2, workers=2, progress=False, out=sweep, shard="auto/4")
    with default_org_served():  # the org the sweep ran on
        result = run(settings)
        assert records.read_bytes() == before and result.exit_code == OK
        run(replace(settings, trials=2))
    added = [record for record in read_records(records) if record["trial"] == 1]
    assert added and all(owner(record["task_type"], record["task_id"], 1, 4) == 2 for record in added)
    assert records.read_bytes().startswith(before)  # appended to, nothing run again


def test_a_shard_directory_refuses_another_shard(oracle_sweep: dict[str, Path], tmp_path: Path) -> None:
    shutil.copytree(oracle_sweep["sweep"] / "shard-1-of-4", tmp_path / "sweep" / "shard-2-of-4")  # moved by hand
    with (
        default_org_served(),
        pytest.raises(RunRefused, match=r"\(shard: \{'index': 1, 'count': 4\} then, \{'index': 2, 'count': 4\} now\)"),
    ):
        run(RunConfig(agent="oracle", limit=2, progress=False, out=tmp_path / "sweep", shard="2/4"))


def test_shards_and_whole_runs_keep_to_their_own_folders(oracle_sweep: dict[str, Path], tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    whole, sweep = str(oracle_sweep["whole"]), str(oracle_sweep["sweep"])
    assert main(["eval", "--agent", "oracle", "--limit", "2", "--shard", "0/4", "--out", whole]) == BAD_FILE
    assert "is a run directory; with --shard, --out names the folder that holds the shards" in capsys.readouterr().err
    assert main(["eval", "--agent", "oracle", "--limit", "2", "--out", sweep]) == BAD_FILE
    assert "holds the shards of a sharded run" in capsys.readouterr().err
    assert not (oracle_sweep["sweep"] / "run.json").exists()
    assert not (oracle_sweep["whole"] / "shard-0-of-4").exists()


def test_the_command_names_the_shard_and_how_to_merge(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "3")
    monkeypatch.delenv("JOB_COMPLETION_INDEX", raising=False)
    out = tmp_path / "sweep"
    assert (
        main(["eval", "--agent", "oracle", "--limit", "1", "--shard", "auto/4", "--out", str(out), "--no-progress"])
        == 0
    )
    captured = capsys.readouterr()
    assert "shard 3/4 (the index from SLURM_ARRAY_TASK_ID):" in captured.err
    assert f"in {out / 'shard-3-of-4'}" in captured.err
    assert f"`crmarena report {out}` merges the 4 shards into one run" in captured.out
    assert re.search(r"partial \(\d/9 tasks\)", captured.out)  # a shard alone is never the benchmark's headline


def test_doctor_counts_the_shards_attempts(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    mine = len(attempts(select(read_task_file(default_task_file()), None, 2), 1, Shard(1, 4)))
    assert main(["doctor", "--agent", "oracle", "--limit", "2", "--shard", "1/4", "--out", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert f"shard 1/4: {mine} of the 18 attempts, in {tmp_path / 's' / 'shard-1-of-4'}" in out
    assert not (tmp_path / "s").exists()  # the doctor writes nothing

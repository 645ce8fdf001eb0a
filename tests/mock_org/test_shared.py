"""The shared state of ``serve --workers``: two StateFiles on one directory stand for two workers."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from mock_org.shared import LocalState, StateFile


def test_what_one_worker_writes_the_other_reads(tmp_path: Path) -> None:
    first, second = StateFile(tmp_path), StateFile(tmp_path)
    mine, theirs = first.table("sessions", cached=True), second.table("sessions", cached=True)
    mine["a"] = {"user": "005A"}
    assert theirs["a"] == {"user": "005A"}  # now cached in the second
    mine["a"] = {"user": "005B"}
    assert theirs["a"] == {"user": "005B"}  # the write made every cached copy stale
    del mine["a"]
    assert theirs.get("a") is None and len(theirs) == 0


def test_tables_keep_their_order_as_ordered_dicts_do(tmp_path: Path) -> None:
    for table in (StateFile(tmp_path).table("t"), LocalState().table("t")):
        for key in "abc":
            table[key] = key.upper()
        table["a"] = table.pop("a")  # read, then written again: the most recent
        assert list(table) == ["b", "c", "a"] and table.popitem(last=False) == ("b", "B")
        assert table.items() and dict(table.items()) == {"c": "C", "a": "A"}


def _count(directory: str, times: int) -> None:
    state = StateFile(Path(directory))
    counter = state.counter("hits")
    for _ in range(times):
        with state.lock:
            counter.set(counter.get() + 1)


def test_counters_lose_nothing_between_processes(tmp_path: Path) -> None:
    StateFile(tmp_path)
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_count, args=(str(tmp_path), 300)) for _ in range(3)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    state = StateFile(tmp_path)
    assert state.counter("hits").get() == 900


def _tally(directory: str, times: int) -> None:
    tally = StateFile(Path(directory)).tally("requests")
    for _ in range(times):
        assert tally.add(7, 10**9)


def test_a_tally_loses_nothing_between_processes_and_takes_no_lock_between_them(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_tally, args=(str(tmp_path), 3000)) for _ in range(3)]
    watcher = StateFile(tmp_path).tally("requests")  # a part made before the others: it learns of theirs
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert watcher.total(7) == 9000 and watcher.total(8) == 0
    late, beside = StateFile(tmp_path).tally("requests"), StateFile(tmp_path).tally("requests")  # one process
    assert late.add(7, 10**9) and beside.add(7, 10**9) and late.total(7) == beside.total(7) == 9002


def test_a_tally_starts_again_each_day_and_stops_at_its_limit(tmp_path: Path) -> None:
    for tally in (StateFile(tmp_path).tally("usage"), LocalState().tally("usage")):
        assert [tally.add(1, 3) for _ in range(4)] == [True, True, True, False]
        assert tally.total(1) == 3 and tally.add(2, 3) and tally.total(2) == 1 and tally.total(1) == 0

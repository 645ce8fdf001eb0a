"""The LALR tables' cache file (soql_parser/grammar_cache.py): built once, read after, whole when two
processes build it at once, and never needed: an unwritable place or a damaged file still parses."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from soql_parser.grammar_cache import cache_path, open_grammar

OPTIONS = {"parser": "lalr", "lexer": "basic", "start": "search_expression"}


def _words(parser) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(token) for token in parser.parse("shoe AND rope").scan_values(lambda _: True)]


def _build_in_a_process(cache_dir: str) -> None:
    import os

    os.environ["CRMARENA_CACHE_DIR"] = cache_dir
    _words(open_grammar("search.lark", **OPTIONS))


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CRMARENA_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "grammars"


def test_the_first_use_leaves_one_file_that_the_next_reads_unchanged(cache_dir: Path) -> None:
    built = _words(open_grammar("search.lark", **OPTIONS))
    files = list(cache_dir.iterdir())
    assert files == [cache_path("search.lark", OPTIONS)]
    stamp = files[0].stat().st_mtime_ns
    assert _words(open_grammar("search.lark", **OPTIONS)) == built == ["shoe", "AND", "rope"]
    assert files[0].stat().st_mtime_ns == stamp


def test_the_file_name_changes_with_the_options(cache_dir: Path) -> None:
    assert cache_path("search.lark", OPTIONS) != cache_path("search.lark", {**OPTIONS, "start": "other"})
    assert cache_path("search.lark", OPTIONS).parent == cache_dir


def test_an_unwritable_place_builds_in_memory_and_leaves_nothing(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("CRMARENA_CACHE_DIR", str(blocker))
    assert _words(open_grammar("search.lark", **OPTIONS)) == ["shoe", "AND", "rope"]
    assert list(tmp_path.iterdir()) == [blocker]


def test_a_damaged_file_is_rebuilt(cache_dir: Path) -> None:
    path = cache_path("search.lark", OPTIONS)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"half a cache")
    assert _words(open_grammar("search.lark", **OPTIONS)) == ["shoe", "AND", "rope"]


def test_two_processes_building_at_once_leave_one_whole_file(cache_dir: Path) -> None:
    spawn = multiprocessing.get_context("spawn")
    workers = [spawn.Process(target=_build_in_a_process, args=(str(cache_dir.parent),)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert list(cache_dir.iterdir()) == [cache_path("search.lark", OPTIONS)]  # no file left half-written beside
    stamp = cache_path("search.lark", OPTIONS).stat().st_mtime_ns
    assert _words(open_grammar("search.lark", **OPTIONS)) == ["shoe", "AND", "rope"]
    assert cache_path("search.lark", OPTIONS).stat().st_mtime_ns == stamp  # read, not rebuilt

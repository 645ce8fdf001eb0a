"""``crmarena query`` and ``crmarena search`` over an org file, no server involved: answers, formats,
every page, the org's own date, and files that stay exactly as they were."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from eval_suite.commands.cli import main
from fixtures.default import default_org
from fixtures.dump import write_database, write_json
from mock_org.dump import DB_FILE, MANIFEST_FILE, sha256_of
from mock_org.schema import default_schema

from .builder import STAMP, build_org, rid
from .conftest import CASES, tiny_records


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Reading copies go to a cache of the test's own."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("CRMARENA_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def org_db(tmp_path: Path) -> Path:
    build_org(tmp_path / "org.db", tiny_records()).close()
    return tmp_path / "org.db"


def test_query_prints_the_rest_result(org_db: Path, capsys) -> None:
    code = main(
        [
            "query",
            "--db",
            str(org_db),
            "--today",
            "2023-05-15",
            "SELECT Id FROM Case WHERE CreatedDate = YESTERDAY ORDER BY CreatedDate",
        ]
    )
    assert code == 0
    body = json.loads(capsys.readouterr().out)
    assert body["totalSize"] == 2 and [r["Id"] for r in body["records"]] == [CASES[3], CASES[4]]


def test_query_all_rows_includes_deleted_records(org_db: Path, capsys) -> None:
    assert main(["query", "--db", str(org_db), "--all-rows", "SELECT COUNT() FROM Case"]) == 0
    assert json.loads(capsys.readouterr().out)["totalSize"] == 8


def test_a_refused_query_prints_the_org_error_on_stderr(org_db: Path, capsys) -> None:
    assert main(["query", "--db", str(org_db), "SELECT Nope FROM Case"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    first, query_line, caret, position = err.splitlines()
    assert first.startswith("INVALID_FIELD: No such column 'Nope' on entity 'Case'.")
    assert (query_line, caret, position) == ("SELECT Nope FROM Case", "       ^", "ERROR at Row:1:Column:8")


def test_search(org_db: Path, capsys) -> None:
    assert main(["search", "--db", str(org_db), "FIND {refund} RETURNING Case(Subject)"]) == 0
    assert json.loads(capsys.readouterr().out)["searchRecords"][0]["Subject"] == "Refund please"


def test_csv_flattens_parents_and_keeps_null_cells_empty(org_db: Path, capsys) -> None:
    assert (
        main(
            [
                "query",
                "--db",
                str(org_db),
                "--format",
                "csv",
                "SELECT Id, Subject, Account.Name FROM Case ORDER BY Id LIMIT 2",
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["Id", "Subject", "Account.Name"] and len(rows) == 3
    assert rows[1][0] == CASES[0] and err.strip() == "2 records"


def test_table_lines_up_the_columns(org_db: Path, capsys) -> None:
    assert (
        main(
            [
                "query",
                "--db",
                str(org_db),
                "--format",
                "table",
                "SELECT Name, (SELECT Id FROM Cases) FROM Account ORDER BY Id LIMIT 2",
            ]
        )
        == 0
    )
    header, rule, *rows, summary = capsys.readouterr().out.splitlines()
    assert header.split() == ["Name", "Cases"] and set(rule) == {"-", " "}
    assert len(rows) == 2 and all("record" in row for row in rows) and summary == "2 records"


def test_json_is_the_default_off_a_terminal(org_db: Path, capsys) -> None:
    assert main(["search", "--db", str(org_db), "FIND {refund} RETURNING Case(Subject)"]) == 0
    assert capsys.readouterr().out.startswith("{")


def products(count: int) -> dict[str, list[dict]]:
    records = tiny_records()
    records["Product2"] += [{"Id": rid("01t", 100 + i), "Name": f"Item {i:04d}"} for i in range(count)]
    return records


def test_all_follows_every_page(tmp_path: Path, capsys) -> None:
    build_org(tmp_path / "big.db", products(4500)).close()
    query = "SELECT Id, Name FROM Product2 ORDER BY Name"
    assert main(["query", "--db", str(tmp_path / "big.db"), query]) == 0
    out, err = capsys.readouterr()
    first = json.loads(out)
    assert (first["done"], len(first["records"])) == (False, 2000) and "--all" in err
    assert main(["query", "--db", str(tmp_path / "big.db"), "--all", query]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert whole["done"] is True and "nextRecordsUrl" not in whole
    assert len(whole["records"]) == whole["totalSize"] == 4503
    assert len({record["Id"] for record in whole["records"]}) == 4503
    assert whole["records"][:2000] == first["records"]


def test_every_page_reports_progress(tmp_path: Path) -> None:
    from mock_org.result_formats import every_page

    org = build_org(tmp_path / "big.db", products(4500))
    seen: list[int] = []
    every_page(org, org.query("SELECT Id FROM Product2", batch_size=2000), seen.append)
    org.close()
    assert seen == [2000, 4000, 4503]


def dump_folder(path: Path, as_of: str | None) -> Path:
    """An org in the dump layout as `fixtures build` writes it (rollback journal, no indexes), with a manifest."""
    path.mkdir()
    records = tiny_records()
    for sobject in default_schema():
        for record in records.get(sobject.name, []):
            for name in ("CreatedDate", "LastModifiedDate", "SystemModstamp"):
                if sobject.field(name) is not None:
                    record.setdefault(name, STAMP)
            if sobject.field("IsDeleted") is not None:
                record.setdefault("IsDeleted", 0)
            for field in sobject.field_list():
                if field.type == "boolean":
                    record[field.name] = bool(record.get(field.name))
    write_database(path / DB_FILE, default_schema(), records)
    write_json(path / MANIFEST_FILE, {"as_of_date": as_of} if as_of else {})
    return path


def files_and_hashes(folder: Path) -> dict[str, str]:
    import hashlib

    return {item.name: hashlib.sha256(item.read_bytes()).hexdigest() for item in sorted(folder.iterdir())}


@pytest.mark.parametrize("prepared", [False, True], ids=["pristine dump", "served before (WAL, indexed)"])
def test_query_and_search_leave_the_database_byte_identical(tmp_path: Path, prepared: bool, capsys) -> None:
    if prepared:
        folder = tmp_path / "served"
        folder.mkdir()
        build_org(folder / DB_FILE, tiny_records()).close()
    else:
        folder = dump_folder(tmp_path / "dump", "2023-05-15")
    before = files_and_hashes(folder)
    for command in (
        ["query", "SELECT Id, Subject FROM Case WHERE CreatedDate = LAST_N_DAYS:7"],
        ["query", "--all", "--format", "csv", "SELECT Id FROM Case"],
        ["search", "FIND {refund} RETURNING Case(Subject)"],
    ):
        for target in (folder / DB_FILE, folder):
            assert main([command[0], "--db", str(target), *command[1:]]) == 0
    capsys.readouterr()
    assert files_and_hashes(folder) == before  # same bytes, and no -wal, -shm or other file beside them


def test_the_default_today_is_the_org_reference_date(tmp_path: Path, capsys) -> None:
    folder = dump_folder(tmp_path / "dump", "2023-05-15")
    query = "SELECT Id FROM Case WHERE CreatedDate = YESTERDAY ORDER BY CreatedDate"
    assert main(["query", "--db", str(folder), query]) == 0  # the manifest says today is 2023-05-15
    assert [r["Id"] for r in json.loads(capsys.readouterr().out)["records"]] == [CASES[3], CASES[4]]
    assert main(["query", "--db", str(folder), "--today", "2023-03-07", query]) == 0
    assert [r["Id"] for r in json.loads(capsys.readouterr().out)["records"]] == [CASES[2]]


def test_without_a_manifest_today_is_the_day_of_the_latest_change(tmp_path: Path) -> None:
    from mock_org.dump import reference_date

    folder = dump_folder(tmp_path / "dump", None)
    assert reference_date(folder / DB_FILE).isoformat() == STAMP[:10]  # every record was last changed then


def test_org_reset_restores_the_working_copy_and_waits_for_no_server(private_cache: Path, capsys) -> None:
    from mock_org.copies import serving, working_copy
    from mock_org.org import Org

    path = working_copy(default_org(), private_cache)
    org = Org(path)
    org.create(
        "Issue__c",
        {"Name": "Written through serve"},
        user_id=org.query("SELECT Id FROM User LIMIT 1")["records"][0]["Id"],
    )
    org.close()
    query = ["query", "--format", "json", "SELECT COUNT() FROM Issue__c WHERE Name = 'Written through serve'"]
    assert main(query) == 0 and json.loads(capsys.readouterr().out)["totalSize"] == 1  # query reads the working copy
    with serving(path):
        assert main(["org", "reset"]) == 5
        assert "being served" in capsys.readouterr().err
    assert main(["org", "reset"]) == 0
    assert capsys.readouterr().out.startswith(f"reset {path} from ")
    assert main(query) == 0 and json.loads(capsys.readouterr().out)["totalSize"] == 0
    pristine = default_org()
    manifest = json.loads((pristine.parent / MANIFEST_FILE).read_text())
    assert sha256_of(pristine) == manifest["sha256"][DB_FILE]  # the dump itself never changed
    assert sorted(item.name for item in pristine.parent.iterdir()) == sorted(
        [DB_FILE, MANIFEST_FILE, "latent.json", "crmarena_schema.json", "tasks.jsonl"]
    )


def test_engine_commands_use_the_default_org_they_are_given(tmp_path: Path, private_cache: Path, capsys) -> None:
    """query, search and org reset take the default org from the command tree (the engine builds none): given
    another pristine dump, they read and reset its working copy in the cache folder and never change the dump."""
    import argparse

    from eval_suite.commands import query

    folder = dump_folder(tmp_path / "other-default", "2023-05-15")
    before = files_and_hashes(folder)
    asked: list[Path] = []

    def given() -> Path:
        asked.append(folder / DB_FILE)
        return folder / DB_FILE

    parser = argparse.ArgumentParser()
    query.add(parser.add_subparsers(), default_org=given)

    def run(*words: str) -> int:
        args = parser.parse_args(words)
        return args.handler(args)

    assert run("query", "--format", "json", "SELECT Id FROM Case WHERE CreatedDate = YESTERDAY ORDER BY Id") == 0
    assert [r["Id"] for r in json.loads(capsys.readouterr().out)["records"]] == [CASES[3], CASES[4]]  # its as_of_date
    assert run("search", "--format", "json", "FIND {refund} RETURNING Case(Subject)") == 0
    assert json.loads(capsys.readouterr().out)["searchRecords"][0]["Subject"] == "Refund please"
    assert run("org", "reset") == 0
    working = private_cache / "served" / "other-default.db"
    assert capsys.readouterr().out == f"reset {working} from {folder / DB_FILE}\n" and working.is_file()
    assert len(asked) == 3 and files_and_hashes(folder) == before

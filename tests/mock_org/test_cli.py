"""``crmarena query`` and ``crmarena search`` over an org file, no server involved."""

from __future__ import annotations

import json

from eval_suite.cli import main

from .builder import build_org
from .conftest import CASES, tiny_records


def test_query_prints_the_rest_result(tmp_path, capsys) -> None:
    build_org(tmp_path / "org.db", tiny_records()).close()
    code = main(["query", "--db", str(tmp_path / "org.db"), "--today", "2023-05-15",
                 "SELECT Id FROM Case WHERE CreatedDate = YESTERDAY ORDER BY CreatedDate"])  # fmt: skip
    assert code == 0
    body = json.loads(capsys.readouterr().out)
    assert body["totalSize"] == 2 and [r["Id"] for r in body["records"]] == [CASES[3], CASES[4]]


def test_query_all_rows_includes_deleted_records(tmp_path, capsys) -> None:
    build_org(tmp_path / "org.db", tiny_records()).close()
    assert main(["query", "--db", str(tmp_path / "org.db"), "--all-rows", "SELECT COUNT() FROM Case"]) == 0
    assert json.loads(capsys.readouterr().out)["totalSize"] == 8


def test_errors_print_the_rest_error_body(tmp_path, capsys) -> None:
    build_org(tmp_path / "org.db", tiny_records()).close()
    assert main(["query", "--db", str(tmp_path / "org.db"), "SELECT Nope FROM Case"]) == 1
    assert json.loads(capsys.readouterr().out)[0]["errorCode"] == "INVALID_FIELD"


def test_search(tmp_path, capsys) -> None:
    build_org(tmp_path / "org.db", tiny_records()).close()
    assert main(["search", "--db", str(tmp_path / "org.db"), "FIND {refund} RETURNING Case(Subject)"]) == 0
    assert json.loads(capsys.readouterr().out)["searchRecords"][0]["Subject"] == "Refund please"

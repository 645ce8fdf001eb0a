"""``crmarena conformance`` end to end, between two private mock orgs: the same org compares clean,
a copy with one changed and one deleted record shows exactly those differences, and a copy whose
Ids were rewritten compares clean through the Id map (and not without it)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from eval_suite.commands.cli import main
from eval_suite.lane.idmap import IdMap, save_idmap
from fixtures import default_org
from fixtures.default import default_tasks
from mock_org.ids import make_id

# Records the reference solutions of the chosen instances read: task 910 reads this case, task 520
# this contact, its account and this product; the user owns the case.
# Records the committed instances 520 (named_entity_disambiguation: its contact, the contact's account, the
# product) and 910 (policy_violation_identification: its case and the case's owner) name.
# An agent whose Id is rewritten on side B; the contact, its account, the product and the case come from
# the task instances asked about them (`asked_about`).
RENAMED_FIXED = {"User": "005Ws000000000DIAQ"}
CHANGED_CASE, DELETED_EMAIL = "500Ws0000000005IAA", "02sWs0000000009IAA"


def conformance(capsys: pytest.CaptureFixture[str], out: Path, *flags: str) -> tuple[int, dict[str, Any], str]:
    code = main(
        ["conformance", "--a", "mock", "--b", "mock", "--no-progress", "--workers", "2", "--out", str(out), *flags]
    )
    return code, json.loads(out.read_text()), capsys.readouterr().out


def a_copy(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    shutil.copyfile(default_org(), path)
    return path


def asked_about() -> tuple[list[int], dict[str, str]]:
    """The first answered named_entity_disambiguation and policy_violation_identification instances of the
    committed set, and the Ids to rewrite: theirs (contact and its account, product, case) and RENAMED_FIXED."""
    rows = [json.loads(line) for line in default_tasks().read_text().splitlines()]
    ned = next(row for row in rows if row["task"] == "named_entity_disambiguation" and row["answer"])
    pvi = next(row for row in rows if row["task"] == "policy_violation_identification" and row["answer"])
    contact = ned["params"]["contact_id"]
    with sqlite3.connect(f"file:{default_org()}?mode=ro", uri=True) as connection:
        [(account,)] = connection.execute('SELECT "AccountId" FROM "Contact" WHERE "Id" = ?', (contact,)).fetchall()
    connection.close()
    ids = {"Case": pvi["params"]["case_id"], "Contact": contact, "Account": account}
    return [ned["idx"], pvi["idx"]], {**ids, **RENAMED_FIXED, "Product2": ned["params"]["product_id"]}


def tasks_subset(tmp_path: Path, *indexes: int) -> Path:
    """The committed task instances with these idx, in a file of their own."""
    lines = [line for line in default_tasks().read_text().splitlines() if json.loads(line)["idx"] in indexes]
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_same_org_on_both_sides_has_no_difference(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tasks = tasks_subset(tmp_path, *range(0, 1170, 130))  # one instance of each of the nine tasks
    code, report, text = conformance(capsys, tmp_path / "report.json", "--tasks-file", str(tasks))
    summary = report["summary"]
    assert code == 0 and summary["differences"] == 0 and summary["different"] == 0, text
    assert summary["skipped"] == 0 and report["today"] == "2024-05-31"  # both clocks pinned: relative dates compared
    parts = {entry["part"] for entry in report["queries"]}
    assert parts == {"reference", "sample"} and report["suite"]["reference_replays"]["failed"] == []
    names = {entry["name"] for entry in report["queries"]}
    assert {"sample/Case/every-field", "sample/Case/last-30-days", "sample/search/cases-and-mail"} <= names
    errors = {entry["a"].get("error") for entry in report["queries"] if entry["name"].startswith("sample/error/")}
    assert errors == {"INVALID_FIELD", "INVALID_TYPE", "MALFORMED_QUERY", "MALFORMED_SEARCH"}  # equal on both sides
    assert text.rstrip().endswith(
        f"{summary['queries']:,} the same, 0 different, 0 skipped".join([f"{summary['queries']:,} queries: ", ""])
    )


def test_a_changed_and_a_deleted_record_are_exactly_the_differences(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    altered = a_copy(tmp_path, "altered.db")
    with sqlite3.connect(altered) as connection:
        connection.execute('UPDATE "Case" SET Status = ? WHERE Id = ?', ("Escalated", CHANGED_CASE))
        (incoming,) = connection.execute("SELECT Incoming FROM EmailMessage WHERE Id = ?", (DELETED_EMAIL,)).fetchone()
        connection.execute("DELETE FROM EmailMessage WHERE Id = ?", (DELETED_EMAIL,))
    connection.close()
    only = [
        "Case/every-field",
        "EmailMessage/every-field",
        "EmailMessage/per-direction",
        "Case/not-closed",
        "sample/error/",
        "Account/states-with-ten",
    ]
    flags = [flag for name in only for flag in ("--only", name)]
    code, report, text = conformance(
        capsys, tmp_path / "report.json", "--suite", "sample", "--db-b", str(altered), *flags
    )
    assert code == 1
    found = {entry["name"]: entry.get("differences", []) for entry in report["queries"]}
    assert found.pop("sample/Case/every-field") == [
        {
            "kind": "value",
            "object": "Case",
            "field": "Case.Status",
            "id_a": CHANGED_CASE,
            "id_b": CHANGED_CASE,
            "a": "Closed",
            "b": "Escalated",
        }
    ]
    [missing] = found.pop("sample/EmailMessage/every-field")
    assert (missing["kind"], missing["object"], missing["id"]) == ("missing", "EmailMessage", DELETED_EMAIL)
    [count] = found.pop("sample/EmailMessage/per-direction")
    assert count["kind"] == "value" and count["field"] == "AggregateResult.n" and count["a"] - count["b"] == 1
    assert count["group"] == {"Incoming": bool(incoming)}
    [extra] = found.pop("sample/Case/not-closed")
    assert (extra["kind"], extra["id"]) == ("extra", CHANGED_CASE)
    assert all(differences == [] for differences in found.values()) and len(found) > 10
    assert report["summary"]["differences"] == 4 and report["summary"]["by_kind"] == {
        "extra": 1,
        "missing": 1,
        "value": 2,
    }
    assert f'value differs: Case.Status "Closed" vs "Escalated" ({CHANGED_CASE})' in text
    assert f"row missing from b: EmailMessage {DELETED_EMAIL}" in text


def test_rewritten_ids_compare_clean_through_the_id_map(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    renamed = a_copy(tmp_path, "renamed.db")
    indexes, RENAMED = asked_about()
    idmap = IdMap()
    with sqlite3.connect(renamed) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for serial, (sobject, old) in enumerate(RENAMED.items(), start=7_000_000):
            new = make_id(old[:3], serial, pod="Hs")  # another pod: the new Ids also sort before the old ones
            idmap.add(sobject, old, new)
            for table in tables:
                for column in [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')]:
                    connection.execute(
                        f'UPDATE "{table}" SET "{column}" = replace("{column}", ?, ?) WHERE instr("{column}", ?) > 0',
                        (old, new, old),
                    )
    connection.close()
    save_idmap(idmap, tmp_path / "idmap.json")
    tasks = tasks_subset(tmp_path, *indexes)
    only = [
        "reference/",
        "Case/every-field",
        "Contact/every-field",
        "Account/every-field",
        "User/every-field",
        "EmailMessage/every-field",
        "CaseHistory__c/every-field",
        "Account/city-nulls-first",
        "User/senior-agents",
        "Case/busy-owners",
        "search/a-customer-by-name",
        "LiveChatTranscript/top-chat-owners",
    ]
    flags = ["--db-b", str(renamed), "--tasks-file", str(tasks), *(flag for name in only for flag in ("--only", name))]
    code, report, text = conformance(capsys, tmp_path / "mapped.json", "--idmap", str(tmp_path / "idmap.json"), *flags)
    assert code == 0 and report["summary"]["differences"] == 0, text
    assert report["idmap"]["ids"] == len(RENAMED) and f"({len(RENAMED)} Ids)" in text
    reference = [entry for entry in report["queries"] if entry["part"] == "reference"]
    translated = [entry for entry in reference if "text_b" in entry]
    assert len(reference) > 5 and translated  # side B was asked about its own Ids
    assert all(RENAMED["Case"] not in entry["text_b"] for entry in translated)
    # Without the map the same comparison finds the rewritten records.
    flags = [
        "--db-b",
        str(renamed),
        "--tasks-file",
        str(tasks),
        "--only",
        "reference/",
        "--only",
        "Contact/every-field",
    ]
    code, report, _ = conformance(capsys, tmp_path / "unmapped.json", *flags)
    assert code == 1
    [contacts] = [entry for entry in report["queries"] if entry["name"] == "sample/Contact/every-field"]
    assert contacts["difference_kinds"] == {"extra": 1, "missing": 1}
    assert sum(entry["status"] == "different" for entry in report["queries"] if entry["part"] == "reference") > 2


@pytest.mark.slow
def test_the_whole_suite_on_the_same_org_has_no_difference(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, report, text = conformance(capsys, tmp_path / "report.json")
    assert code == 0 and report["summary"]["differences"] == 0, text
    replays = report["suite"]["reference_replays"]
    assert replays["instances"] == 1170 and replays["failed"] == []
    assert sum(entry["part"] == "reference" for entry in report["queries"]) > 1000


@pytest.mark.parametrize(
    ("flags", "code", "message"),
    [
        (["--a", "salesforce", "--db-a", "x.db"], 2, "a salesforce side reads SALESFORCE_*"),
        (["--a", "mock", "--db-a", "missing.db"], 3, "no org dump at missing.db"),
        (["--a", "salesforce", "--idmap", "{idmap}"], 3, "not an Id map"),
        (["--a", "salesforce", "--b", "mock"], 5, "SALESFORCE_USERNAME"),
        (["--today", "2024-13-01"], 2, "is not a date"),
        (["--db-b", "x.db", "--url-b", "https://127.0.0.1:1"], 2, "--db-b and --url-b both name side b"),
    ],
)
def test_mistakes_are_one_line_and_an_exit_code(
    flags: list[str],
    code: int,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("SALESFORCE_USERNAME", "SALESFORCE_PASSWORD", "SALESFORCE_INSTANCE_URL", "SALESFORCE_SESSION_ID"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "idmap.json").write_text('{"format": "something else"}')
    monkeypatch.chdir(tmp_path)
    assert (
        main(["conformance", "--no-progress", *(flag.format(idmap=tmp_path / "idmap.json") for flag in flags)]) == code
    )
    captured = capsys.readouterr()
    assert message in captured.err and len(captured.err.strip().splitlines()) == 1 and captured.out == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == ["idmap.json"]

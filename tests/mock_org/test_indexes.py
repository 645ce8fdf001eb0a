"""The indexes of a prepared org: the planner serves the CRMArena tools' queries from them, writes keep
them right, the duplicate Id indexes are gone, and another SQLite tool can still read the file."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import event

from mock_org.indexes import FOLDED_TYPES
from mock_org.org import Org
from mock_org.query import conditions
from mock_org.storage import Storage, register_functions

from .builder import build_org
from .conftest import ACCOUNTS, AGENT_A, AGENT_B, CASES, ISSUE_SIZE, ITEMS, PRODUCTS, tiny_records

WINDOW = "CreatedDate >= 2023-01-01T00:00:00Z AND CreatedDate < 2023-04-01T00:00:00Z"
ASSIGNMENT = "Field__c = 'Owner Assignment'"
HISTORY = "CreatedDate >= 2023-06-01T00:00:00Z AND CreatedDate < 2024-06-01T00:00:00Z"  # when the histories were made

# (SOQL of a CRMArena tool, the indexes the statements it runs must search with)
TOOL_QUERIES = [
    (
        f"SELECT NewValue__c, COUNT(Id) n FROM CaseHistory__c WHERE {ASSIGNMENT} AND OldValue__c = null AND {WINDOW} "
        "GROUP BY NewValue__c",
        ["fold_CaseHistory__c_CreatedDate_Field__c"],
    ),
    (
        f"SELECT OldValue__c, COUNT(Id) n FROM CaseHistory__c WHERE {ASSIGNMENT} AND OldValue__c != null AND {WINDOW} "
        "GROUP BY OldValue__c",
        ["fold_CaseHistory__c_CreatedDate_Field__c"],
    ),
    (
        f"SELECT OldValue__c, COUNT(Id) n FROM CaseHistory__c WHERE {ASSIGNMENT} AND OldValue__c != null AND {WINDOW} "
        f"AND OldValue__c IN ('{AGENT_A}', '{AGENT_B}') GROUP BY OldValue__c",
        ["fold_CaseHistory__c_OldValue__c_CreatedDate"],
    ),
    # the child histories go by their case, not by every Owner Assignment
    (
        f"SELECT Id, (SELECT Id FROM CaseHistories__r WHERE {ASSIGNMENT} AND OldValue__c != null) FROM Case "
        f"WHERE Id IN (SELECT CaseId__c FROM CaseHistory__c WHERE {ASSIGNMENT} AND OldValue__c = null AND {HISTORY}) "
        "ORDER BY Id",
        ["sqlite_autoindex_Case_1", "ix_CaseHistory__c_CaseId__c"],
    ),
    (
        f"SELECT Id, OwnerId FROM Case WHERE {WINDOW} AND Status IN ('Closed', 'Escalated')",
        ["fold_Case_CreatedDate_Status"],
    ),
    (f"SELECT Id, OwnerId FROM Case WHERE {WINDOW}", ["fold_Case_CreatedDate_Status"]),
    (
        f"SELECT Id FROM Case WHERE Status IN ('Closed') AND IssueId__c IN ('{ISSUE_SIZE}')",
        ["fold_Case_IssueId__c_Status"],
    ),
    (
        f"SELECT Id FROM Case WHERE {WINDOW} AND Status IN ('Closed') AND Id IN ('{CASES[0]}', '{CASES[1]}')",
        ["sqlite_autoindex_Case_1"],
    ),
    (
        f"SELECT Id FROM Case WHERE {WINDOW} AND Status IN ('Closed') AND OwnerId IN ('{AGENT_A}', '{AGENT_B}')",
        ["ix_Case_OwnerId_CreatedDate"],
    ),
    (
        f"SELECT IssueId__c, COUNT(Id) n FROM Case WHERE OrderItemId__c IN ('{ITEMS[0]}', '{ITEMS[1]}') AND {WINDOW} "
        "AND IssueId__c != null GROUP BY IssueId__c",
        ["ix_Case_OrderItemId__c"],
    ),
    (
        f"SELECT Product2Id FROM OrderItem WHERE Order.AccountId = '{ACCOUNTS[0]}' AND Order.EffectiveDate = 2023-01-10 "
        f"AND Order.Status = 'Activated' AND Product2Id IN ('{PRODUCTS[0]}', '{PRODUCTS[1]}')",
        ["ix_OrderItem_Product2Id", "sqlite_autoindex_Order_1"],
    ),
    ("SELECT Id FROM User WHERE Username = 'SOFIA.KOURIS@example.com'", ["fold_User_Username"]),
    ("SELECT Id FROM Account WHERE Name = 'patricia walker'", ["fold_Account_Name"]),
    (
        f"SELECT Subject FROM EmailMessage WHERE ParentId = '{CASES[0]}' ORDER BY MessageDate, Id",
        ["ix_EmailMessage_ParentId"],
    ),
]


class TracedOrg:
    """A read-only org over the same file whose every SQL statement is kept, to be explained."""

    def __init__(self, path: Path) -> None:
        self.statements: list[str] = []
        self.org = Org(path, read_only=True)
        event.listen(self.org.storage.reader, "connect", lambda dbapi, _: dbapi.set_trace_callback(self.trace))

    def trace(self, statement: str) -> None:
        self.statements.append(statement)

    def plans(self, soql: str) -> list[list[str]]:
        """SQLite's EXPLAIN QUERY PLAN lines for each statement the engine runs to answer ``soql``."""
        self.statements.clear()
        self.org.query(soql)
        selects = [statement for statement in self.statements if statement.lstrip().upper().startswith("SELECT")]
        with closing(sqlite3.connect(self.org.storage.path)) as raw:
            register_functions(raw)
            return [[row[3] for row in raw.execute("EXPLAIN QUERY PLAN " + select)] for select in selects]


@pytest.fixture(scope="module")
def traced(org: Org) -> TracedOrg:
    traced = TracedOrg(org.storage.path)
    yield traced
    traced.org.close()


@pytest.mark.parametrize(("soql", "indexes"), TOOL_QUERIES)
def test_the_planner_serves_tool_queries_from_the_indexes(traced: TracedOrg, soql: str, indexes: list[str]) -> None:
    lines = [line for plan in traced.plans(soql) for line in plan]
    for index in indexes:
        assert any(f"USING INDEX {index} " in line for line in lines), lines
    assert not any(line.startswith("SCAN ") for line in lines), lines


def test_the_folded_types_are_the_ones_the_compiler_folds() -> None:
    assert FOLDED_TYPES == conditions._FOLDED


def index_names(path: Path) -> set[str]:
    with closing(sqlite3.connect(path)) as connection:
        return {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}


def test_no_index_duplicates_the_primary_key_and_old_ones_are_retired(tmp_path: Path) -> None:
    path = tmp_path / "org.db"
    build_org(path, tiny_records()).close()
    with closing(sqlite3.connect(path)) as connection:  # a file prepared the old way
        connection.execute('CREATE INDEX "ix_Case_Id" ON "Case" ("Id")')
        connection.execute('CREATE INDEX "ix_User_Username" ON "User" ("Username")')
        connection.commit()
    storage = Storage(path, Org(path, read_only=True).schema)
    storage.prepare()
    storage.dispose()
    names = index_names(path)
    assert not [name for name in names if name.endswith("_Id")]
    assert not [name for name in names if name.endswith(("_CreatedById", "_LastModifiedById"))]
    assert "ix_User_Username" not in names and "fold_User_Username" in names
    assert {"ix_Case_AccountId", "fold_Case_CaseNumber", "fold_Case_CreatedDate_Status"} <= names
    assert "ix_Case_IssueId__c" not in names  # fold_Case_IssueId__c_Status serves it


def test_writes_keep_the_fold_indexes_right(writable_org: Org, tmp_path: Path) -> None:
    created = writable_org.create("Case", {"Subject": "Ünïcode", "Status": "Escalated"}, user_id=AGENT_A)
    writable_org.update("Case", CASES[0], {"Status": "Working"}, user_id=AGENT_A)
    writable_org.update("Case", CASES[3], {"Status": "Closed"}, user_id=AGENT_A)
    writable_org.delete("Case", CASES[2], user_id=AGENT_A)
    history = writable_org.create(
        "CaseHistory__c",
        {"CaseId__c": created, "Field__c": "Owner Assignment", "NewValue__c": AGENT_B},
        user_id=AGENT_A,
    )

    def found(soql: str) -> set[str]:
        return {record["Id"] for record in writable_org.query(soql)["records"]}

    since = "CreatedDate > 2000-01-01T00:00:00Z"  # so that fold_Case_CreatedDate_Status answers
    assert found(f"SELECT Id FROM Case WHERE {since} AND Status = 'ESCALATED'") == {created, CASES[5]}
    assert found(f"SELECT Id FROM Case WHERE {since} AND Status = 'working'") == {CASES[0], CASES[4]}
    assert found(f"SELECT Id FROM Case WHERE {since} AND Status = 'closed'") == {CASES[1], CASES[3], CASES[6]}
    assert found(f"SELECT Id FROM Case WHERE IssueId__c = '{ISSUE_SIZE}' AND Status = 'Closed'") == {
        CASES[1],
        CASES[3],
        CASES[6],
    }
    assert history in found(f"SELECT Id FROM CaseHistory__c WHERE {ASSIGNMENT} AND CreatedDate = TODAY")
    # integrity_check compares every index entry with the value its expression gives for the row.
    with closing(sqlite3.connect(writable_org.storage.path)) as connection:
        register_functions(connection)
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


def test_another_sqlite_tool_reads_a_prepared_file_and_can_drop_the_fold_indexes(org: Org, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    with closing(sqlite3.connect(org.storage.path)) as source, closing(sqlite3.connect(copy)) as target:
        source.backup(target)
    with closing(sqlite3.connect(copy)) as plain:  # no sf_fold registered, as in the sqlite3 shell
        assert plain.execute("SELECT COUNT(*) FROM \"Case\" WHERE Status = 'Closed'").fetchone() == (5,)
        with pytest.raises(sqlite3.OperationalError, match="sf_fold"):
            plain.execute("UPDATE \"Case\" SET Status = 'New' WHERE Status = 'Closed'")
        # docs/cli.md, "Prepared files": the statements that drop them, made by the shell from the schema.
        drops = plain.execute(
            "SELECT 'DROP INDEX \"' || name || '\";' FROM sqlite_master WHERE name LIKE 'fold\\_%' ESCAPE '\\'"
        ).fetchall()
        plain.executescript("".join(row[0] for row in drops))
        plain.execute("UPDATE \"Case\" SET Status = 'New' WHERE Status = 'Closed'")
        assert plain.execute("PRAGMA integrity_check").fetchone() == ("ok",)
